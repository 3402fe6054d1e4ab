import formats from "../../../schema/plugin_formats.json";

/**
 * A model's answer as the plugin draws it or puts it into a note: text from outside (a model,
 * perhaps led by a web page or a note it read), made inert by the rules the sidecar writes a chat
 * note by (`sidecar/vault/inert.py`, the same data: `schema/plugin_formats.json`). Drawing Markdown
 * runs things in the app: other plugins' processors run a ```` ```dataviewjs ```` block or a
 * `` `$= …` `` inline query, Templater reads `<% … %>`, and an image (`![](https://…)`,
 * `<img src=…>`) is fetched as soon as it is drawn, its address able to carry what the model read
 * (private notes, in private mode) to any server. An invisible word joiner breaks each of those
 * syntaxes; the text reads the same, an image shows as a link and a tag as its text. Code is shown,
 * not drawn, so only the query syntaxes are broken inside it.
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
const LEAD = String.raw`(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*`;
const FENCE = new RegExp(String.raw`^(${LEAD}(?:\`{3,}|~{3,})[ \t]*)([^\s\`]+)`, "gm");
const FENCE_LINE = new RegExp(String.raw`^${LEAD}(\`{3,}|~{3,})`);
const INLINE_QUERY = new RegExp(`(\`+[ \\t]*)(?=${spec.prefixes.map(escape).join("|")})`, "g");
// A code span (its run of backticks, closed by the same run), or a lone run that opens none.
const CODE_SPAN = /(`+)[\s\S]*?[^`]\1(?!`)|`+/g;
// What is drawn by fetching: an image (not an embed, `![[…]]`) and an HTML tag (a name then a
// space, `/` or `>`; not an autolink `<https://…>` nor a link's `](<a file.md>)`).
const DRAWN = /!(?=\[(?!\[))|(?<!\]\()<(?=\/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|[!?])/g;

/** As `inert()` in sidecar/vault/inert.py: nothing in `text` runs or is fetched when it is drawn. */
export function inert(text: string): string {
	const opener = spec.templateOpen;
	let out = text.split(opener).join(opener.slice(0, 1) + spec.mark + opener.slice(1));
	out = out.replace(FENCE, (whole: string, lead: string, word: string) =>
		spec.languages.has(word.replace(/^[{.]+/, "").toLowerCase()) ? `${lead}${spec.fenceLanguage} ${word}` : whole,
	);
	out = out.replace(INLINE_QUERY, (_whole: string, opening: string) => opening + spec.mark);
	return outsideCode(out, (prose) => prose.replace(DRAWN, (found) => found + spec.mark));
}

/** `text` with `change` applied to all but its fenced blocks and code spans. */
function outsideCode(text: string, change: (prose: string) => string): string {
	const out: string[] = [];
	let prose: string[] = [];
	let fence: string | null = null;
	const flush = (): void => {
		if (prose.length > 0) out.push(outsideSpans(prose.join("\n"), change));
		prose = [];
	};
	for (const line of text.split("\n")) {
		const marker = FENCE_LINE.exec(line)?.[1];
		if (fence === null && marker === undefined) {
			prose.push(line);
			continue;
		}
		if (fence === null && marker !== undefined) {
			flush();
			fence = marker;
		} else if (fence !== null && marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
			fence = null;
		}
		out.push(line);
	}
	flush();
	return out.join("\n");
}

function outsideSpans(prose: string, change: (prose: string) => string): string {
	let out = "";
	let last = 0;
	for (const span of prose.matchAll(CODE_SPAN)) {
		if (span[1] === undefined) continue; // a lone run of backticks is text
		out += change(prose.slice(last, span.index)) + span[0];
		last = span.index + span[0].length;
	}
	return out + change(prose.slice(last));
}
