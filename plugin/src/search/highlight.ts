/** A run of snippet text; `hit` runs match a query term and are drawn highlighted. */
export interface Segment {
	text: string;
	hit: boolean;
}

/** Words shorter than this are too common to be worth highlighting on their own (a Han character is a word). */
const MIN_TERM_LENGTH = 2;

/** Scripts written without spaces between words (Chinese, Japanese) or with particles attached (Korean). */
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";
const IS_CJK = new RegExp(`[${CJK}]`, "u");
/** A run of one CJK script (Japanese changes script between words: 酵母|の|発酵), or a word of any other. */
const WORD = new RegExp(`\\p{Script=Han}+|[\\p{Script=Hiragana}ー]+|[\\p{Script=Katakana}ー]+|\\p{Script=Hangul}+|(?:(?![${CJK}])[\\p{L}\\p{N}])+`, "gu");

/** The query's distinct words, lower-cased, longest first so overlapping matches prefer the longer. */
export function queryTerms(query: string): string[] {
	const words = query.toLowerCase().match(WORD) ?? [];
	const kept = words.filter((w) => w.length >= MIN_TERM_LENGTH || /^\p{Script=Han}$/u.test(w));
	return [...new Set(kept)].sort((a, b) => b.length - a.length);
}

/**
 * Splits `text` into plain and matching runs. A term matches at a word start, so "rep" lights up
 * "repetition" but not "prepare" — close to what BM25's tokens matched. A CJK term matches
 * anywhere: those scripts put no space (no word boundary) between words.
 */
export function highlight(text: string, terms: string[]): Segment[] {
	if (terms.length === 0 || text === "") return text === "" ? [] : [{ text, hit: false }];
	const spaced = terms.filter((t) => !IS_CJK.test(t)).map(escapeRegExp);
	const unspaced = terms.filter((t) => IS_CJK.test(t)).map(escapeRegExp);
	// The leading group stands in for a lookbehind (unsupported on older iOS WebKit).
	const parts = [spaced.length ? `(^|[^\\p{L}\\p{N}])(${spaced.join("|")})` : "", unspaced.length ? `(${unspaced.join("|")})` : ""];
	const pattern = new RegExp(parts.filter(Boolean).join("|"), "giu");
	const out: Segment[] = [];
	let last = 0;
	for (const match of text.matchAll(pattern)) {
		const word = (spaced.length ? match[2] : undefined) ?? match[spaced.length ? 3 : 1] ?? "";
		const start = match.index + (spaced.length ? (match[1] ?? "").length : 0);
		if (start > last) out.push({ text: text.slice(last, start), hit: false });
		out.push({ text: word, hit: true });
		last = start + word.length;
	}
	if (last < text.length) out.push({ text: text.slice(last), hit: false });
	return out;
}

/**
 * A window of about `width` characters around the first match, cut at word boundaries, with an
 * ellipsis on each side that was cut. Whitespace runs collapse so the snippet reads as one line.
 */
export function snippet(text: string, terms: string[], width = 240): string {
	const flat = text.replace(/\s+/g, " ").trim();
	if (flat.length <= width) return flat;
	const lower = flat.toLowerCase();
	const first = terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0);
	const hit = first.length ? Math.min(...first) : 0;
	let start = Math.max(0, hit - Math.floor(width / 3));
	let end = Math.min(flat.length, start + width);
	start = Math.max(0, end - width);
	if (start > 0) start = wordStartAfter(flat, start);
	if (end < flat.length) end = wordEndBefore(flat, end, start);
	return `${start > 0 ? "…" : ""}${flat.slice(start, end)}${end < flat.length ? "…" : ""}`;
}

function wordStartAfter(text: string, index: number): number {
	const space = text.indexOf(" ", index);
	return space < 0 ? index : space + 1;
}

function wordEndBefore(text: string, index: number, floor: number): number {
	const space = text.lastIndexOf(" ", index);
	return space <= floor ? index : space;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
