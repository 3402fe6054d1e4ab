import { describe, expect, it } from "vitest";

import type { EmbedderSuggestion, ModelsSuggestion } from "../../src/api/types";
import { languageMix, languageOffer } from "../../src/models/offer";

const suggestion = (change: Partial<EmbedderSuggestion> = {}): ModelsSuggestion => ({
	languages: { de: 0.7, en: 0.2, fr: 0.1 },
	suggestion: { model: "multilingual-e5-small", about: "", packaged: false, share_not_english: 0.8, download_mb: 487, installed: false, chunks: 2000, estimate_s: 400, ...change },
});

/** The packaged multilingual embedder, as the sidecar suggests it: nothing to download. */
const USE = "use-multilingual-v3";
const USE_ABOUT = "Universal Sentence Encoder multilingual v3 (Google; 16 languages, 512 dimensions, 69M parameters, 31 MB packaged): for vaults not in English, no download.";
const packaged = (change: Partial<EmbedderSuggestion> = {}): ModelsSuggestion =>
	suggestion({ model: USE, about: USE_ABOUT, packaged: true, download_mb: null, installed: true, ...change });

describe("the multilingual model offer", () => {
	it("names the download size and the re-embedding time in its title", () => {
		const offer = languageOffer(suggestion());
		expect(offer?.title).toBe("Download the multilingual model (487 MB, re-embedding takes about 7 min)");
		expect(offer?.text).toContain("Most notes of this vault are not in English (German 70%, English 20%, French 10%)");
		expect(offer?.text).toContain("re-embeds the index's 2,000 chunks once");
		expect(offer?.text).toContain("It comes from the Hugging Face hub, checksum-verified");
		expect(offer?.button).toBe("Download and switch");
	});

	it("offers only the switch once the model is downloaded", () => {
		const offer = languageOffer(suggestion({ installed: true }));
		expect(offer?.title).toBe("Use the multilingual model (re-embedding takes about 7 min)");
		expect(offer?.text).toContain("It is downloaded already.");
		expect(offer?.button).toBe("Use it");
	});

	it("describes the model from the suggestion, not from a fixed text", () => {
		const offer = languageOffer(suggestion({ about: "Multilingual E5 small (118M parameters, ~100 languages): for vaults not in English." }));
		expect(offer?.text).toContain("Ora suggests multilingual-e5-small: Multilingual E5 small (118M parameters, ~100 languages): for vaults not in English. Switching");
		expect(languageOffer(suggestion({ about: "A model" }))?.text).toContain("Ora suggests multilingual-e5-small: A model. Switching");
		expect(languageOffer(packaged())?.text).not.toContain("100 languages");
	});

	it("offers the packaged model with no size and no download: it comes with Ora", () => {
		const offer = languageOffer(packaged());
		expect(offer?.model).toBe(USE);
		expect(offer?.title).toBe("Use the multilingual model (re-embedding takes about 7 min)");
		expect(offer?.text).toContain(`Ora suggests ${USE}: ${USE_ABOUT} Switching re-embeds the index's 2,000 chunks once`);
		expect(offer?.text).toMatch(/It comes with Ora: nothing is downloaded\.$/);
		expect(offer?.text).not.toContain("Hugging Face");
		expect(offer?.button).toBe("Use it");
	});

	it("says a packaged model not built yet is built by restarting the sidecar, still with nothing to download", () => {
		const offer = languageOffer(packaged({ installed: false, chunks: 0, estimate_s: 0 }));
		expect(offer?.title).toBe("Use the multilingual model");
		expect(offer?.text).toContain("nothing is downloaded, but it is not built yet: restart the sidecar, which builds it, or run `ora models build`.");
		expect(offer?.button).toBe("Use it");
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
