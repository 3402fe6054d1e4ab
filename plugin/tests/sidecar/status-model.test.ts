import { describe, expect, it } from "vitest";

import type { Status } from "../../src/api/types";
import { StatusModel } from "../../src/sidecar/status-model";

function aStatus(change: Partial<Status> = {}): Status {
	return {
		vault: "/v",
		files: 12,
		chunks: 40,
		queue: 0,
		reconcile: { running: false, phase: null, done: 0, total: 0 },
		model: "minilm-int8",
		reranker: { name: "none", reason: "no model" },
		contradictions_open: 2,
		last_error: null,
		...change,
	};
}

describe("StatusModel", () => {
	it("starts in the starting phase", () => {
		expect(StatusModel.initial().view).toMatchObject({ phase: "starting", text: "Ora: starting", openPairs: 0 });
	});

	it("shows indexing percentage from progress events, then ready", () => {
		let m = StatusModel.initial().onEvent({ type: "progress", phase: "embed", done: 1, total: 3 });
		expect(m.view).toMatchObject({ phase: "indexing", text: "Ora: indexing 33%" });
		m = m.onEvent({ type: "index", files: 3, chunks: 9 });
		expect(m.view.phase).toBe("indexing");
		m = m.onEvent({ type: "progress", phase: "done", done: 3, total: 3 });
		expect(m.view).toMatchObject({ phase: "ready", text: "Ora: ready" });
	});

	it("takes counts, reconcile state and the last error from /v1/status", () => {
		const ready = StatusModel.initial().fromStatus(aStatus({ last_error: "bad yaml in X.md" }));
		expect(ready.view).toMatchObject({ phase: "ready", openPairs: 2 });
		expect(ready.view.detail).toContain("12 files, 40 chunks");
		expect(ready.view.detail).toContain("bad yaml in X.md");
		const busy = StatusModel.initial().fromStatus(aStatus({ reconcile: { running: true, phase: "scan", done: 5, total: 10 } }));
		expect(busy.view.text).toBe("Ora: indexing 50%");
	});

	it("keeps the pair count across phases and shows the error reason", () => {
		const m = StatusModel.initial().onEvent({ type: "contradictions", open: 4 }).failed("ora: command not found");
		expect(m.view).toMatchObject({ phase: "error", openPairs: 4, detail: "ora: command not found" });
	});
});
