import type { SearchFilters } from "../api/types";

/** Filters a user can set: chips in the panel, or prefixes in the query box (`PREFIXES`). */
export interface FilterChips {
	types: string[];
	folders: string[];
	tags: string[];
	/** Topic clusters, as a result's "why" names them (the sidecar compares them in any case). */
	clusters: string[];
	/** Conversation ids of chat notes (the note's `conversation` property). */
	conversations: string[];
}

export type ChipKind = keyof FilterChips;

/** Each chip kind's prefix in the query box, and how a typed value is written down. */
const PREFIXES: readonly { kind: ChipKind; prefix: string; clean: (value: string) => string }[] = [
	{ kind: "types", prefix: "type", clean: (v) => v.toLowerCase() },
	{ kind: "folders", prefix: "path", clean: (v) => v.replace(/^\/+|\/+$/g, "") },
	{ kind: "tags", prefix: "tag", clean: (v) => v.replace(/^#/, "") },
	{ kind: "clusters", prefix: "cluster", clean: (v) => v },
	{ kind: "conversations", prefix: "conversation", clean: (v) => v },
];
const KINDS = PREFIXES.map((p) => p.kind);

export const NO_CHIPS: Readonly<FilterChips> = Object.freeze({ types: [], folders: [], tags: [], clusters: [], conversations: [] });

export interface ParsedQuery {
	/** The words to search for, prefixes removed. */
	text: string;
	/** The prefixes found in the box. */
	chips: FilterChips;
}

/**
 * Quotes a value may be put in, opening and closing: ASCII, and those a Chinese or Japanese input
 * method types (full-width, curly, corner brackets).
 */
const QUOTES: readonly (readonly [string, string])[] = [
	['"', '"'],
	["\uFF02", "\uFF02"], // ＂…＂
	["\u201C", "\u201D"], // “…”
	["\u300C", "\u300D"], // 「…」
	["\u300E", "\u300F"], // 『…』
];
const QUOTED = QUOTES.map(([open, close]) => `${open}[^${close}]*${close}`).join("|");

// A value runs to the next space unless quoted: `cluster:auto:sleep` keeps its colon. The colon
// after the prefix may be an input method's full-width one (`tag：日記`).
const PREFIX = new RegExp(`(^|\\s)(${PREFIXES.map((p) => p.prefix).join("|")})[:\uFF1A](${QUOTED}|\\S*)`, "gi");

/** A value without the quotes around it, if it is quoted. */
function unquoted(value: string): string {
	for (const [open, close] of QUOTES) {
		if (value.length >= 2 && value.startsWith(open) && value.endsWith(close)) return value.slice(open.length, -close.length);
	}
	return value;
}

/** Fresh empty chips (each list its own array). */
function noChips(): FilterChips {
	return { types: [], folders: [], tags: [], clusters: [], conversations: [] };
}

/**
 * Splits the query box into words and filter prefixes: `type:engram`, `path:"Some folder"`,
 * `tag:#project/ora` (the `#` is optional), `cluster:auto:sleep`, `conversation:cli:2026-12-01`;
 * as an input method types them too: `tag：日記`, `path：“日記 2024”`, `path:「日記」`.
 * A prefix with no value is left out, not an error.
 */
export function parseQuery(input: string): ParsedQuery {
	const chips = noChips();
	const text = input.replace(PREFIX, (_match, lead: string, key: string, raw: string) => {
		const value = unquoted(raw).trim();
		const spec = PREFIXES.find((p) => p.prefix === key.toLowerCase());
		if (value !== "" && spec) chips[spec.kind].push(spec.clean(value));
		return lead;
	});
	return { text: text.replace(/\s+/g, " ").trim(), chips };
}

/** The union of two chip sets, without repeats, in first-seen order. */
export function mergeChips(a: FilterChips, b: FilterChips): FilterChips {
	const out = noChips();
	for (const kind of KINDS) out[kind] = [...new Set([...a[kind], ...b[kind]])];
	return out;
}

/** The request's `filters`, or undefined when no chip is set. */
export function toFilters(chips: FilterChips): SearchFilters | undefined {
	const filters: SearchFilters = {};
	for (const kind of KINDS) if (chips[kind].length) filters[kind] = [...chips[kind]];
	return Object.keys(filters).length ? filters : undefined;
}

/** A chip as the panel shows it: its label, its kind and value, and the chips left without it. */
export interface ChipLabel {
	label: string;
	kind: ChipKind;
	value: string;
	without: FilterChips;
}

/** Chips as the labels the panel shows, each with how to remove it. */
export function chipLabels(chips: FilterChips): ChipLabel[] {
	const out: ChipLabel[] = [];
	for (const { kind, prefix } of PREFIXES) {
		for (const value of chips[kind]) {
			out.push({ label: `${prefix}:${value}`, kind, value, without: { ...chips, [kind]: chips[kind].filter((v) => v !== value) } });
		}
	}
	return out;
}

/** The query box without the prefixes typed for one chip (`kind`, `value` as `parseQuery` gives it). */
export function withoutTyped(input: string, kind: ChipKind, value: string): string {
	return input
		.replace(PREFIX, (match: string, _lead: string, key: string, raw: string) => {
			const spec = PREFIXES.find((p) => p.prefix === key.toLowerCase());
			// The space before it goes; the one after stays between the words either side.
			return spec?.kind === kind && spec.clean(unquoted(raw).trim()) === value ? "" : match;
		})
		.trim();
}
