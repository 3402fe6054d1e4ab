import { App } from "obsidian";
import { describe, expect, it } from "vitest";

import type { ModelsReport, ModelsSuggestion, PulledModel, PullProgress } from "../../src/api/types";
import { ModelsController } from "../../src/models/controller";
import type { InstallState, SetupListener, SetupOutcome } from "../../src/setup/installer";
import { managedPaths } from "../../src/setup/paths";
import type { StatusView } from "../../src/sidecar/status-model";
import { OnboardingModal, RERANKER, type LlmSettings, type OnboardingHost } from "../../src/ui/onboarding-modal";
import { aCatalogueModel, aPackagedMultilingual } from "../builders";
import { shownNotices } from "../__mocks__/obsidian";

const settle = () => new Promise((r) => setTimeout(r, 0));

const E5 = "multilingual-e5-small";
const USE = "use-multilingual-v3";

/** GET /v1/models; `chosen`: the embedder the sidecar was switched to, if any. */
const catalogue = (installed: boolean, size: number | null, chosen: string | null = null): ModelsReport => ({
	models_dir: "/m",
	embedder: { setting: chosen ?? "auto", chosen: chosen ?? "q8", available: ["q8"], multilingual: aPackagedMultilingual(chosen === USE) },
	catalogue: [
		aCatalogueModel({ name: RERANKER, kind: "reranker", repo: "cross-encoder/ms-marco-MiniLM-L-6-v2", about: "MS MARCO cross-encoder.", folder: "reranker", installed, size, download_mb: 91, active: installed }),
		aCatalogueModel({ name: E5, repo: "intfloat/multilingual-e5-small", about: "Multilingual E5 small.", installed: chosen === E5, active: chosen === E5, download_mb: 487 }),
	],
});

/** GET /v1/models/suggestion on a Spanish vault of 1,923 chunks, and on an English one. */
const SPANISH: ModelsSuggestion = {
	languages: { es: 0.94, en: 0.06 },
	suggestion: { model: E5, about: "", packaged: false, share_not_english: 0.94, download_mb: 487, installed: false, chunks: 1923, estimate_s: 128 },
};
/** The same vault offered the multilingual model that comes with Ora (built, or not yet). */
const packaged = (installed: boolean): ModelsSuggestion => ({
	languages: SPANISH.languages,
	suggestion: { model: USE, about: "Universal Sentence Encoder multilingual v3 (16 languages).", packaged: true, share_not_english: 0.94, download_mb: null, installed, chunks: 1923, estimate_s: 40 },
});
const ENGLISH: ModelsSuggestion = { languages: { en: 1 }, suggestion: null };

/** The switch to `model` was confirmed with the model's own timing, made, and said. */
function expectSwitched(calls: string[], el: HTMLElement, model: string): void {
	expect(calls).toEqual([
		`confirm: Switching to ${model} re-embeds every chunk of the index (1,923 chunks), about 2 min on this computer. The sidecar restarts to switch; until the re-embedding finishes, search finds only the notes done so far.`,
		`switch ${model}`,
	]);
	expect(el.querySelector(".ora-language-offer")).toBeNull();
	expect(el.textContent).toContain(`Switched to ${model}. The index is re-embedding; the status bar shows its progress.`);
}

/**
 * A host recording what the guide asks of the plugin. The installer replays a scripted run; the
 * models are the plugin's own controller over a scripted sidecar, whose pull runs until `finishPull`.
 */
