// End-to-end: a Spanish vault as a user meets the offer. Its index is from before, made by `ora
// index` on the packaged English embedder (int8); a real `ora serve` then starts as the plugin starts
// it by default (no embedder named: auto, which keeps the index's embedder, and builds the packaged
// ones it lacks, the multilingual one among them). It reads the vault's languages; the plugin's offer
// names the multilingual model that comes with Ora, with its re-embedding time and no download. Its
// one button asks with the model's own timing and restarts the sidecar with it, pulling nothing; the
// sidecar then embeds with it, and the offer is gone. The bench's hub is a loopback server, behind a
// front that records what it is asked, so a pull, were one tried, could never reach the internet.
// (Not built yet, the offer says how to build it: plugin/tests/models/offer.test.ts, controller.test.ts.)
// First, a phrase typed without its accents finds its note, lifted, its accented words lit up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { languageOffer } from "../../src/models/offer";
import { shapeResults } from "../../src/search/shape";
import { E2E_TIMEOUT_MS, SKIP_REASON, waitForStatus } from "./harness";
import { ModelsBench } from "./models-harness";

const USE = "use-multilingual-v3";
const bench = new ModelsBench("intfloat/multilingual-e5-small", "vault-es", { indexedWith: "int8" });

describe.skipIf(SKIP_REASON !== null)(`a Spanish vault: the packaged multilingual model offered and used${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(() => bench.start());
	afterAll(() => bench.stop());

	it("finds a phrase typed without its accents, lifts its note and highlights its accented words", async () => {
		const doc = await bench.live.client.search({ query: "un signo de exclamacion delante del enlace", k: 5 });
		const { cards } = shapeResults(doc);
		expect(cards[0]?.path).toBe("Notas/Incrustar archivos.md");
		expect(cards[0]?.why).toContain("Holds your words as you wrote them");
		expect(cards.slice(1).some((c) => c.why.includes("Holds your words as you wrote them"))).toBe(false);
		expect(cards[0]?.snippet.some((s) => s.hit && s.text === "exclamación")).toBe(true);
	});

	it("offers the multilingual model that comes with Ora to an index on the English embedder, with its re-embedding time, and switches to it, never pulling", async () => {
		const controller = bench.controller();
		await controller.refresh();
		expect(controller.state.report?.embedder.chosen).toBe("int8"); // auto kept the index's embedder
		await controller.refreshOffer();
		const found = controller.state.offer;
		expect(found?.languages).toEqual({ es: 0.8, en: 0.2 });
		const status = await bench.live.client.status();
		expect(status.model.startsWith("all-MiniLM-L6-v2:int8:")).toBe(true);
		// The sidecar's start built it: it is there to use.
		expect(found?.suggestion).toMatchObject({ model: USE, packaged: true, download_mb: null, installed: true, chunks: status.chunks });
		expect(found?.suggestion?.estimate_s).toBeGreaterThanOrEqual(0); // a few tiny chunks at embed_cost 0.26 round to 0.0 s
		expect(controller.state.report?.catalogue.some((m) => m.name === USE)).toBe(false); // not a catalogue model
		const offer = languageOffer(found);
		expect(offer?.title).toMatch(/^Use the multilingual model \(re-embedding takes (under a second|about \d+ (s|min))\)$/);
		expect(offer?.text).toContain("(Spanish 80%, English 20%)");
		expect(offer?.text).toContain("It comes with Ora: nothing is downloaded.");
		expect(offer?.button).toBe("Use it");

		expect(await controller.downloadAndUse(USE, USE)).toBe(true);
		expect(bench.pulls).toEqual([]); // nothing was pulled
		expect(bench.progress).toEqual([]);
		expect(bench.hubRequests).toEqual([]);
		expect(bench.asked).toHaveLength(1);
		expect(bench.asked[0]).toMatch(new RegExp(`^Switching to ${USE} re-embeds every chunk of the index \\(${status.chunks} chunks\\)`));
		expect(controller.state.notice).toBe(`Switched to ${USE}. The index is re-embedding; the status bar shows its progress.`);
		expect(controller.state.report?.embedder.chosen).toBe(USE);
		const after = await waitForStatus(bench.live.client, (s) => !s.reconcile.running && s.queue === 0 && s.chunks > 0 && s.model.startsWith(`${USE}:onnx:`));
		expect(after.chunks).toBe(status.chunks);
		// The embedder is multilingual now: nothing more is offered.
		expect(controller.state.offer).toEqual({ languages: { es: 0.8, en: 0.2 }, suggestion: null });
	});
});
