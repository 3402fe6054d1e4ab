import MarkdownIt from "markdown-it";

import formats from "../../../schema/plugin_formats.json";
import tags from "../../../schema/tags.json";

/**
 * A model's answer as the plugin draws it or puts it into a note: text from outside (a model,
 * perhaps led by a web page or a note it read), made inert by the rules the sidecar writes a chat
 * note by (`sidecar/vault/inert.py`, the same data: `schema/plugin_formats.json`, `schema/tags.json`),
 * with the same output for the same input (`tests/vault/data/inert_cases.json`, read by both test
 * suites). Drawing Markdown runs things in the app: other plugins' processors run a
 * ```` ```dataviewjs ```` block or a `` `$= …` `` inline query, Templater reads `<% … %>`, an image
 * (`![](https://…)`, `<img src=…>`) is fetched as soon as it is drawn, its address able to carry
 * what the model read (private notes, in private mode) to any server, and an embed (`![[…]]`)
 * shows another note of the vault. An invisible word joiner breaks each of those syntaxes; the text
 * reads the same, an image or an embed shows as a link and an HTML tag as its text. A tag's `#` is
 * broken too, so no tag of the answer becomes the note's: outside code, and for a status tag
 * (`#private`, `#archived`, `#incubating`: `tags.json` `filters`) in code as well. Code is shown,
 * not drawn, so otherwise only the query syntaxes are broken inside it.
 *
 * Code is read as CommonMark reads it: fenced blocks as markdown-it finds them (a fence in a quote or
 * a list item ends with it; an indented ```` ``` ```` opens none; a GFM table is read a row's cells
 * apart, as Obsidian reads it), and code spans within a block of inline text (a run of backticks to
 * the next run of as many, not opened by an escaped backtick nor inside an autolink or a link's
 * destination or title), in one pass: each run of backticks is looked at once, and no pattern
 * backtracks over the text, so a page of unclosed backtick runs cannot hold up the app.
 *
 * The patterns mean what the sidecar's Python patterns mean: its `\s` (`PY_SPACE`, not
 * JavaScript's), its Unicode `\d` (`\p{Nd}`) and `\w`, and its case-insensitive `i`, which also
 * matches `İ` and `ı`.
 */

