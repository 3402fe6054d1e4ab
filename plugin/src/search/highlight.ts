import languages from "../../../schema/languages.json";
import { composed, fold, foldWord } from "./accents";

/** A run of snippet text; `hit` runs match a query term and are drawn highlighted. */
export interface Segment {
	text: string;
	hit: boolean;
}

/** Words of fewer letters are too common to be worth highlighting on their own (a Han character is a word). */
const MIN_TERM_LENGTH = 2;

/** Scripts written without spaces between words (Chinese, Japanese) or with particles attached (Korean). */
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";

/**
 * The other scripts written without spaces between words (Thai, Lao, Khmer, Myanmar), as character
 * ranges: the sidecar's BM25 pairs their runs' characters as it does CJK's, from the same data
 * (schema/languages.json `scripts` not `spaced`, sidecar/language/languages.py `segment`).
 */
const UNSPACED = Object.values(languages.scripts)
	.filter((script): script is { ranges: string[]; spaced: boolean } => typeof script === "object" && "spaced" in script && !script.spaced)
	.flatMap((script) => script.ranges)
	.map((range) => range.split("-").map((hex) => `\\u{${hex}}`).join("-"))
	.join("");

/** Characters of a script whose runs are no words: a term of theirs matches anywhere. */
const RUN_SCRIPT = `${CJK}${UNSPACED}`;
const IS_RUN = new RegExp(`^[${RUN_SCRIPT}]`, "u");
/** Joiners (ZWNJ, ZWJ) sit inside a word (Persian می‌خواهم); typed or not, the sidecar drops them. */
const JOINERS = "\\u200C\\u200D";
/**
 * A word's letters, digits, combining marks (a Hindi virama, a Thai tone mark) and joiners: a word
 * cut at its marks became one-letter pieces that lit up everywhere, or nothing.
 */
const IN_WORD = `\\p{L}\\p{N}\\p{M}${JOINERS}`;
/**
 * A run of one CJK script (Japanese changes script between words: 酵母|の|発酵), a run of Thai, Lao,
 * Khmer or Myanmar (its marks within, its punctuation not), or a word of any other script.
 */
const WORD = new RegExp(
	[
		"\\p{Script=Han}+",
		"[\\p{Script=Hiragana}ー]+",
		"[\\p{Script=Katakana}ー]+",
		"\\p{Script=Hangul}+",
		`(?:(?=[\\p{L}\\p{N}])[${UNSPACED}])(?:(?=[${IN_WORD}])[${UNSPACED}${JOINERS}])*`,
		`(?:(?![${RUN_SCRIPT}])[\\p{L}\\p{N}])(?:(?![${RUN_SCRIPT}])[${IN_WORD}])*`,
	].join("|"),
	"gu",
);
const LETTER = /[\p{L}\p{N}]/gu;
const JOINER = new RegExp(`[${JOINERS}]`, "gu");

/**
 * The query's distinct words, composed and lower-cased, longest first so overlapping matches prefer
 * the longer (a half-width ﾌﾟ is one katakana letter, not a letter and a stray mark).
 */
export function queryTerms(query: string): string[] {
	const words = (composed(query).toLowerCase().match(WORD) ?? []).map((word) => word.replace(JOINER, ""));
	const kept = words.filter((w) => (w.match(LETTER)?.length ?? 0) >= MIN_TERM_LENGTH || /^\p{Script=Han}$/u.test(w));
	return [...new Set(kept)].sort((a, b) => b.length - a.length);
}

/** A term's place in a text: where its match starts and ends. */
interface Hit {
	start: number;
	end: number;
}

/**
 * Every match of `terms` in `text`. A term matches at a word start, so "rep" lights up "repetition"
 * but not "prepare" — close to what BM25's tokens matched; a combining mark or joiner is inside a
 * word, no start. A term of a script without spaces between words matches anywhere (there is no
 * word boundary to find). A joiner may stand between any two of a term's letters, and a match takes
 * the marks that follow it, so it never ends between a letter and its mark. Terms and text are
 * compared without their Latin and Greek accents, as BM25 compares them (`accents.ts`).
 */
