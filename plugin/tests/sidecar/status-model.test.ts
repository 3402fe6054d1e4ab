import { describe, expect, it } from "vitest";

import type { Status } from "../../src/api/types";
import { StatusModel } from "../../src/sidecar/status-model";

function aStatus(change: Partial<Status> = {}): Status {
	return {
		vault: "/v",
		files: 12,
		chunks: 40,
		queue: 0,
		indexing: false,
		reconcile: { running: false, phase: null, done: 0, total: 0 },
		model: "minilm-int8",
		reranker: { name: "none", reason: "no model" },
		contradictions_open: 2,
		last_error: null,
		pid: 7,
		cleaning: { running: false, phase: "done", done: 0, total: 0, scans: 1, last_finished: null, fallbacks: 0 },
		...change,
	};
}

describe("StatusModel", () => {
	it("starts in the starting phase, its click showing the log", () => {
		expect(StatusModel.initial().view).toMatchObject({ phase: "starting", text: "Ora: starting", openPairs: 0, action: "log" });
	});

	it("says connected until the sidecar tells its state, then ready", () => {
		const m = StatusModel.initial().connected();
		expect(m.view).toMatchObject({ phase: "connected", text: "Ora: connected" });
		expect(m.fromStatus(aStatus()).view).toMatchObject({ phase: "ready", text: "Ora: ready", action: "triage" });
		expect(m.fromStatus(aStatus({ contradictions_open: 0 })).view.action).toBe("details");
	});

	it("shows indexing percentage from progress events, then ready", () => {
		let m = StatusModel.initial().connected().onEvent({ type: "progress", phase: "scan", done: 1, total: 3 });
		expect(m.view).toMatchObject({ phase: "indexing", text: "Ora: indexing 33%" });
		m = m.onEvent({ type: "index", files: 3, chunks: 9 });
		expect(m.view.phase).toBe("indexing");
		m = m.onEvent({ type: "progress", phase: "done", done: 3, total: 3 });
		expect(m.view).toMatchObject({ phase: "ready", text: "Ora: ready" });
		expect(m.view.detail).toContain("3 files, 9 chunks indexed");
	});

	it("says search is by words while the embedding pass builds meaning-based search", () => {
		let m = StatusModel.initial().connected().onEvent({ type: "progress", phase: "scan", done: 4000, total: 4000 });
		expect(m.view.text).toBe("Ora: indexing 100%");
		m = m.onEvent({ type: "progress", phase: "embed", done: 420, total: 1000 });
		expect(m.view).toMatchObject({ phase: "indexing", text: "Ora: searching by words; meaning-based search 42 % ready" });
		expect(m.view.detail).toContain("Every note is findable by its words; meaning-based search 42 % ready: 420 of 1000 chunks embedded.");
		const polled = StatusModel.initial().connected().fromStatus(aStatus({ reconcile: { running: true, phase: "embed", done: 5, total: 10 } }));
		expect(polled.view.text).toBe("Ora: searching by words; meaning-based search 50 % ready");
		m = m.onEvent({ type: "progress", phase: "done", done: 1000, total: 1000 });
		expect(m.view).toMatchObject({ phase: "ready", text: "Ora: ready" });
	});

	it("shows scanning while the background contradiction scan runs", () => {
		const cleaning = { phase: "judge", scans: 0, last_finished: null, fallbacks: 0 };
		let m = StatusModel.initial().connected().fromStatus(aStatus());
		m = m.onEvent({ type: "cleaning", running: true, done: 2, total: 8, ...cleaning });
		expect(m.view).toMatchObject({ phase: "scanning", text: "Ora: scanning" });
		expect(m.view.detail).toContain("2 of 8 claim pairs judged");
		m = m.onEvent({ type: "contradictions", open: 5 }).onEvent({ type: "cleaning", running: false, done: 8, total: 8, ...cleaning });
		expect(m.view).toMatchObject({ phase: "ready", openPairs: 5 });
	});

	it("takes counts, reconcile state and the last error from /v1/status", () => {
		const ready = StatusModel.initial().connected().fromStatus(aStatus({ last_error: "bad yaml in X.md" }));
		expect(ready.view).toMatchObject({ phase: "ready", openPairs: 2 });
		expect(ready.view.detail).toContain("12 files, 40 chunks");
		expect(ready.view.detail).toContain("bad yaml in X.md");
		const busy = StatusModel.initial().connected().fromStatus(aStatus({ reconcile: { running: true, phase: "scan", done: 5, total: 10 } }));
		expect(busy.view.text).toBe("Ora: indexing 50%");
	});

	it("goes reconnecting, stopped or error, each with its click action", () => {
		const up = StatusModel.initial().connected().fromStatus(aStatus());
		expect(up.reconnecting().view).toMatchObject({ phase: "reconnecting", text: "Ora: reconnecting", action: "log", openPairs: 2 });
		expect(up.stopped("Gave up.").view).toMatchObject({ phase: "stopped", action: "restart" });
		expect(up.stopped("Gave up.").view.detail).toBe("Gave up.\nClick to restart the sidecar.");
		expect(up.failed("ora serve stopped (exit 2)").view).toMatchObject({ phase: "error", action: "restart" });
		expect(up.failed("other", "other-vault").view.action).toBe("settings");
	});

	it("points a missing command to the setting that fixes it", () => {
		const m = StatusModel.initial().failed("Cannot start ora: spawn ora ENOENT", "missing-command");
		expect(m.view).toMatchObject({ phase: "error", action: "settings" });
		expect(m.view.detail).toContain('Set "Ora command" in Ora\'s settings');
	});

	it("says not responding for a sidecar that runs but does not answer, a click restarting it, and ready once it answers", () => {
		const hung = StatusModel.initial().connected().fromStatus(aStatus()).notResponding();
		expect(hung.view).toMatchObject({ phase: "not-responding", text: "Ora: not responding", action: "restart", openPairs: 2 });
		expect(hung.view.detail).toContain("running but does not answer");
		expect(hung.view.detail).toContain("Click to restart the sidecar.");
		expect(hung.connected().fromStatus(aStatus()).view.phase).toBe("ready");
	});

	it("lists the documents the sidecar could not read in the details", () => {
		const unreadable = Array.from({ length: 7 }, (_, n) => ({ path: `scan ${n}.pdf`, message: "not indexed: Image-only: no text layer" }));
		const view = StatusModel.initial().connected().fromStatus(aStatus({ unreadable_documents: unreadable })).view;
		expect(view.detail).toContain("Unreadable documents (7):\n- scan 0.pdf: not indexed: Image-only: no text layer");
		expect(view.detail).toContain("… and 2 more");
		expect(StatusModel.initial().connected().fromStatus(aStatus()).view.detail).not.toContain("Unreadable");
	});
});
