// End-to-end: a Spanish vault as a new user meets it. A real `ora serve` (on the packaged English
// embedder, int8, so its start builds nothing) reads the vault's languages; the plugin's offer names
// the multilingual model that comes with Ora, with its re-embedding time and no download. Not built
// yet, its one button says how to build it and pulls nothing; once `ora models build` made it, the
// button asks with the model's own timing, restarts the sidecar with it, and the offer is gone. The
// bench's hub is a loopback server, so a pull, were one tried, could never reach the internet.
// First, a phrase typed without its accents finds its note, lifted, its accented words lit up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { languageOffer } from "../../src/models/offer";
import { shapeResults } from "../../src/search/shape";
import { E2E_TIMEOUT_MS, SKIP_REASON, waitForStatus } from "./harness";
import { ModelsBench } from "./models-harness";

const USE = "use-multilingual-v3";
const bench = new ModelsBench("intfloat/multilingual-e5-small", "vault-es");

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

	it("offers the multilingual model that comes with Ora with its re-embedding time, asks for its build, and switches once built, never pulling", async () => {
		const controller = bench.controller();
		await controller.refresh();
		await controller.refreshOffer();
		const found = controller.state.offer;
		expect(found?.languages).toEqual({ es: 0.8, en: 0.2 });
		const status = await bench.live.client.status();
		expect(found?.suggestion).toMatchObject({ model: USE, packaged: true, download_mb: null, installed: false, chunks: status.chunks });
		expect(found?.suggestion?.estimate_s).toBeGreaterThanOrEqual(0); // a few tiny chunks at embed_cost 0.26 round to 0.0 s
		expect(controller.state.report?.catalogue.some((m) => m.name === USE)).toBe(false); // not a catalogue model
		const offer = languageOffer(found);
		expect(offer?.title).toMatch(/^Use the multilingual model \(re-embedding takes (under a second|about \d+ (s|min))\)$/);
		expect(offer?.text).toContain("(Spanish 80%, English 20%)");
		expect(offer?.text).toContain("not built yet");

		// Not built: the button says how to build it, and neither pulls nor switches.
		expect(await controller.downloadAndUse(USE, USE)).toBe(false);
		expect(controller.state.notice).toBe(`${USE} comes with Ora but is not built yet: restart the sidecar, which builds it, or run \`ora models build\`.`);
		expect(bench.asked).toEqual([]);

		await bench.build();
		await controller.refreshOffer();
		expect(controller.state.offer?.suggestion).toMatchObject({ model: USE, packaged: true, installed: true });
		expect(languageOffer(controller.state.offer)?.text).toContain("It comes with Ora: nothing is downloaded.");

		expect(await controller.downloadAndUse(USE, USE)).toBe(true);
		expect(bench.progress).toEqual([]); // nothing was pulled
		expect(bench.asked[0]).toMatch(new RegExp(`^Switching to ${USE} re-embeds every chunk of the index \\(${status.chunks} chunks\\)`));
		expect(controller.state.notice).toBe(`Switched to ${USE}. The index is re-embedding; the status bar shows its progress.`);
		const after = await waitForStatus(bench.live.client, (s) => !s.reconcile.running && s.queue === 0 && s.chunks > 0);
		expect(after.model.startsWith(`${USE}:onnx:`)).toBe(true);
		// The embedder is multilingual now: nothing more is offered.
		expect(controller.state.offer).toEqual({ languages: { es: 0.8, en: 0.2 }, suggestion: null });
	});
});
