import { describe, expect, it } from "vitest";

import { SidecarError } from "../../src/api/client";
import type { EmbedderSuggestion, ModelsReport, ModelsSuggestion, PulledModel, PullProgress, SwitchEstimate } from "../../src/api/types";
import { ModelsController, type ModelsDeps } from "../../src/models/controller";
import { aCatalogueModel, aModelsReport } from "../builders";

const E5 = "multilingual-e5-small";
const USE = "use-multilingual-v3";

/** GET /v1/models/suggestion on a Spanish vault: a catalogue model not pulled, unless `change` says otherwise. */
const offerOf = (change: Partial<EmbedderSuggestion>): ModelsSuggestion => ({
	languages: { es: 1 },
	suggestion: { model: E5, about: "", packaged: false, share_not_english: 1, download_mb: 487, installed: false, chunks: 4, estimate_s: 1, ...change },
});

const ESTIMATE: SwitchEstimate = { name: "bge-small-en-v1.5", from: "all-MiniLM-L6-v2:int8:abc", to: "bge-small-en-v1.5:onnx:def", chunks: 12, estimate_s: 3, reembeds: true };

/** A controller over a scripted sidecar: `report` is what GET /v1/models answers next. */
function setup(change: Partial<ModelsDeps> = {}) {
	const calls: string[] = [];
	let report: ModelsReport = aModelsReport();
	const deps: ModelsDeps = {
		models: async () => report,
		suggestion: async () => ({ languages: { en: 1 }, suggestion: null }),
		switchEstimate: async () => ESTIMATE,
		pull: async () => ({ name: "x", folder: "/m/x", restart: true }),
		confirm: async (_t, text) => {
			calls.push(`confirm: ${text}`);
			return true;
		},
		switchEmbedder: async (name) => {
			calls.push(`switch: ${name}`);
			report = aModelsReport([aCatalogueModel({ installed: true, active: true })], name);
		},
		sleep: async () => undefined,
		...change,
	};
	const controller = new ModelsController(deps);
	return { controller, calls, setReport: (r: ModelsReport) => (report = r) };
}

