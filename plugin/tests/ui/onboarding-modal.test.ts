import { App } from "obsidian";
import { describe, expect, it } from "vitest";

import type { ModelsState } from "../../src/models/controller";
import type { InstallState, SetupListener, SetupOutcome } from "../../src/setup/installer";
import { managedPaths } from "../../src/setup/paths";
import type { StatusView } from "../../src/sidecar/status-model";
import { OnboardingModal, RERANKER, type LlmSettings, type OnboardingHost } from "../../src/ui/onboarding-modal";

const settle = () => new Promise((r) => setTimeout(r, 0));

const catalogue = (installed: boolean, size: number | null) => ({
	models_dir: "/m",
	embedder: { setting: "auto", chosen: "q8", available: ["q8"] },
	catalogue: [{ name: RERANKER, kind: "reranker", repo: "cross-encoder/ms-marco-MiniLM-L-6-v2", about: "MS MARCO cross-encoder.", folder: "reranker", installed, size, active: installed }],
});

/** A host recording what the guide asks of the plugin; installer and models replay scripted runs. */
function host(options: { state?: InstallState; outcome?: SetupOutcome; notes?: string[]; size?: number | null } = {}) {
	const calls: string[] = [];
	let state: InstallState = options.state ?? "absent";
	const statusListeners = new Set<(v: StatusView) => void>();
	const modelListeners = new Set<(s: ModelsState) => void>();
	let models: ModelsState = { report: catalogue(false, options.size ?? null), error: null, pulls: new Map(), switching: null, notice: null };
	const setModels = (next: ModelsState) => {
		models = next;
		for (const l of modelListeners) l(models);
	};
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
		models: {
			get state() {
				return models;
			},
			subscribe: (l) => (modelListeners.add(l), () => modelListeners.delete(l)),
			refresh: async () => void calls.push("refresh models"),
			download: async (name) => {
				calls.push(`download ${name}`);
				setModels({ ...models, pulls: new Map([[name, { phase: "downloading", file: "model.onnx", done: 45, total: 90, finished: [] }]]) });
			},
		},
		sampleNotes: async () => options.notes ?? [],
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
	return { modal, el, calls, button, status };
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

	it("offers the re-ranker with its size, downloads it with progress, and says a multilingual model is not there yet", async () => {
		const french = Array.from({ length: 30 }, () => "Les notes de la réunion sont dans le dossier du projet que nous utilisons.");
		const { el, button, calls, modal } = host({ state: "installed", notes: french, size: 90_868_376 });
		button("Next")!.click();
		button("Next")!.click();
		await settle();
		expect(el.textContent).toContain("3 of 4: Better results");
		expect(el.textContent).toContain("Download from the Hugging Face hub: 90.9 MB.");
		expect(el.textContent).toContain("Ora's model list has no multilingual embedder yet, so this step is skipped");
		button("Download")!.click();
		await settle();
		expect(calls).toContain(`download ${RERANKER}`);
		expect((el.querySelector(".ora-model progress, .setting-item progress") as HTMLProgressElement).value).toBe(0.5);
		modal.close();
	});

	it("says nothing of languages for an English vault", async () => {
		const english = Array.from({ length: 30 }, () => "The notes of the meeting are in the folder that we use for the project.");
		const { el, button, modal } = host({ state: "installed", notes: english });
		button("Next")!.click();
		button("Next")!.click();
		await settle();
		expect(el.querySelector(".ora-onboarding-language")!.textContent).toBe("");
		expect(el.textContent).toContain("its exact size is shown as it downloads");
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
});
