import han from "../../../schema/han_variants.json";
import languages from "../../../schema/languages.json";

/**
 * Latin and Greek letters read without their accents, as the sidecar reads them (BM25 folds
 * accents; a phrase is compared without them: sidecar/language/accents.py, schema/languages.json
 * `fold`), so "como" lights up "Cómo"; Arabic and Hebrew words without their vowel points, and
 * the Arabic-script letters typed for one another as one (`scripts` `marks` and `same`), so "غذاي"
 * lights up "غذای"; a Traditional Chinese character as its Simplified form (`han_variants.json`),
 * so "发现" lights up "發現"; text saved decomposed or in half-width forms composed first (`composed`).
 * Other scripts keep their marks: a Thai or Hindi vowel sign is no accent.
 */

/** The Combining Diacritical Marks block: the accents of Latin, Greek and Cyrillic letters. */
const ACCENT = /[\u0300-\u036f]/gu;
/** A range of code points written in hex: "0600-06FF", or one, "0670". */
function codePoints(range: string): [number, number] {
	const [first = "0", last = first] = range.split("-");
	return [parseInt(first, 16), parseInt(last, 16)];
}

const RANGES = languages.fold.ranges.map(codePoints);
const SCRIPTS = Object.values(languages.scripts).flatMap((entry) =>
	typeof entry === "object" ? [entry as { marks?: string[]; same?: Record<string, string> }] : [],
);
const LETTERS: Record<string, string> = {
	...languages.fold.letters,
	...Object.fromEntries(SCRIPTS.flatMap((s) => Object.entries(s.same ?? {}))),
	...(han.traditional as Record<string, string>),
};
/** The scripts' marks read as if not written (vowel points, the tatweel). */
const MARKS = SCRIPTS.flatMap((s) => s.marks ?? []).map(codePoints);

function within(ranges: [number, number][], code: number): boolean {
	return ranges.some(([first, last]) => code >= first && code <= last);
}

function foldable(code: number): boolean {
	return within(RANGES, code);
}

/** One character without its accents: empty for an accent itself. */
function foldChar(char: string): string {
	const code = char.codePointAt(0) ?? 0;
	if ((code >= 0x300 && code <= 0x36f) || within(MARKS, code)) return "";
	const letter = LETTERS[char.toLowerCase()];
	if (letter !== undefined) return letter;
	if (!foldable(code)) return char;
	const base = char.normalize("NFD").replace(ACCENT, "");
	return base.length === 1 ? base : char;
}

/** A text without its accents, and where each of its characters stands in the text. */
export interface Folded {
	text: string;
	/** `at[i]`: the index in the original of the folded text's character `i`; one more entry, its length. */
	at: number[];
}

/** Half-width and full-width forms (ｱ, Ａ), read at their usual width as the sidecar reads them. */
const WIDTH_FORMS = /[\uff00-\uffef]/u;
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * `text` composed as the sidecar composes it before cutting words (sidecar/language/letters.py
 * `composed`): NFC, and width forms by NFKC, so a name macOS saved decomposed (ペ as ヘ and a
 * sound mark, a Korean syllable as its jamo) or a half-width ｱﾌﾟﾘ reads as the word typed.
 */
export function composed(text: string): string {
	return WIDTH_FORMS.test(text) ? text.normalize("NFC").normalize("NFKC") : text.normalize("NFC");
}

/** Each unit to fold, with where it starts: characters, or graphemes composed if `text` is not. */
function* units(text: string): Generator<[string, number], undefined> {
	if (text.normalize("NFC") === text && !WIDTH_FORMS.test(text)) {
		for (let i = 0; i < text.length; ) {
			const char = String.fromCodePoint(text.codePointAt(i) ?? 0);
			yield [char, i];
			i += char.length;
		}
		return;
	}
	// A grapheme holds a letter and its marks (ヘ + ゚, Hangul jamo, ﾌ + ﾟ): composed whole, and a
	// match never ends inside it.
	for (const { segment, index } of GRAPHEMES.segment(text)) {
		for (const char of composed(segment)) yield [char, index];
	}
}

export function fold(text: string): Folded {
	let out = "";
	const at: number[] = [];
	for (const [char, i] of units(text)) {
		const plain = foldChar(char);
		for (let j = 0; j < plain.length; j++) at.push(i);
		out += plain;
	}
	at.push(text.length);
	return { text: out, at };
}

/** A word without its accents. */
export function foldWord(word: string): string {
	return /[^ -~]/.test(word) ? fold(word).text : word;
}