describe("ModelsController", () => {
	it("streams a download's progress to subscribers, then reloads the catalogue", async () => {
		let finish: (m: PulledModel) => void = () => undefined;
		let progress: (p: PullProgress) => void = () => undefined;
		const { controller, setReport } = setup({
			pull: (_name, onProgress) => {
				progress = onProgress;
				return new Promise((ok) => (finish = ok));
			},
		});
		await controller.refresh();
		const seen: string[] = [];
		controller.subscribe((s) => seen.push(s.pulls.get("bge-small-en-v1.5")?.phase ?? "none"));
		const done = controller.download("bge-small-en-v1.5");
		expect(controller.downloading).toBe(true);
		await controller.download("ms-marco-minilm-l6"); // one at a time, as the sidecar allows
		expect(controller.state.pulls.has("ms-marco-minilm-l6")).toBe(false);
		progress({ file: "model.onnx", done: 10, total: 40 });
		expect(controller.state.pulls.get("bge-small-en-v1.5")).toMatchObject({ phase: "downloading", done: 10, total: 40 });
		setReport(aModelsReport([aCatalogueModel({ installed: true, size: 40 })]));
		finish({ name: "bge-small-en-v1.5", folder: "/m/e", restart: true });
		await done;
		expect(controller.state.pulls.get("bge-small-en-v1.5")).toEqual({ phase: "installed", kind: "embedder" });
		expect(controller.state.report?.catalogue[0]?.installed).toBe(true);
		expect(controller.downloading).toBe(false);
		expect(seen.slice(0, 2)).toEqual(["downloading", "downloading"]);
	});

	it("cancels a download through its signal and says it will resume", async () => {
		const { controller } = setup({
			pull: (_name, _onProgress, signal) =>
				new Promise((_ok, fail) => signal.addEventListener("abort", () => fail(new SidecarError(499, "cancelled", "Cancelled.")))),
		});
		const done = controller.download("bge-small-en-v1.5");
		controller.cancel("bge-small-en-v1.5");
		await done;
		expect(controller.state.pulls.get("bge-small-en-v1.5")).toEqual({ phase: "cancelled" });
		const again = controller.download("ms-marco-minilm-l6");
		controller.cancelAll();
		await again;
		expect(controller.state.pulls.get("ms-marco-minilm-l6")).toEqual({ phase: "cancelled" });
	});

	it("downloads again right after a cancel while the sidecar still lets go of the cancelled pull", async () => {
		const busy = () => new SidecarError(409, "conflict", "another pull of bge-small-en-v1.5 is running");
		let refusals = 2;
		let pulls = 0;
		const waited: number[] = [];
		const { controller } = setup({
			pull: (_name, _onProgress, signal) => {
				if (pulls++ === 0) return new Promise((_ok, fail) => signal.addEventListener("abort", () => fail(new SidecarError(499, "cancelled", "Cancelled."))));
				if (refusals-- > 0) return Promise.reject(busy());
				return Promise.resolve({ name: "bge-small-en-v1.5", folder: "/m/e", restart: true });
			},
			sleep: async (ms) => void waited.push(ms),
		});
		const first = controller.download("bge-small-en-v1.5");
		controller.cancel("bge-small-en-v1.5");
		await first;
		await controller.download("bge-small-en-v1.5");
		expect(controller.state.pulls.get("bge-small-en-v1.5")).toMatchObject({ phase: "installed" });
		expect(waited).toHaveLength(2);
		expect(waited.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2000);
	});

	it("still says another download is running when the sidecar keeps refusing, or when nothing was cancelled", async () => {
		let pulls = 0;
		const waited: number[] = [];
		const { controller } = setup({
			pull: (_name, _onProgress, signal) =>
				pulls++ === 0
					? new Promise((_ok, fail) => signal.addEventListener("abort", () => fail(new SidecarError(499, "cancelled", "Cancelled."))))
					: Promise.reject(new SidecarError(409, "conflict", "busy")),
			sleep: async (ms) => void waited.push(ms),
		});
		const first = controller.download("bge-small-en-v1.5");
		controller.cancel("bge-small-en-v1.5");
		await first;
		await controller.download("bge-small-en-v1.5");
		const state = controller.state.pulls.get("bge-small-en-v1.5");
		expect(state?.phase === "failed" && state.message).toMatch(/^Another download is running/);
		expect(waited.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2000);
		const tries = pulls;
		await controller.download("bge-small-en-v1.5"); // no cancel before this one: shown at once
		expect(pulls).toBe(tries + 1);
	});

	it("turns a failed download into the message for its cause", async () => {
		const { controller } = setup({ pull: async () => Promise.reject(new SidecarError(500, "checksum_mismatch", "differs")) });
		await controller.download("bge-small-en-v1.5");
		const state = controller.state.pulls.get("bge-small-en-v1.5");
		expect(state?.phase === "failed" && state.message).toMatch(/checksum/);
	});

	it("says what a switch costs, switches only when confirmed, and checks the sidecar took it", async () => {
		const declined = setup({ confirm: async () => false });
		expect(await declined.controller.switchTo("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(false);
		expect(declined.calls).toEqual([]);

		const { controller, calls } = setup();
		expect(await controller.switchTo("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(true);
		expect(calls[0]).toMatch(/^confirm: Switching to bge-small-en-v1\.5 re-embeds every chunk of the index \(12 chunks\), about 3 s/);
		expect(calls[1]).toBe("switch: bge-small-en-v1.5");
		expect(controller.state.notice).toMatch(/^Switched to bge-small-en-v1\.5\. The index is re-embedding/);
		expect(controller.state.switching).toBeNull();
	});

	it("does not switch while a download runs (the restart would stop it) or while a switch is asked", async () => {
		let finish: (m: PulledModel) => void = () => undefined;
		const { controller, calls } = setup({ pull: () => new Promise((ok) => (finish = ok)) });
		const download = controller.download("nli-deberta-v3-xsmall");
		expect(await controller.switchTo("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(false);
		expect(calls).toEqual([]);
		expect(controller.state.notice).toMatch(/^A model is downloading/);
		finish({ name: "nli-deberta-v3-xsmall", folder: "/m/nli", restart: true });
		await download;

		let answer: (ok: boolean) => void = () => undefined;
		const asked = setup({ confirm: () => new Promise((ok) => (answer = ok)) });
		const first = asked.controller.switchTo("bge-small-en-v1.5", "bge-small-en-v1.5");
		expect(await asked.controller.switchTo("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(false); // a double click
		await new Promise((ok) => setTimeout(ok, 0));
		answer(true);
		expect(await first).toBe(true);
		expect(asked.calls).toEqual(["switch: bge-small-en-v1.5"]);
	});

	it("says so when the restarted sidecar still uses the old embedder", async () => {
		const { controller } = setup({ switchEmbedder: async () => undefined });
		expect(await controller.switchTo("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(false);
		expect(controller.state.notice).toContain("ORA_EMBED_MODEL=bge-small-en-v1.5");
		// An old sidecar still finishing a write outlives the wait too: the notice says to retry.
		expect(controller.state.notice).toContain("try again in a minute");
	});

	it("shows why the catalogue cannot be loaded", async () => {
		const { controller } = setup({ models: async () => Promise.reject(new SidecarError(0, "unreachable", "refused")) });
		await controller.refresh();
		expect(controller.state.error).toMatch(/^The sidecar is not running/);
		expect(controller.state.report).toBeNull();
	});

	it("downloads the offered model and then switches to it; a failed download switches nothing", async () => {
		const { controller, calls, setReport } = setup({
			pull: async (name) => {
				calls.push(`pull: ${name}`);
				setReport(aModelsReport([aCatalogueModel({ installed: true })]));
				return { name, folder: "/m/e", restart: true };
			},
		});
		await controller.refresh();
		expect(await controller.downloadAndUse("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(true);
		expect(calls.map((c) => c.split(" ").slice(0, 2).join(" "))).toEqual(["pull: bge-small-en-v1.5", "confirm: Switching", "switch: bge-small-en-v1.5"]);

		const failing = setup({ pull: async () => Promise.reject(new SidecarError(0, "hub_unreachable", "offline")) });
		await failing.controller.refresh();
		expect(await failing.controller.downloadAndUse("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(false);
		expect(failing.calls).toEqual([]);
		const pull = failing.controller.state.pulls.get("bge-small-en-v1.5");
		expect(pull?.phase === "failed" && pull.message).toMatch(/^Cannot reach the model hub/);
	});

	it("switches to an offered model that is downloaded already without pulling it again", async () => {
		let pulled = false;
		const { controller, calls, setReport } = setup({ pull: async () => ((pulled = true), { name: "x", folder: "/m/x", restart: true }) });
		setReport(aModelsReport([aCatalogueModel({ installed: true })]));
		await controller.refresh();
		expect(await controller.downloadAndUse("bge-small-en-v1.5", "bge-small-en-v1.5")).toBe(true);
		expect(pulled).toBe(false);
		expect(calls[1]).toBe("switch: bge-small-en-v1.5");
	});

	it("switches to an offered packaged model without pulling it: it is not in the catalogue", async () => {
		const pulled: string[] = [];
		const { controller, calls } = setup({
			suggestion: async () => offerOf({ model: USE, packaged: true, download_mb: null, installed: true }),
			pull: async (name) => (pulled.push(name), { name, folder: "/m/x", restart: true }),
		});
		await controller.refresh();
		await controller.refreshOffer();
		expect(await controller.downloadAndUse(USE, USE)).toBe(true);
		expect(pulled).toEqual([]);
		expect(calls.map((c) => c.split(" ").slice(0, 2).join(" "))).toEqual(["confirm: Switching", `switch: ${USE}`]);
		expect(controller.state.notice).toBe(`Switched to ${USE}. The index is re-embedding; the status bar shows its progress.`);
	});

	it("asks for the language offer again after any switch: back on English, a Spanish vault is offered the multilingual model again", async () => {
		let embedder = USE;
		const { controller } = setup({
			suggestion: async () => (embedder === USE ? { languages: { es: 1 }, suggestion: null } : offerOf({ model: USE, packaged: true, download_mb: null, installed: true })),
			switchEmbedder: async (name) => void (embedder = name),
			models: async () => aModelsReport(undefined, embedder),
		});
		await controller.refresh();
		await controller.refreshOffer();
		expect(controller.state.offer?.suggestion).toBeNull();
		expect(await controller.switchTo("q8", "the packaged all-MiniLM-L6-v2 (q8)")).toBe(true);
		expect(controller.state.offer?.suggestion?.model).toBe(USE);
	});

	it("never pulls an offered packaged model that is not built, and says how to build it", async () => {
		const pulled: string[] = [];
		const { controller, calls } = setup({
			suggestion: async () => offerOf({ model: USE, packaged: true, download_mb: null, installed: false }),
			pull: async (name) => (pulled.push(name), { name, folder: "/m/x", restart: true }),
		});
		await controller.refresh();
		await controller.refreshOffer();
		expect(await controller.downloadAndUse(USE, USE)).toBe(false);
		expect(pulled).toEqual([]);
		expect(calls).toEqual([]); // nothing asked, nothing switched
		expect(controller.state.pulls.has(USE)).toBe(false);
		expect(controller.state.notice).toBe(`${USE} comes with Ora but is not built yet: restart the sidecar, which builds it, or run \`ora models build\`.`);
	});

	it("downloads an offered catalogue model that is not pulled, then switches to it", async () => {
		const { controller, calls, setReport } = setup({
			suggestion: async () => offerOf({ model: E5 }),
			pull: async (name) => {
				calls.push(`pull: ${name}`);
				setReport(aModelsReport([aCatalogueModel({ name: E5, installed: true })]));
				return { name, folder: "/m/e", restart: true };
			},
		});
		setReport(aModelsReport([aCatalogueModel({ name: E5, installed: false })]));
		await controller.refresh();
		await controller.refreshOffer();
		expect(await controller.downloadAndUse(E5, E5)).toBe(true);
		expect(calls.map((c) => c.split(" ").slice(0, 2).join(" "))).toEqual([`pull: ${E5}`, "confirm: Switching", `switch: ${E5}`]);
	});

	it("does not pull again an offered catalogue model the offer says is pulled", async () => {
		const pulled: string[] = [];
		const { controller, calls } = setup({
			suggestion: async () => offerOf({ model: E5, installed: true }),
			pull: async (name) => (pulled.push(name), { name, folder: "/m/x", restart: true }),
		});
		await controller.refreshOffer(); // no catalogue loaded: the offer alone says it is there
		expect(await controller.downloadAndUse(E5, E5)).toBe(true);
		expect(pulled).toEqual([]);
		expect(calls[1]).toBe(`switch: ${E5}`);
	});

	it("keeps the sidecar's language offer, and none when the sidecar cannot say", async () => {
		const offer = offerOf({ model: E5 });
		const { controller } = setup({ suggestion: async () => offer });
		await controller.refreshOffer();
		expect(controller.state.offer).toEqual(offer);
		const down = setup({ suggestion: async () => Promise.reject(new SidecarError(0, "unreachable", "refused")) });
		await down.controller.refreshOffer();
		expect(down.controller.state.offer).toBeNull();
	});
});
