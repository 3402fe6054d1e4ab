// Quick fixes for the sidecar's diagnostics, as text changes on the editor's document (pure: the
// editor applies them as one transaction, so one undo reverts a fix). Nothing here writes a file.
import vocabularies from "../../../schema/vocabularies.json";
import type { Diagnostic } from "../api/types";
import { lintIgnoreEntry } from "./ignore";

/** The linter-managed date keys, in the order the sidecar fills them (schema data). */
export const MANAGED_DATES: readonly string[] = (vocabularies as { linter_managed_dates: string[] }).linter_managed_dates;

export interface TextChange {
	from: number;
	to: number;
	insert: string;
}

/** A fix the user can choose: text changes, or adding a path to the vault's lint ignore list. */
export type QuickFix = { name: string; changes: TextChange[] } | { name: string; ignore: string };

/**
 * What a fix does, whatever the text now makes its name ("Add the missing dates" becomes "Add date
 * modified" once the user typed `date created:`): how a fix chosen on an older text is found again.
 */
export type FixKind = "replace-value" | "add-dates" | "quote-links" | "ignore-note" | "ignore-folder";

/** A quick fix and its kind. */
export interface KindedFix {
	kind: FixKind;
	fix: QuickFix;
}

export interface FixContext {
	/** The note's vault path. */
	path: string;
	/** Dates (YYYY-MM-DD) to fill in, from the file's creation and modification times. */
	dates: () => Record<string, string>;
	/** Whether "ignore this note/folder" fixes are offered (the sidecar can write ora.yaml). */
	canIgnore: boolean;
}

interface Line {
	from: number;
	to: number;
	text: string;
}

function lines(text: string): Line[] {
	const out: Line[] = [];
	let from = 0;
	for (const raw of text.split("\n")) {
		out.push({ from, to: from + raw.length, text: raw.replace(/\r$/, "") });
		from += raw.length + 1;
	}
	return out;
}

/** Index of the frontmatter's closing `---` line, or -1 when there is no frontmatter. */
function closingFence(all: Line[]): number {
	if (all[0]?.text.trim() !== "---") return -1;
	return all.findIndex((l, i) => i > 0 && (l.text.trim() === "---" || l.text.trim() === "..."));
}

/** The lines of the top-level key starting at 0-based `start`: up to the next key or the fence. */
function keyBlock(all: Line[], start: number, fence: number): Line[] {
	const block = [all[start]].filter((l): l is Line => l !== undefined);
	for (let i = start + 1; i < fence; i++) {
		const l = all[i];
		if (!l || /^\S/.test(l.text)) break;
		block.push(l);
	}
	return block;
}

