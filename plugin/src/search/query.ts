import type { SearchFilters } from "../api/types";

/** Filters a user can set: chips in the panel, or `type:` / `path:` / `tag:` in the query box. */
export interface FilterChips {
	types: string[];
	folders: string[];
	tags: string[];
}

export const NO_CHIPS: Readonly<FilterChips> = Object.freeze({ types: [], folders: [], tags: [] });

export interface ParsedQuery {
	/** The words to search for, prefixes removed. */
	text: string;
	/** The prefixes found in the box. */
	chips: FilterChips;
}

const PREFIX = /(^|\s)(type|path|tag):("([^"]*)"|(\S*))/gi;

/**
 * Splits the query box into words and filter prefixes: `type:engram`, `path:"Some folder"`,
 * `tag:#project/ora` (the `#` is optional). A prefix with no value is left out, not an error.
 */
export function parseQuery(input: string): ParsedQuery {
	const chips: FilterChips = { types: [], folders: [], tags: [] };
	const text = input.replace(PREFIX, (_match, lead: string, key: string, _v, quoted?: string, bare?: string) => {
		const value = (quoted ?? bare ?? "").trim();
		if (value !== "") {
			const kind = key.toLowerCase();
			if (kind === "type") chips.types.push(value.toLowerCase());
			else if (kind === "path") chips.folders.push(value.replace(/^\/+|\/+$/g, ""));
			else chips.tags.push(value.replace(/^#/, ""));
		}
		return lead;
	});
	return { text: text.replace(/\s+/g, " ").trim(), chips };
}

/** The union of two chip sets, without repeats, in first-seen order. */
export function mergeChips(a: FilterChips, b: FilterChips): FilterChips {
	const union = (x: string[], y: string[]) => [...new Set([...x, ...y])];
	return { types: union(a.types, b.types), folders: union(a.folders, b.folders), tags: union(a.tags, b.tags) };
}

/** The request's `filters`, or undefined when no chip is set. */
export function toFilters(chips: FilterChips): SearchFilters | undefined {
	const filters: SearchFilters = {};
	if (chips.types.length) filters.types = [...chips.types];
	if (chips.folders.length) filters.folders = [...chips.folders];
	if (chips.tags.length) filters.tags = [...chips.tags];
	return Object.keys(filters).length ? filters : undefined;
}

/** Chips as the labels the panel shows, each with how to remove it. */
export function chipLabels(chips: FilterChips): { label: string; without: FilterChips }[] {
	const out: { label: string; without: FilterChips }[] = [];
	for (const key of ["types", "folders", "tags"] as const) {
		for (const value of chips[key]) {
			const prefix = key === "types" ? "type" : key === "folders" ? "path" : "tag";
			out.push({ label: `${prefix}:${value}`, without: { ...chips, [key]: chips[key].filter((v) => v !== value) } });
		}
	}
	return out;
}