function host(options: { state?: InstallState; outcome?: SetupOutcome; offer?: ModelsSuggestion; size?: number | null } = {}) {
	const calls: string[] = [];
	let state: InstallState = options.state ?? "absent";
	const statusListeners = new Set<(v: StatusView) => void>();
	let switched: string | null = null;
	let progress: (p: PullProgress) => void = () => undefined;
	let finishPull: () => void = () => undefined;
	const models = new ModelsController({
		models: async () => catalogue(false, options.size ?? null, switched),
		// Once switched, the embedder is multilingual: the sidecar offers nothing more.
		suggestion: async () => (calls.push("suggestion"), switched !== null ? ENGLISH : (options.offer ?? ENGLISH)),
		switchEstimate: async (name) => ({ name, from: "all-MiniLM-L6-v2:q8:abc", to: `${name}:onnx:def`, chunks: 1923, estimate_s: 140, reembeds: true }),
		pull: (name, onProgress) => {
			calls.push(`download ${name}`);
			progress = onProgress;
			return new Promise<PulledModel>((ok) => (finishPull = () => ok({ name, folder: `/m/${name}`, restart: true })));
		},
		confirm: async (_title, text) => (calls.push(`confirm: ${text}`), true),
		switchEmbedder: async (name) => {
			calls.push(`switch ${name}`);
			switched = name;
		},
		sleep: async () => undefined,
	});
	let llm: LlmSettings = { url: "", model: "", key: "" };
	const h: OnboardingHost = {
		installer: {
			paths: managedPaths("/home/u/.local/share/ora-vault", "linux"),
			running: false,
			state: () => state,
			install: async (_source, listener?: SetupListener) => {
				calls.push("install");
				listener?.({ kind: "step", index: 1, total: 5, title: "Fetching uv 0.13.9" });
				listener?.({ kind: "line", line: "sha256 checked" });
				const outcome = options.outcome ?? { ok: true, version: "0.1.0" };
				if (outcome.ok) state = "installed";
				return outcome;
			},
			repair: async () => ({ ok: true, version: "0.1.0" }),
			upgrade: async () => ({ ok: true, version: "0.1.0" }),
			remove: async () => ({ ok: true, version: "" }),
			cancel: () => void calls.push("cancel"),
		},
		stopSidecar: async () => void calls.push("stop"),
		installed: async () => void calls.push("installed"),
		watchStatus: (listener) => {
			statusListeners.add(listener);
			listener({ phase: "starting", text: "Ora: starting", detail: "Starting the sidecar…", openPairs: 0, action: "log" });
			return () => statusListeners.delete(listener);
		},
		models,
		llm: () => llm,
		saveLlm: async (next) => {
			calls.push(`save llm ${next.url} ${next.model}`);
			llm = next;
		},
		checkLlm: async (l) => (calls.push(`check ${l.url}`), { ok: false, message: "No answer from http://127.0.0.1:9/v1: ECONNREFUSED" }),
		finished: async () => void calls.push("finished"),
	};
	const modal = new OnboardingModal(new App(), h);
	modal.open();
	const el = modal.contentEl;
	const button = (label: string) => [...el.querySelectorAll("button")].find((b) => b.textContent === label);
	const status = (view: Partial<StatusView>) => {
		for (const l of statusListeners) l({ phase: "ready", text: "Ora: ready", detail: "", openPairs: 0, action: "details", ...view });
	};
	return { modal, el, calls, button, status, progress: (p: PullProgress) => progress(p), finishPull: () => finishPull() };
}

