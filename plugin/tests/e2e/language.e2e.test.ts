// End-to-end: a Spanish vault as a new user meets it. A real `ora serve` reads the vault's
// languages; the plugin's offer names the multilingual model with its size and re-embedding time;
// its one button pulls the model (from a loopback hub serving a tiny stand-in) with progress, asks
// with the model's own timing, restarts the sidecar with it, and the offer is gone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { languageOffer } from "../../src/models/offer";
import { E2E_TIMEOUT_MS, SKIP_REASON, waitForStatus } from "./harness";
import { ModelsBench } from "./models-harness";

const E5 = "multilingual-e5-small";
const bench = new ModelsBench("intfloat/multilingual-e5-small", "vault-es");

describe.skipIf(SKIP_REASON !== null)(`a Spanish vault: the multilingual model offered, downloaded and used${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(() => bench.start());
	afterAll(() => bench.stop());

	it("offers the multilingual model with its size and re-embedding time, downloads it with progress, and switches", async () => {
		const controller = bench.controller();
		await controller.refresh();
		await controller.refreshOffer();
		const found = controller.state.offer;
		expect(found?.languages).toEqual({ es: 0.8, en: 0.2 });
		const status = await bench.live.client.status();
		expect(found?.suggestion).toMatchObject({ model: E5, download_mb: 487, installed: false, chunks: status.chunks });
		expect(found?.suggestion?.estimate_s).toBeGreaterThan(0);
		const offer = languageOffer(found);
		expect(offer?.title).toMatch(/^Download the multilingual model \(487 MB, re-embedding takes (under a second|about \d+ (s|min))\)$/);
		expect(offer?.text).toContain("(Spanish 80%, English 20%)");

		expect(await controller.downloadAndUse(E5, E5)).toBe(true);
		expect(bench.progress.filter((p) => p.file === "model.onnx").length).toBeGreaterThan(2); // progress while the file came
		expect(bench.asked[0]).toMatch(new RegExp(`^Switching to ${E5} re-embeds every chunk of the index \\(${status.chunks} chunks\\)`));
		expect(controller.state.notice).toBe(`Switched to ${E5}. The index is re-embedding; the status bar shows its progress.`);
		const after = await waitForStatus(bench.live.client, (s) => !s.reconcile.running && s.queue === 0 && s.chunks > 0);
		expect(after.model.startsWith(`${E5}:onnx:`)).toBe(true);
		// The embedder is multilingual now: nothing more is offered.
		expect(controller.state.offer).toEqual({ languages: { es: 0.8, en: 0.2 }, suggestion: null });
	});
});
