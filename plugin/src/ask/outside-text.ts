import formats from "../../../schema/plugin_formats.json";

/**
 * A model's answer made safe to draw with Obsidian's Markdown renderer. The answer is text from
 * outside (a model, perhaps led by a web page or a note it read), and drawing Markdown runs
 * things in the app:
 * - other plugins' processors run a ```` ```dataviewjs ```` block or a `` `$= …` `` inline query,
 *   and Templater reads `<% … %>`: they are made inert as the sidecar writes them into a chat note
 *   (`sidecar/vault/inert.py`, the same data: `schema/plugin_formats.json`);
 * - an image (`![](https://…)`, `<img src=…>`) is fetched as soon as it is drawn, and its address
 *   can carry what the model read (private notes, in private mode) to any server: a Markdown image
 *   is drawn as a link instead, and raw HTML as text. Inside code it is left as it is (code is
 *   shown, not drawn).
 */

const spec = {
	mark: formats.inert.mark,
	fenceLanguage: formats.inert.fence_language,
	languages: new Set(formats.query_languages.map((name) => name.toLowerCase())),
	templateOpen: formats.template_commands.open,
	prefixes: [...formats.inline_query_prefixes].sort((a, b) => b.length - a.length),
};

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// A fence opener anywhere (in a quote, a callout, a list item): its marker and first word.
const FENCE = /^((?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*(?:`{3,}|~{3,})[ \t]*)([^\s`]+)/gm;
const INLINE_QUERY = new RegExp(`(\`+[ \\t]*)(?=${spec.prefixes.map(escape).join("|")})`, "g");
const FENCE_LINE = /^(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*(`{3,}|~{3,})/;
const CODE_SPAN = /(`+)[\s\S]*?[^`]\1(?!`)|(`+)(?=[^`])/g;

/** As `inert()` in sidecar/vault/inert.py: no Templater command, query block or inline query runs. */
export function inert(text: string): string {
	const opener = spec.templateOpen;
	let out = text.split(opener).join(opener.slice(0, 1) + spec.mark + opener.slice(1));
	out = out.replace(FENCE, (whole: string, lead: string, word: string) =>
		spec.languages.has(word.replace(/^[{.]+/, "").toLowerCase()) ? `${lead}${spec.fenceLanguage} ${word}` : whole,
	);
	return out.replace(INLINE_QUERY, (_whole: string, opening: string) => opening + spec.mark);
}

/** Outside code: a Markdown image drawn as a link, and an HTML tag shown as text. */
function undrawn(prose: string): string {
	return prose.replace(/!\[(?!\[)/g, "[").replace(/<(?=[A-Za-z/!?])/g, "&lt;");
}

/** `inert`, then each image and HTML tag outside code undrawn (see the module's comment). */
export function renderable(markdown: string): string {
	const lines = inert(markdown).split("\n");
	let fence: string | null = null;
	const out: string[] = [];
	let prose: string[] = [];
	const flush = (): void => {
		if (prose.length > 0) out.push(outsideSpans(prose.join("\n")));
		prose = [];
	};
	for (const line of lines) {
		const marker = FENCE_LINE.exec(line)?.[1];
		if (fence === null && marker !== undefined) {
			flush();
			fence = marker;
			out.push(line);
		} else if (fence !== null) {
			out.push(line);
			if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
		} else {
			prose.push(line);
		}
	}
	flush();
	return out.join("\n");
}

/** `undrawn` applied to `text` but its code spans. */
function outsideSpans(text: string): string {
	let out = "";
	let last = 0;
	for (const match of text.matchAll(CODE_SPAN)) {
		if (match[1] === undefined) continue; // a lone backtick run opens no span
		out += undrawn(text.slice(last, match.index)) + match[0];
		last = match.index + match[0].length;
	}
	return out + undrawn(text.slice(last));
}