describe("OnboardingModal", () => {
	it("installs from the first page with steps and log, starts the sidecar and moves on to the index", async () => {
		const { el, button, calls, modal, status } = host();
		expect(el.textContent).toContain("1 of 4: Set up the sidecar");
		expect(el.textContent).toContain("no Python is needed on this computer");
		button("Install")!.click();
		await settle();
		await settle();
		expect(calls).toEqual(["stop", "install", "installed"]);
		expect(el.textContent).toContain("2 of 4: Index the vault");
		status({ phase: "indexing", text: "Ora: indexing", detail: "Embedding 120 of 400 notes." });
		expect(el.querySelector(".ora-onboarding-status")!.textContent).toBe("indexing: Embedding 120 of 400 notes.");
		expect(el.querySelector("progress")!.classList.contains("ora-hidden")).toBe(false);
		status({ phase: "ready", detail: "400 files, 1,210 chunks indexed." });
		expect(el.querySelector(".ora-onboarding-status")!.textContent).toBe("Indexed. 400 files, 1,210 chunks indexed.");
		expect(el.querySelector("progress")!.classList.contains("ora-hidden")).toBe(true);
		modal.close();
		expect(calls).toContain("finished");
	});

	it("shows a failed set-up's message and offers to try again", async () => {
		const { el, button, calls, modal } = host({ state: "partial", outcome: { ok: false, message: "uv python install failed (exit 1)" } });
		expect(el.textContent).toContain("An earlier set-up did not finish");
		button("Install")!.click();
		await settle();
		expect(el.querySelector(".ora-setup-result")!.textContent).toBe("uv python install failed (exit 1)");
		expect(button("Try again")).toBeDefined();
		expect(calls).not.toContain("installed");
		expect(el.textContent).toContain("1 of 4");
		modal.close();
	});

	/** The guide on its third page, "Better results", once the sidecar has answered. */
	async function onModelsPage(options: Parameters<typeof host>[0]) {
		const guide = host({ state: "installed", ...options });
		guide.button("Next")!.click();
		guide.button("Next")!.click();
		await settle();
		expect(guide.el.textContent).toContain("3 of 4: Better results");
		return guide;
	}

	it("offers the re-ranker with its download size and downloads it with progress", async () => {
		const { el, button, calls, modal, progress } = await onModelsPage({ offer: SPANISH });
		expect(el.textContent).toContain("Download from the Hugging Face hub: about 91.0 MB, its exact size is shown as it downloads.");
		button("Download")!.click();
		await settle();
		expect(calls.filter((c) => c !== "suggestion")).toEqual([`download ${RERANKER}`]);
		expect(button("Download and switch")!.disabled).toBe(true); // one download at a time
		progress({ file: "model.onnx", done: 45, total: 90 });
		expect((el.querySelector(".setting-item progress") as HTMLProgressElement).value).toBe(0.5);
		modal.close();
	});

	it("offers no multilingual model on an English vault", async () => {
		const { el, modal } = await onModelsPage({ offer: ENGLISH });
		expect(el.querySelector(".ora-onboarding-language")!.textContent).toBe("");
		expect(el.querySelector(".ora-language-offer")).toBeNull();
		expect(el.textContent).not.toContain("multilingual");
		modal.close();
	});

	it("reads the vault's languages again once the first index is done", async () => {
		const { calls, modal, status } = await onModelsPage({ offer: SPANISH });
		expect(calls).toEqual(["suggestion"]);
		status({ phase: "indexing", text: "Ora: indexing", detail: "Embedding 12 of 40 notes." });
		status({ phase: "ready" });
		status({ phase: "ready" }); // a later status while ready asks nothing more
		await settle();
		expect(calls).toEqual(["suggestion", "suggestion"]);
		modal.close();
		status({ phase: "indexing" });
		status({ phase: "ready" });
		expect(calls).toEqual(["suggestion", "suggestion", "finished"]); // the page closed with the guide
	});

	it("offers a Spanish vault the multilingual model with its size and re-embedding time, downloads it with progress, then switches once confirmed", async () => {
		const { el, button, calls, modal, progress, finishPull } = await onModelsPage({ offer: SPANISH });
		const offer = el.querySelector(".ora-language-offer")!;
		expect(offer.querySelector(".setting-item-name")!.textContent).toBe("Download the multilingual model (487 MB, re-embedding takes about 2 min)");
		expect(offer.textContent).toContain("Most notes of this vault are not in English (Spanish 94%, English 6%)");
		expect(offer.textContent).toContain("re-embeds the index's 1,923 chunks once");
		button("Download and switch")!.click();
		await settle();
		expect(calls.filter((c) => c !== "suggestion")).toEqual([`download ${E5}`]);
		progress({ file: "model.onnx", done: 235_500_000, total: 471_000_000 });
		const bar = el.querySelector(".ora-language-offer progress") as HTMLProgressElement;
		expect(bar.value).toBe(0.5);
		expect(el.querySelector(".ora-language-offer")!.textContent).toContain("Downloading model.onnx: 236 MB of 471 MB (50%)");
		expect(button("Download")!.disabled).toBe(true); // one download at a time
		finishPull();
		for (let i = 0; i < 5; i++) await settle();
		// The switch says the model's own timing (switch-estimate) before restarting the sidecar.
		expectSwitched(calls.filter((c) => c !== "suggestion").slice(1), el, E5);
		modal.close();
	});

	it("offers a Spanish vault the packaged multilingual model with no download, and switches to it without pulling", async () => {
		const { el, button, calls, modal } = await onModelsPage({ offer: packaged(true) });
		const offer = el.querySelector(".ora-language-offer")!;
		expect(offer.querySelector(".setting-item-name")!.textContent).toBe("Use the multilingual model (re-embedding takes about 40 s)");
		expect(offer.textContent).toContain(`Ora suggests ${USE}: Universal Sentence Encoder multilingual v3 (16 languages).`);
		expect(offer.textContent).toContain("It comes with Ora: nothing is downloaded.");
		expect(button("Download and switch")).toBeUndefined();
		button("Use it")!.click();
		for (let i = 0; i < 5; i++) await settle();
		expectSwitched(calls.filter((c) => c !== "suggestion"), el, USE);
		modal.close();
	});

	it("says how to build the packaged multilingual model when it is not built, and pulls nothing", async () => {
		const { el, button, calls, modal } = await onModelsPage({ offer: packaged(false) });
		expect(el.querySelector(".ora-language-offer")!.textContent).toContain("it is not built yet: restart the sidecar, which builds it, or run `ora models build`.");
		button("Use it")!.click();
		for (let i = 0; i < 5; i++) await settle();
		expect(calls.filter((c) => c !== "suggestion")).toEqual([]);
		expect(el.querySelector(".ora-language-offer progress")).toBeNull();
		expect(el.textContent).toContain(`${USE} comes with Ora but is not built yet: restart the sidecar, which builds it, or run \`ora models build\`.`);
		modal.close();
	});

	it("tests the language model endpoint typed in and saves it when the guide closes", async () => {
		const { el, button, calls } = host({ state: "installed" });
		for (let i = 0; i < 3; i++) button("Next")!.click();
		expect(el.textContent).toContain("4 of 4: Ask with a language model");
		const [url, model] = [...el.querySelectorAll('input[type="text"]')] as HTMLInputElement[];
		url!.value = "http://127.0.0.1:9/v1";
		url!.dispatchEvent(new Event("input"));
		model!.value = "llama3.2";
		model!.dispatchEvent(new Event("input"));
		button("Test connection")!.click();
		await settle();
		const result = el.querySelector(".ora-onboarding-check")!;
		expect(result.textContent).toContain("ECONNREFUSED");
		expect(result.classList.contains("ora-error")).toBe(true);
		button("Finish")!.click();
		expect(calls.slice(-3)).toEqual(["check http://127.0.0.1:9/v1", "save llm http://127.0.0.1:9/v1 llama3.2", "finished"]);
	});

	it("says so when the language model settings, or that the guide was shown, could not be saved, rather than losing them silently", async () => {
		const { modal, el, button } = host({ state: "installed" });
		const refused = async () => {
			throw new Error("EACCES: permission denied, open 'data.json'");
		};
		Object.assign(modal["host"], { saveLlm: refused, finished: refused });
		for (let i = 0; i < 3; i++) button("Next")!.click();
		const url = el.querySelector('input[type="text"]') as HTMLInputElement;
		url.value = "http://127.0.0.1:9/v1";
		url.dispatchEvent(new Event("input"));
		button("Finish")!.click();
		await settle();
		expect(shownNotices.slice(-2)).toEqual([
			"Could not save the language model settings: EACCES: permission denied, open 'data.json'",
			"Could not save that the guide was shown (it may open again): EACCES: permission denied, open 'data.json'",
		]);
	});
});
