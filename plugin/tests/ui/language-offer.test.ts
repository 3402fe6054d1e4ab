// The Models section of the settings offers the multilingual model as onboarding does: on a vault
// mostly not in English, with its size and re-embedding time; on an English one, not at all.
import { describe, expect, it } from "vitest";

import type { ModelsSuggestion } from "../../src/api/types";
import { ModelsController } from "../../src/models/controller";
import { showModels } from "../../src/ui/models-section";
import { aCatalogueModel, aModelsReport } from "../builders";

const settle = () => new Promise((ok) => setTimeout(ok, 0));

async function section(offer: ModelsSuggestion) {
	const pulled: string[] = [];
	const switched: string[] = [];
	const controller = new ModelsController({
		models: async () => aModelsReport([aCatalogueModel({ name: "multilingual-e5-small", download_mb: 487 })]),
		suggestion: async () => offer,
		switchEstimate: async (name) => ({ name, from: "a", to: "b", chunks: 640, estimate_s: 45, reembeds: true }),
		pull: (name) => (pulled.push(name), new Promise(() => undefined)),
		confirm: async () => true,
		switchEmbedder: async (name) => void switched.push(name),
		sleep: async () => undefined,
	});
	const el = document.createElement("div");
	const stop = showModels(el, controller);
	await settle();
	return { el, pulled, switched, stop };
}

describe("the Models section's language offer", () => {
	it("offers a mostly Spanish vault the multilingual model with its size and time, and downloads it", async () => {
		const { el, pulled, stop } = await section({
			languages: { es: 0.8, en: 0.2 },
			suggestion: { model: "multilingual-e5-small", about: "", packaged: false, share_not_english: 0.8, download_mb: 487, installed: false, chunks: 640, estimate_s: 42 },
		});
		const offer = el.querySelector(".ora-language-offer")!;
		expect(offer.querySelector(".setting-item-name")!.textContent).toBe("Download the multilingual model (487 MB, re-embedding takes about 42 s)");
		[...offer.querySelectorAll("button")].find((b) => b.textContent === "Download and switch")!.click();
		await settle();
		expect(pulled).toEqual(["multilingual-e5-small"]);
		expect(el.querySelector(".ora-language-offer progress")).not.toBeNull();
		stop();
	});

	it("offers the packaged multilingual model with Use it, which switches without downloading", async () => {
		const { el, pulled, switched, stop } = await section({
			languages: { es: 0.8, en: 0.2 },
			suggestion: { model: "use-multilingual-v3", about: "Universal Sentence Encoder multilingual v3.", packaged: true, share_not_english: 0.8, download_mb: null, installed: true, chunks: 640, estimate_s: 42 },
		});
		const offer = el.querySelector(".ora-language-offer")!;
		expect(offer.querySelector(".setting-item-name")!.textContent).toBe("Use the multilingual model (re-embedding takes about 42 s)");
		expect(offer.textContent).toContain("It comes with Ora: nothing is downloaded.");
		[...offer.querySelectorAll("button")].find((b) => b.textContent === "Use it")!.click();
		for (let i = 0; i < 3; i++) await settle();
		expect(pulled).toEqual([]);
		expect(switched).toEqual(["use-multilingual-v3"]);
		stop();
	});

	it("offers nothing on an English vault", async () => {
		const { el, stop } = await section({ languages: { en: 1 }, suggestion: null });
		expect(el.querySelector(".ora-language-offer")).toBeNull();
		expect(el.querySelectorAll(".ora-model").length).toBe(1); // the catalogue is listed as before
		stop();
	});
});
