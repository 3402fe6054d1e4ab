import { describe, expect, it } from "vitest";

import type { EmbedderSuggestion, ModelsSuggestion } from "../../src/api/types";
import { languageMix, languageOffer } from "../../src/models/offer";

const suggestion = (change: Partial<EmbedderSuggestion> = {}): ModelsSuggestion => ({
	languages: { de: 0.7, en: 0.2, fr: 0.1 },
	suggestion: { model: "multilingual-e5-small", about: "", share_not_english: 0.8, download_mb: 487, installed: false, chunks: 2000, estimate_s: 400, ...change },
});

describe("the multilingual model offer", () => {
	it("names the download size and the re-embedding time in its title", () => {
		const offer = languageOffer(suggestion());
		expect(offer?.title).toBe("Download the multilingual model (487 MB, re-embedding takes about 7 min)");
		expect(offer?.text).toContain("Most notes of this vault are not in English (German 70%, English 20%, French 10%)");
		expect(offer?.text).toContain("re-embeds the index's 2,000 chunks once");
		expect(offer?.installed).toBe(false);
	});

	it("offers only the switch once the model is downloaded", () => {
		expect(languageOffer(suggestion({ installed: true }))?.title).toBe("Use the multilingual model (re-embedding takes about 7 min)");
	});

	it("leaves out the re-embedding while nothing is indexed yet", () => {
		const offer = languageOffer(suggestion({ chunks: 0, estimate_s: 0 }));
		expect(offer?.title).toBe("Download the multilingual model (487 MB)");
		expect(offer?.text).not.toContain("re-embeds");
	});

	it("offers nothing to an English vault, or before the sidecar has said", () => {
		expect(languageOffer({ languages: { en: 0.9, es: 0.1 }, suggestion: null })).toBeNull();
		expect(languageOffer(null)).toBeNull();
	});

	it("names languages Intl does not know by their code", () => {
		expect(languageMix({ "x-nope-": 1 })).toBe("x-nope- 100%");
	});
});
