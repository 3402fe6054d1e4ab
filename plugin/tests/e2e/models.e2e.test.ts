// End-to-end: the Models section's logic and client against a real `ora serve` whose hub is a
// loopback server (tests/models/loopback_hub.py) serving a generated tiny model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { ModelsReport } from "../../src/api/types";
import { embedderInUse, embedderLabel, englishEmbedderToUse, multilingualToOffer } from "../../src/models/model";
import { E2E_TIMEOUT_MS, SKIP_REASON, waitForStatus } from "./harness";
import { ModelsBench } from "./models-harness";

const BGE = "bge-small-en-v1.5";
const USE = "use-multilingual-v3";
const bench = new ModelsBench("BAAI/bge-small-en-v1.5");

describe.skipIf(SKIP_REASON !== null)(`models: download and switch${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(() => bench.start());
	afterAll(() => bench.stop());

	it("downloads a model with progress, then says what switching to it costs, and switches", async () => {
		const controller = bench.controller();
		await controller.refresh();
		const before = controller.state.report?.catalogue.find((m) => m.name === BGE);
		expect(before).toMatchObject({ kind: "embedder", installed: false, size: null, active: false });

		await controller.download(BGE);
		expect(controller.state.pulls.get(BGE)).toEqual({ phase: "installed", kind: "embedder" });
		const onnx = bench.progress.filter((p) => p.file === "model.onnx");
		expect(onnx.length).toBeGreaterThan(2); // progress arrived while the file was still coming
		const last = onnx[onnx.length - 1];
		expect(last?.done).toBe(last?.total);
		const after = controller.state.report?.catalogue.find((m) => m.name === BGE);
		expect(after).toMatchObject({ installed: true, active: false });
		expect(after?.size).toBeGreaterThan(last?.total ?? 0);

		const switched = await controller.switchTo(BGE, BGE);
		expect(bench.asked[0]).toMatch(/^Switching to bge-small-en-v1\.5 re-embeds every chunk of the index \(\d+ chunks\), (under a second|about \d+ (s|min))/);
		expect(controller.state.notice).toBe("Switched to bge-small-en-v1.5. The index is re-embedding; the status bar shows its progress.");
		expect(switched).toBe(true);
		expect(controller.state.report?.embedder.chosen).toBe(BGE);
		const status = await waitForStatus(bench.live.client, (s) => !s.reconcile.running && s.queue === 0 && s.chunks > 0);
		expect(status.model.startsWith(`${BGE}:onnx:`)).toBe(true);
	});

	it("once `ora models build` made the multilingual embedder, switches an English vault to it and back to English", async () => {
		const controller = bench.controller();
		const report = (): ModelsReport => {
			if (controller.state.report === null) throw new Error(`no models report: ${controller.state.error}`);
			return controller.state.report;
		};
		await bench.build();
		await controller.refresh();
		await controller.refreshOffer();
		expect(report().embedder.multilingual).toMatchObject({ name: USE, available: true });
		expect(controller.state.offer?.suggestion).toBeNull(); // an English vault: no language offer
		expect(multilingualToOffer(report(), controller.state.offer)).toBe(USE);

		expect(await controller.switchTo(USE, embedderLabel(report(), USE))).toBe(true);
		expect(embedderInUse(report())).toBe(`Embedder in use: the packaged multilingual embedder (${USE}).`);
		const used = await waitForStatus(bench.live.client, (s) => !s.reconcile.running && s.queue === 0 && s.model.startsWith(`${USE}:onnx:`));
		expect(report().embedder.model_id).toBe(used.model);

		const english = englishEmbedderToUse(report());
		expect(english).toBe("q8");
		expect(await controller.switchTo("q8", embedderLabel(report(), "q8"))).toBe(true);
		expect(controller.state.notice).toMatch(/^Switched to the packaged all-MiniLM-L6-v2 \(q8\)\./);
		expect(report().embedder.chosen).toBe("q8");
		const back = await waitForStatus(bench.live.client, (s) => !s.reconcile.running && s.queue === 0 && s.model.startsWith("all-MiniLM-L6-v2:q8:"));
		expect(back.chunks).toBe(used.chunks);
	});
});

