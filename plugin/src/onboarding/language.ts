/**
 * Whether a vault reads as English, from a sample of its notes: onboarding offers a multilingual
 * model only where it does not. The share of the commonest English words among all words is high
 * in English prose (typically above a fifth) and near zero in other languages.
 */
const ENGLISH = new Set("the of and to a in is that it for on with as was are be this by not or at from have an but they you which".split(" "));

/** Words the share is computed over below which the sample says nothing. */
const MIN_WORDS = 200;
const ENGLISH_SHARE = 0.08;

export type VaultLanguage = "english" | "other" | "unknown";

export function vaultLanguage(texts: readonly string[]): VaultLanguage {
	let words = 0;
	let english = 0;
	for (const text of texts) {
		// Letters of any script; frontmatter, code and links count too, which only lowers both numbers.
		for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
			words += 1;
			if (ENGLISH.has(word)) english += 1;
		}
	}
	// Scripts without spaces (Chinese, Japanese) give few, long "words": their letters are counted.
	const letters = texts.reduce((n, t) => n + (t.match(/\p{L}/gu)?.length ?? 0), 0);
	if (words < MIN_WORDS && letters < MIN_WORDS * 4) return "unknown";
	return english / Math.max(words, 1) >= ENGLISH_SHARE ? "english" : "other";
}