function* hits(original: string, terms: string[]): Generator<Hit, undefined> {
	const { text, at } = fold(original);
	const pattern = (term: string) => `${Array.from(foldWord(term), escapeRegExp).join(`[${JOINERS}]?`)}\\p{M}*`;
	const spaced = terms.filter((t) => !IS_RUN.test(t)).map(pattern);
	const unspaced = terms.filter((t) => IS_RUN.test(t)).map(pattern);
	// The leading group stands in for a lookbehind (unsupported on older iOS WebKit).
	const parts = [spaced.length ? `(^|[^${IN_WORD}])(${spaced.join("|")})` : "", unspaced.length ? `(${unspaced.join("|")})` : ""];
	for (const match of text.matchAll(new RegExp(parts.filter(Boolean).join("|"), "giu"))) {
		const word = (spaced.length ? match[2] : undefined) ?? match[spaced.length ? 3 : 1] ?? "";
		const start = match.index + (spaced.length ? (match[1] ?? "").length : 0);
		yield { start: at[start] ?? original.length, end: at[start + word.length] ?? original.length };
	}
}

/** Splits `text` into plain and matching runs (`hits`). */
export function highlight(text: string, terms: string[]): Segment[] {
	if (terms.length === 0 || text === "") return text === "" ? [] : [{ text, hit: false }];
	const out: Segment[] = [];
	let last = 0;
	for (const { start, end } of hits(text, terms)) {
		if (start > last) out.push({ text: text.slice(last, start), hit: false });
		out.push({ text: text.slice(start, end), hit: true });
		last = end;
	}
	if (last < text.length) out.push({ text: text.slice(last), hit: false });
	return out;
}

/**
 * A window of about `width` characters around the first match, with an ellipsis on each side that
 * was cut. Whitespace runs collapse so the snippet reads as one line. A cut moves to a space nearby
 * that keeps the match whole; a text with no such space (Thai, Khmer: no spaces between words) is
 * cut between two graphemes, never between a letter and its marks.
 */
export function snippet(text: string, terms: string[], width = 240): string {
	const flat = text.replace(/\s+/g, " ").trim();
	if (flat.length <= width) return flat;
	const first = terms.length ? hits(flat, terms).next().value : undefined;
	const hit = first ?? { start: 0, end: 0 };
	const reach = Math.floor(width / 4);
	let start = Math.max(0, hit.start - Math.floor(width / 3));
	let end = Math.min(flat.length, start + width);
	start = Math.max(0, end - width);
	if (start > 0) start = cutAfter(flat, start, Math.min(hit.start, start + reach));
	if (end < flat.length) end = cutBefore(flat, end, Math.max(hit.end, start, end - reach));
	return `${start > 0 ? "…" : ""}${flat.slice(start, end)}${end < flat.length ? "…" : ""}`;
}

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** `index` if a grapheme starts there, else the start of the next grapheme (`after`) or of its own. */
function graphemeBoundary(text: string, index: number, after: boolean): number {
	const grapheme = GRAPHEMES.segment(text).containing(index);
	if (grapheme === undefined || grapheme.index === index) return index;
	return after ? grapheme.index + grapheme.segment.length : grapheme.index;
}

/** After the first space from `index` up to `limit`, else the first grapheme start from `index`. */
function cutAfter(text: string, index: number, limit: number): number {
	const space = text.indexOf(" ", index);
	return space >= 0 && space < limit ? space + 1 : graphemeBoundary(text, index, true);
}

/** At the last space from `index` down to past `floor`, else the last grapheme start up to `index`. */
function cutBefore(text: string, index: number, floor: number): number {
	const space = text.lastIndexOf(" ", index);
	return space > floor ? space : graphemeBoundary(text, index, false);
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