const spec = {
	mark: formats.inert.mark,
	fenceLanguage: formats.inert.fence_language,
	languages: new Set(formats.query_languages.map((name) => name.toLowerCase())),
	templateOpen: formats.template_commands.open,
	prefixes: [...formats.inline_query_prefixes].sort((a, b) => b.length - a.length),
	statuses: Object.keys(tags.filters),
};

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Python's `\s` (str.isspace()), which the sidecar's patterns use: JavaScript's `\s` also holds
// U+FEFF and lacks U+001C–U+001F and U+0085.
const PY_SPACE = String.raw`\t\n\v\f\r\x1C-\x1F \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;
// What JavaScript's `trim()` removes, as Dataview trims an inline query's text: WhiteSpace and
// LineTerminator (ECMA-262, String.prototype.trim).
const JS_TRIMMED = String.raw`\t\n\v\f\r \xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF`;
// A line's start: the text's, or after `\n` (a RegExp's `m` flag also starts one after U+2028).
const LINE_START = "(?<![^\\n])";

// A fence opener anywhere (in a quote, a callout, a list item): its marker and first word.
const LEAD = String.raw`(?:[ \t>]|[-+*][ \t]|\p{Nd}{1,9}[.)][ \t])*`;
const FENCE = new RegExp(`${LINE_START}(${LEAD}(?:\`{3,}|~{3,})[ \\t]*)([^${PY_SPACE}\`]+)`, "gu");
// How many times the blocks are read before all the text is taken for prose (`outsideCode`).
const READS = 4;
// Blocks only: the inline rules would find code spans too, but not where they are in the text
// (a block's inline text has its quote and list markers taken out). GFM's tables, as Obsidian reads
// them: a row's cells are read apart, so no code span runs across a `|`.
const blockParser = new MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"]);
// A code span opening (after what JavaScript's trim() removes) with an inline query's prefix,
// tried from a run's first backtick only; giving back a backtick or a space never lets a prefix
// follow, so a run and its spaces are read once (as the sidecar's possessive `++`, `*+`).
const INLINE_QUERY = new RegExp(`(?<!\`)(\`+[${JS_TRIMMED}]*)(?=${spec.prefixes.map(escape).join("|")})`, "g");
// What may hold a backtick that opens no code span: an escape, an autolink (URL or e-mail address,
// CommonMark's forms), or a link's destination and title after `](`; else a run of backticks,
// which may open one.
const OPENERS = new RegExp(
	[
		String.raw`\\[!-/:-@[-\x60{-~]`,
		String.raw`<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>]*>`,
		String.raw`<[A-Za-z0-9.!#$%&'*+/=?^_\x60{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?` +
			String.raw`(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>`,
		String.raw`\]\(`,
		"`+",
	].join("|"),
	"g",
);
const TICKS = /`+/g;
// A table row's cell separators: each `|` not right after a backslash (markdown-it's rule).
const CELL = /(?<!\\)\|/;
// How deep a link destination's parentheses may nest (markdown-it's limit).
const NESTING = 32;
// What Obsidian draws by fetching or showing: an image or an embed, and an HTML tag (a name then
// a space, `/` or `>`; not an autolink `<https://…>` nor a link's `](<a file.md>)`, but there too
// the tag of an element that fetches: `plugin_formats.json` `link_tags`, in any case).
const LINK_TAGS = formats.inert.link_tags.names
	.map((name) => Array.from(name, (c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escape(c))).join(""))
	.join("|");
const DRAWN = new RegExp(
	String.raw`!(?=\[)|(?<!\]\()<(?=\/?[A-Za-z][A-Za-z0-9-]*(?:[${PY_SPACE}/>]|$)|[!?])` +
		String.raw`|(?<=\]\()<(?=\/?(?:${LINK_TAGS})(?:[${PY_SPACE}/>]|$))`,
	"g",
);
// A tag as Ora and Obsidian read one: `#` after a line's start, a space or `_` (after a quote's
// `>` and a table's `|` too), then a tag's characters (a letter, a combining mark or a joiner),
// not digits alone (`#1` is no tag).
const TAG = new RegExp(
	String.raw`(?:(?<![^${PY_SPACE}>|])|(?<=_))#(?=[\p{Nd}/]*(?:[\p{L}\p{Nl}\p{No}_]|[\p{M}\u200C-]|\u200D))`,
	"gu",
);
// A tag that changes what retrieval does with a note, in any case (Python's: `i` is also `İ`, `ı`).
const STATUS_TAG = new RegExp(
	`#(?=(?:${spec.statuses.map((tag) => Array.from(tag, (c) => (c.toLowerCase() === "i" ? "[iIİı]" : escape(c))).join("")).join("|")}))`,
	"giu",
);
// A lone UTF-16 surrogate, which no UTF-8 file can hold.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * As `inert()` in sidecar/vault/inert.py: `text` with lone surrogates replaced (U+FFFD) and `\n`
 * line ends (Obsidian ends a line at a lone `\r` too), in which no Templater command, query block
 * or inline query runs, nothing outside code is fetched or embedded when it is drawn, and no tag
 * is read. Linear in the text's length.
 */
export function inert(text: string): string {
	let out = text.replace(LONE_SURROGATE, "\uFFFD").replace(/\r\n?/g, "\n");
	const opener = spec.templateOpen;
	out = out.split(opener).join(opener.slice(0, 1) + spec.mark + opener.slice(1));
	out = out.replace(FENCE, (whole: string, lead: string, word: string) =>
		spec.languages.has(word.replace(/^[{.]+/, "").toLowerCase()) ? `${lead}${spec.fenceLanguage} ${word}` : whole,
	);
	out = out.replace(INLINE_QUERY, (_whole: string, opening: string) => opening + spec.mark);
	// Before the blocks are read: it may make a reference definition's label too long for one.
	out = out.replace(STATUS_TAG, "#" + spec.mark);
	return outsideCode(out, (prose) =>
		prose.replace(DRAWN, (found) => found + spec.mark).replace(TAG, "#" + spec.mark),
	);
}

/** A fenced block, a table or another block of inline text: its first line, its end line, its kind. */
type Block = [number, number, "fence" | "table" | "inline"];

/**
 * `text` with `change` applied to all but its fenced blocks and code spans. The blocks are
 * CommonMark's (markdown-it). A mark never begins or ends a block of inline text or a fence, but
 * one in a line of neither may change the blocks: a broken HTML block's lines are read as Markdown
 * again (a fence-looking line in it may then open a fence), a reference definition made too long is
 * a paragraph. Then the blocks of the result are read again, until they are the blocks it was made
 * by; past `READS` reads every line is taken for prose, which shows the same and draws nothing.
 */
function outsideCode(text: string, change: (prose: string) => string): string {
	let blocks = blocksOf(text);
	let [out, settled] = outsideBlocks(text, blocks, change);
	if (settled) return out;
	for (let read = 0; read < READS; read++) {
		const again = blocksOf(out);
		if (again.join(";") === blocks.join(";")) return out;
		blocks = again;
		[out] = outsideBlocks(text, blocks, change);
	}
	return change(text);
}

/**
 * Each fenced block, at any depth, each table and each other block of inline text (a paragraph, a
 * heading), in order: CommonMark's leaf blocks, which never share a line. An indented code block is
 * left out, so read as prose: it shows the same.
 */
function blocksOf(text: string): Block[] {
	const blocks: Block[] = [];
	let tableEnd = -1;
	for (const token of blockParser.parse(text, {})) {
		if (!token.map || token.map[0] < tableEnd) continue; // a table's cells: read with it
		if (token.type === "table_open") tableEnd = token.map[1];
		if (token.type === "fence" || token.type === "inline") blocks.push([token.map[0], token.map[1], token.type]);
		else if (token.type === "table_open") blocks.push([token.map[0], token.map[1], "table"]);
	}
	return blocks;
}

/**
 * `text` with `change` applied to all but the fenced `blocks` and the code spans of its blocks of
 * inline text (each cell of a table's rows apart), and whether `change` left every line in no block
 * as it was (a blank line, an HTML block, an indented code block, a reference definition: it holds
 * no code span).
 */
function outsideBlocks(text: string, blocks: Block[], change: (prose: string) => string): [string, boolean] {
	const lines = text.split("\n");
	const out: string[] = [];
	let at = 0;
	let settled = true;
	const between = (end: number): void => {
		if (at >= end) return;
		const kept = lines.slice(at, end).join("\n");
		const changed = change(kept);
		out.push(changed);
		settled &&= changed === kept;
	};
	for (const [start, end, kind] of blocks) {
		between(start);
		const block = lines.slice(start, end).join("\n");
		if (kind === "table") out.push(lines.slice(start, end).map((row) => outsideCells(row, change)).join("\n"));
		else out.push(kind === "fence" ? block : outsideSpans(block, change));
		at = end;
	}
	between(lines.length);
	return [out.join("\n"), settled];
}

/** A table's row with `change` applied outside the code spans of each of its cells. */
function outsideCells(row: string, change: (prose: string) => string): string {
	return row
		.split(CELL)
		.map((cell) => outsideSpans(cell, change))
		.join("|");
}

function outsideSpans(prose: string, change: (prose: string) => string): string {
	let out = "";
	let last = 0;
	for (const [start, end] of codeSpans(prose)) {
		out += change(prose.slice(last, start)) + prose.slice(start, end);
		last = end;
	}
	return out + change(prose.slice(last));
}

/**
 * [start, end) of each code span of one paragraph, CommonMark's way: a run of backticks opens
 * one, closed by the next run of exactly as many; a run no such run follows is text. Each run is
 * read once: the runs of each length wait in a queue, and those passed are dropped from its front.
 *
 * A link's destination and title bind before a code span can open in them (`[a](x "`")`): after
 * each `](` whose text may be one (`linkTail`), no span opens from a backtick before where it may
 * end, nor past an autolink begun there and ending after: the paragraph's rest is read as prose (it
 * may be a link or not; prose draws nothing either way).
 */
function codeSpans(text: string): Array<[number, number]> {
	const runs: Array<[number, number]> = [];
	const runAt = new Map<number, number>(); // an opener ends where its run does
	const later = new Map<number, { runs: number[]; head: number }>();
	for (const match of text.matchAll(TICKS)) {
		const start = match.index ?? 0;
		const end = start + match[0].length;
		runAt.set(end, runs.length);
		const queue = later.get(end - start) ?? { runs: [], head: 0 };
		queue.runs.push(runs.length);
		later.set(end - start, queue);
		runs.push([start, end]);
	}
	const spans: Array<[number, number]> = [];
	const openers = new RegExp(OPENERS.source, OPENERS.flags);
	let token: RegExpExecArray | null;
	let tail = 0; // where the furthest link destination or title seen may end
	while ((token = openers.exec(text)) !== null) {
		const at = openers.lastIndex;
		if (token[0] === "](") {
			if ((runs[runs.length - 1]?.[0] ?? -1) < at) break; // no backtick left to open a span
			if (tail < text.length) tail = Math.max(tail, linkTail(text, at)); // else the rest is prose already
			continue;
		}
		if (token.index < tail && (token[0].startsWith("`") || at > tail)) break;
		if (!token[0].startsWith("`")) continue; // an escape or an autolink: no span opens in it
		const n = runAt.get(at) ?? -1;
		const queue = later.get(at - token.index);
		if (queue === undefined) continue;
		while (queue.head < queue.runs.length && (queue.runs[queue.head] ?? 0) <= n) queue.head++;
		const closer = runs[queue.runs[queue.head] ?? -1];
		if (closer === undefined) continue;
		openers.lastIndex = closer[1];
		spans.push([token.index, closer[1]]);
	}
	return spans;
}

/**
 * Where an inline link's destination and title, if the text after a `](` at `at` is one, end (after
 * its `)`), as markdown-it reads them; -1 if it is none. Where a line's quote marker or an escaped
 * line end lies in it, the raw text cannot tell (the inline text lacks the marker), nor is it worth
 * telling in parentheses nested past markdown-it's limit (each `](` would read them again): the
 * text's end.
 */
function linkTail(text: string, from: number): number {
	const end = text.length;
	let at = linkSpace(text, from);
	if (at < 0) return end;
	if (at >= end) return -1;
	const dest = linkDestination(text, at);
	if (dest === end + 1) return end;
	if (dest >= 0) {
		const after = linkSpace(text, dest);
		if (after < 0) return end;
		const title = dest < after && after < end ? linkTitle(text, after) : -1;
		at = title >= 0 ? linkSpace(text, title) : after;
		if (at < 0) return end;
	}
	return at < end && text[at] === ")" ? at + 1 : -1;
}

/** Past the spaces, tabs and line ends at `at`; -1 past a line end a quote marker follows. */
function linkSpace(text: string, from: number): number {
	let at = from;
	while (at < text.length && " \t\n".includes(text[at] ?? "x")) at++;
	return text[at] === ">" && text.slice(from, at).includes("\n") ? -1 : at;
}

/**
 * The end of a link destination at `at` (`<…>`, or text with balanced parentheses), -1 if none is,
 * past the text's end if it runs onto another line or nests too deep to tell.
 */
function linkDestination(text: string, from: number): number {
	const end = text.length;
	let at = from;
	if (text[at] === "<") {
		at++;
		while (at < end && text[at] !== "\n" && text[at] !== "<") {
			if (text[at] === ">") return at + 1;
			at += text[at] === "\\" && at + 1 < end ? 2 : 1;
		}
		return -1;
	}
	let level = 0;
	while (at < end && text.charCodeAt(at) > 0x20 && text.charCodeAt(at) !== 0x7f) {
		const char = text[at];
		if (char === "\\" && at + 1 < end) {
			if (text[at + 1] === " ") break;
			if (text[at + 1] === "\n") return end + 1;
			at += 2;
			continue;
		}
		if (char === "(") {
			level++;
			if (level > NESTING) return end + 1;
		} else if (char === ")") {
			if (level === 0) break;
			level--;
		}
		at++;
	}
	return at > from && level === 0 ? at : -1;
}

/** The end of a link title at `at` (`"…"`, `'…'` or `(…)`), -1 if none is. */
function linkTitle(text: string, from: number): number {
	const open = text[from];
	if (open !== '"' && open !== "'" && open !== "(") return -1;
	const close = open === "(" ? ")" : open;
	let at = from + 1;
	while (at < text.length) {
		if (text[at] === close) return at + 1;
		if (close === ")" && text[at] === "(") return -1;
		at += text[at] === "\\" ? 2 : 1;
	}
	return -1;
}
