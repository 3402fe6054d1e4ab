// End-to-end: the Models section's logic and client against a real `ora serve` whose hub is a
// loopback server (tests/models/loopback_hub.py) serving a generated tiny model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { E2E_TIMEOUT_MS, SKIP_REASON, waitForStatus } from "./harness";
import { ModelsBench } from "./models-harness";

const BGE = "bge-small-en-v1.5";
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
});