const SUGGESTION = /'([^']+)'.*did you mean '([^']+)'/;

/** The quick fixes for one diagnostic on `text` (the document now). */
export function quickFixes(text: string, diagnostic: Diagnostic, context: FixContext): QuickFix[] {
	return kindedFixes(text, diagnostic, context).map(({ fix }) => fix);
}

/** The quick fixes for one diagnostic on `text` (the document now), each with its kind. */
export function kindedFixes(text: string, diagnostic: Diagnostic, context: FixContext): KindedFix[] {
	const all = lines(text);
	const fence = closingFence(all);
	const fixes: KindedFix[] = [];
	const add = (kind: FixKind, fix: QuickFix | null) => {
		if (fix) fixes.push({ kind, fix });
	};
	const start = Math.max(0, diagnostic.line - 1);
	const suggestion = SUGGESTION.exec(diagnostic.message);
	if (suggestion && fence > 0 && start < fence) {
		add("replace-value", replaceValue(keyBlock(all, start, fence), suggestion[1] ?? "", suggestion[2] ?? ""));
	}
	if (diagnostic.code === "date-missing" && fence > 0) add("add-dates", addDates(text, all, fence, context));
	if (diagnostic.code === "wikilink-unquoted" && fence > 0 && start < fence) {
		add("quote-links", quoteLinks(keyBlock(all, start, fence)));
	}
	if (context.canIgnore) {
		add("ignore-note", { name: "Ignore lint for this note", ignore: context.path });
		const folder = lintIgnoreEntry(context.path, "folder");
		if (folder) add("ignore-folder", { name: "Ignore lint for this folder", ignore: folder });
	}
	return fixes;
}

function escape(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Replaces the first occurrence of `bad` as a whole YAML value or key in the block: a scalar of its
 * own (quoted or not) where a value begins (after `key:`, `- `, `[` or `,`) and ends (before `,`,
 * `]`, `}`, `:`, a comment or the line's end), never part of a longer value like `my-bad`.
 */
function replaceValue(block: Line[], bad: string, good: string): QuickFix | null {
	const pattern = new RegExp(`(?:^|[[{,:]|(?:^|\\s)-\\s)\\s*(["']?)${escape(bad)}\\1(?=\\s*(?:$|[\\]},:])|\\s+#)`);
	for (const [i, line] of block.entries()) {
		// On the key's own line, look after the colon unless the bad word is the key itself.
		const offset = i === 0 && !line.text.trimStart().startsWith(`${bad}:`) ? line.text.indexOf(":") + 1 : 0;
		const match = pattern.exec(line.text.slice(offset));
		if (!match) continue;
		// The value ends the match, before its closing quote.
		const from = line.from + offset + match.index + match[0].length - (match[1] ?? "").length - bad.length;
		return { name: `Replace with '${good}'`, changes: [{ from, to: from + bad.length, insert: good }] };
	}
	return null;
}

/** Adds every absent linter-managed date just before the closing fence. A date under another
 * capitalisation (`Date Created:`) is present: Obsidian reads property names case-insensitively. */
function addDates(text: string, all: Line[], fence: number, context: FixContext): QuickFix | null {
	const present = new Set(all.slice(1, fence).map((l) => topLevelKey(l.text)?.toLowerCase()));
	const missing = MANAGED_DATES.filter((key) => !present.has(key.toLowerCase()));
	if (missing.length === 0) return null;
	const dates = context.dates();
	const eol = text.includes("\r\n") ? "\r\n" : "\n";
	const insert = missing.map((key) => `${key}: ${dates[key] ?? today()}${eol}`).join("");
	const at = all[fence]?.from ?? 0;
	const name = missing.length === 1 ? `Add ${missing[0]}` : "Add the missing dates";
	return { name, changes: [{ from: at, to: at, insert }] };
}

/**
 * "Fix dates in current note" as one text change on the note (applied in the editor: one undo
 * reverts it, and Obsidian never finds its file changed behind its back): the absent
 * linter-managed dates added before the closing fence, or a frontmatter holding them at the top
 * of a note without one. Null when every date is there.
 */
export function datesFix(text: string, dates: Record<string, string>): TextChange | null {
	const all = lines(text);
	const fence = closingFence(all);
	if (fence > 0) {
		const fix = addDates(text, all, fence, { path: "", dates: () => dates, canIgnore: false });
		return fix && "changes" in fix ? (fix.changes[0] ?? null) : null;
	}
	const eol = text.includes("\r\n") ? "\r\n" : "\n";
	const block = MANAGED_DATES.map((key) => `${key}: ${dates[key] ?? today()}${eol}`).join("");
	return { from: 0, to: 0, insert: `---${eol}${block}---${eol}` };
}

/** A key double-quoted (group 1, escapes and all) or single-quoted (group 2, `''` for `'`). */
const QUOTED_KEY = `"((?:[^"\\\\]|\\\\.)*)"|'((?:[^']|'')*)'`;
/** `key:` (group 3: a plain key, up to its colon). */
const IMPLICIT_KEY = new RegExp(`^(?:${QUOTED_KEY}|([^:#\\s"'][^:]*))\\s*:`);
/** `? key`, alone on its line but for a comment (group 3: a plain key; a `#` after a space starts the comment). */
const EXPLICIT_KEY = new RegExp(`^\\?[ \\t]+(?:${QUOTED_KEY}|([^#\\s"'](?:[^#]|(?<=\\S)#)*?))[ \\t]*(?:#.*)?$`);

/**
 * The top-level key a frontmatter line sets, unquoted (`"date created": …` sets `date created`;
 * an explicit key `? date created` sets it too, its value on the next line).
 */
function topLevelKey(line: string): string | undefined {
	const key = IMPLICIT_KEY.exec(line) ?? EXPLICIT_KEY.exec(line);
	if (!key) return undefined;
	if (key[1] !== undefined) return doubleQuoted(key[1]);
	if (key[2] !== undefined) return key[2].replace(/''/g, "'");
	return key[3]?.trim();
}

/** YAML's double-quoted escapes (https://yaml.org/spec/1.2.2/#57-escaped-characters) and their characters. */
const ESCAPES: Record<string, string> = {
	"0": "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r", e: "\x1b",
	" ": " ", '"': '"', "/": "/", "\\": "\\", N: "\x85", _: "\xa0", L: "\u2028", P: "\u2029",
};

/** The text of a one-line double-quoted YAML scalar's body (`date\x20created` is `date created`). */
function doubleQuoted(body: string): string {
	return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (all, escape: string) => {
		if (escape.length > 1) return String.fromCodePoint(parseInt(escape.slice(1), 16));
		return ESCAPES[escape] ?? all;
	});
}

function today(): string {
	const now = new Date();
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * Quotes every `[[link]]` YAML reads as a nested list (one where a value begins, outside quotes and
 * comments); a key whose whole value is one link becomes a one-item list, as the schema wants a
 * list wherever `ora lint` says "quote the wikilink". Comments and quoted strings stay as they are.
 */
function quoteLinks(block: Line[]): QuickFix | null {
	const changes: TextChange[] = [];
	const scan: LinkScan = { quote: null, open: "", start: true, mapValue: false };
	for (const line of block) {
		for (const link of nodeLinks(line.text, scan)) {
			const from = line.from + link.at;
			const text = line.text.slice(link.at, link.at + link.length);
			// JSON's string is a YAML double-quoted one (a `"` in a note's name is escaped).
			const quoted = JSON.stringify(text);
			changes.push({ from, to: from + link.length, insert: link.wholeValue ? `[${quoted}]` : quoted });
		}
	}
	return changes.length ? { name: "Quote the wikilink", changes } : null;
}

/** Where a line scan stands, carried to the next line (quoted strings and flow brackets span lines). */
interface LinkScan {
	/** The quote of the string the scan is in. */
	quote: '"' | "'" | null;
	/** The flow brackets (`[`, `{`) open, innermost last. */
	open: string;
	/** A value may begin here (after `key:`, `- `, `[` or a flow `,`). */
	start: boolean;
	/** The value beginning here is a mapping key's (a block key's, or a flow mapping's `{k: …}`). */
	mapValue: boolean;
}

interface NodeLink {
	at: number;
	length: number;
	/** The link is a key's whole value (`key: [[X]]`, a comment after it at most; `{key: [[X]]}`). */
	wholeValue: boolean;
}

const LINK = /^\[\[[^[\]]+\]\]/;

/**
 * The links on one line that start a YAML node (so YAML reads them as a list, not as text): after
 * `key:`, `- `, `[` or a flow `,`, and not inside a quoted string, a plain scalar or a comment.
 * `scan` carries quotes and flow brackets over to the next line.
 */
function nodeLinks(text: string, scan: LinkScan): NodeLink[] {
	const found: NodeLink[] = [];
	// A block line begins a node (a key or `- `); inside flow brackets, only after `[` or `,`.
	let start = scan.open === "" || scan.start;
	let i = 0;
	while (i < text.length) {
		if (scan.quote) {
			i = quoteEnd(text, i, scan);
			continue;
		}
		const c = text[i] ?? "";
		if (c === " " || c === "\t") {
			i++;
			continue;
		}
		if (c === "#" && (i === 0 || /\s/.test(text[i - 1] ?? ""))) break; // a comment
		const link = start ? LINK.exec(text.slice(i)) : null;
		if (link) {
			const rest = text.slice(i + link[0].length);
			// In a flow mapping only `,` or `}` may follow a value: the link is all of it.
			const whole = scan.mapValue && (scan.open !== "" || /^(\s+#.*)?\s*$/.test(rest));
			found.push({ at: i, length: link[0].length, wholeValue: whole });
			i += link[0].length;
			start = false;
			scan.mapValue = false;
			continue;
		}
		if ((c === '"' || c === "'") && start) {
			scan.quote = c;
			i++;
			start = false;
			continue;
		}
		start = afterChar(c, text[i + 1] ?? "", start, scan);
		i++;
	}
	// A key with nothing after its `:` takes its value from the next lines.
	if (!start) scan.mapValue = false;
	scan.start = start;
	return found;
}

/** Whether a value may begin after the character `c` (an indicator, a bracket or plain text), `scan` updated. */
function afterChar(c: string, next: string, start: boolean, scan: LinkScan): boolean {
	const flow = scan.open !== "";
	if ((c === "[" || c === "{") && (start || flow)) {
		scan.open += c;
		scan.mapValue = false;
		return true;
	}
	if ((c === "]" || c === "}") && flow) {
		scan.open = scan.open.slice(0, -1);
		return false;
	}
	if (c === "," && flow) {
		scan.mapValue = false; // the next key (or list item) begins
		return true;
	}
	if (c === "-" && start && !flow && /^\s?$/.test(next)) {
		scan.mapValue = false; // a block list item
		return true;
	}
	if (c === ":" && (/^\s?$/.test(next) || (flow && /[,[\]{}]/.test(next)))) {
		// A block key's value, or a flow mapping's (in a flow list, `[k: v]` is a pair: left as it was).
		scan.mapValue = !flow || scan.open.endsWith("{");
		return true;
	}
	if (!flow) scan.mapValue = false;
	return false; // inside a plain scalar: a link here is text
}

/** Index just past the closing quote of the string `scan.quote` opened (or the line's end). */
function quoteEnd(text: string, i: number, scan: LinkScan): number {
	while (i < text.length) {
		const c = text[i];
		if (scan.quote === '"' && c === "\\") {
			i += 2;
			continue;
		}
		if (c === scan.quote) {
			// '' inside a single-quoted string is an escaped quote.
			if (c === "'" && text[i + 1] === "'") {
				i += 2;
				continue;
			}
			scan.quote = null;
			return i + 1;
		}
		i++;
	}
	return i;
}
