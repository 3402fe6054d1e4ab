import { App, type Plugin } from "obsidian";
import { describe, expect, it } from "vitest";

import type { ModelsReport, ModelsSuggestion, PullProgress } from "../../src/api/types";
import { ModelsController } from "../../src/models/controller";
import { DEFAULT_SETTINGS, mergeSettings } from "../../src/settings";
import { OraSettingTab, type SettingsHost } from "../../src/ui/settings-tab";
import { aCatalogueModel, aModelsReport, aPackagedMultilingual } from "../builders";
import { shownNotices } from "../__mocks__/obsidian";

function tab() {
	const saved: string[] = [];
	let reindexed = 0;
	const host: SettingsHost = {
		settings: mergeSettings(null),
		saveSettings: async () => void saved.push(JSON.stringify(host.settings)),
		token: () => "s3cret",
		tokenPath: () => "/v/.ora/token",
		reindex: async () => void reindexed++,
		restartSidecar: async () => undefined,
	};
	const t = new OraSettingTab(new App(), {} as Plugin, host);
	t.display();
	return { t, host, saved, reindexed: () => reindexed };
}

describe("OraSettingTab", () => {
	it("has a row for every setting, and the same rows as setting definitions", () => {
		const { t } = tab();
		const names = [...t.containerEl.querySelectorAll(".setting-item:not(.setting-item-heading) .setting-item-name")].map((n) => n.textContent);
		expect(names.length).toBeGreaterThanOrEqual(Object.keys(DEFAULT_SETTINGS).length - 2); // conversations and the embedder have their own UI
		const defined = t.getSettingDefinitions().flatMap((d) => ("items" in d ? (d.items ?? []) : [d]).map((i) => ("name" in i ? i.name : "")));
		expect(defined).toEqual(names);
	});

	it("groups the settings under headings, with the internals folded under Advanced", () => {
		const { t } = tab();
		const headings = [...t.containerEl.querySelectorAll(".setting-item-heading .setting-item-name")].map((n) => n.textContent);
		expect(headings).toEqual(["Sidecar", "Search", "Ask", "Lint", "Models", "Network"]);
		const advanced = t.containerEl.querySelector("details.ora-settings-advanced") as HTMLDetailsElement;
		expect(advanced.open).toBe(false);
		expect(advanced.querySelector("summary")?.textContent).toBe("Advanced");
		expect([...advanced.querySelectorAll(".setting-item-name")].map((n) => n.textContent)).toEqual(["Port", "Data folder", "Event batching delay", "Access token"]);
		const definitions = t.getSettingDefinitions();
		expect(definitions.map((d) => ("heading" in d ? d.heading : "name" in d ? d.name : ""))).toEqual([...headings, "Advanced"]);
		expect(definitions.at(-1)).toMatchObject({ type: "page", name: "Advanced" });
	});

	it("names every network service the plugin or its sidecar may contact, and when", () => {
		const { t } = tab();
		const text = t.containerEl.textContent ?? "";
		for (const service of ["127.0.0.1", "Python package index", "GitHub", "python-build-standalone", "Hugging Face model hub", "language model endpoint", "Cohere", "SearXNG", "embeddings server"]) {
			expect(text).toContain(service);
		}
	});

	it("restarts the sidecar once language model settings stop changing, applying them at once", async () => {
		const { t, host } = tab();
		let restarts = 0;
		host.restartSidecar = async () => void restarts++;
		host.restartDelayMs = 20;
		const rows = [...t.containerEl.querySelectorAll(".setting-item")];
		const input = (name: string) => rows.find((r) => r.querySelector(".setting-item-name")?.textContent === name)!.querySelector("input") as HTMLInputElement;
		for (const typed of ["http://127.0.0.1:11434", "http://127.0.0.1:11434/v1"]) {
			input("Language model URL").value = typed;
			input("Language model URL").dispatchEvent(new Event("input"));
		}
		input("Language model name").value = "llama3.2";
		input("Language model name").dispatchEvent(new Event("input"));
		await new Promise((ok) => setTimeout(ok, 60));
		expect(host.settings.llmUrl).toBe("http://127.0.0.1:11434/v1");
		expect(restarts).toBe(1);
		input("Search delay").value = "300";
		input("Search delay").dispatchEvent(new Event("input"));
		await new Promise((ok) => setTimeout(ok, 60));
		expect(restarts).toBe(1); // a plugin-side setting needs no restart
	});

	it("shows Private text may go to under Ask, saving the hosts and restarting the sidecar with them", async () => {
		const { t, host } = tab();
		let restarts = 0;
		host.restartSidecar = async () => void restarts++;
		host.restartDelayMs = 20;
		const ask = [...t.containerEl.children].findIndex((el) => el.textContent === "Ask");
		const rows = [...t.containerEl.children].slice(ask + 1).map((el) => el.querySelector(".setting-item-name")?.textContent);
		expect(rows.slice(0, 4)).toEqual(["Language model URL", "Language model name", "Language model key", "Private text may go to"]);
		const defined = t.getSettingDefinitions().find((d) => "heading" in d && d.heading === "Ask");
		expect(defined && "items" in defined ? defined.items?.map((i) => ("name" in i ? i.name : "")) : []).toContain("Private text may go to");
		const row = [...t.containerEl.querySelectorAll(".setting-item")].find((r) => r.querySelector(".setting-item-name")?.textContent === "Private text may go to")!;
		const input = row.querySelector("input") as HTMLInputElement;
		input.value = " gpu-box.lan ";
		input.dispatchEvent(new Event("input"));
		await new Promise((ok) => setTimeout(ok, 60));
		expect(host.settings.trustedHosts).toBe("gpu-box.lan");
		expect(restarts).toBe(1);
	});

	it("says the Ora command and the data folder take effect after a restart of the sidecar, a new data folder with a full re-index", () => {
		const { t } = tab();
		const desc = (name: string) =>
			[...t.containerEl.querySelectorAll(".setting-item")].find((r) => r.querySelector(".setting-item-name")?.textContent === name)?.querySelector(".setting-item-description")?.textContent;
		expect(desc("Ora command")).toContain("Takes effect after a restart of the sidecar.");
		expect(desc("Data folder")).toContain("Takes effect after a restart of the sidecar; a new data folder starts without an index, so the whole vault is indexed again.");
	});

	it("says so in a notice when a setting could not be saved, leaving no unhandled rejection", async () => {
		const { t, host } = tab();
		host.saveSettings = async () => {
			throw new Error("EACCES: permission denied, open 'data.json'");
		};
		const rejected: unknown[] = [];
		const onRejection = (reason: unknown) => void rejected.push(reason);
		process.on("unhandledRejection", onRejection);
		try {
			const row = [...t.containerEl.querySelectorAll(".setting-item")].find((r) => r.querySelector(".setting-item-name")?.textContent === "Data folder")!;
			const input = row.querySelector("input") as HTMLInputElement;
			input.value = "/elsewhere";
			input.dispatchEvent(new Event("input"));
			await new Promise((ok) => setTimeout(ok, 20));
		} finally {
			process.off("unhandledRejection", onRejection);
		}
		expect(host.settings.dataFolder).toBe("/elsewhere");
		expect(shownNotices.at(-1)).toBe("Could not save the setting: EACCES: permission denied, open 'data.json'");
		expect(rejected).toEqual([]);
	});

	it("says once, not on every keystroke, that a setting could not be saved, and again after a save succeeded", async () => {
		const { t, host } = tab();
		let refuse = true;
		host.saveSettings = async () => {
			if (refuse) throw new Error("EACCES: permission denied, open 'data.json'");
		};
		const row = [...t.containerEl.querySelectorAll(".setting-item")].find((r) => r.querySelector(".setting-item-name")?.textContent === "Data folder")!;
		const input = row.querySelector("input") as HTMLInputElement;
		const typeIn = async (text: string) => {
			input.value = text;
			input.dispatchEvent(new Event("input"));
			await new Promise((ok) => setTimeout(ok, 0));
		};
		const before = shownNotices.length;
		for (const prefix of ["/", "/e", "/el", "/els", "/else"]) await typeIn(prefix);
		expect(shownNotices.slice(before)).toEqual(["Could not save the setting: EACCES: permission denied, open 'data.json'"]);
		refuse = false;
		await typeIn("/elsew");
		refuse = true;
		await typeIn("/elsewh");
		expect(shownNotices.length - before).toBe(2);
	});

	it("masks the token and saves a changed port only when it is valid", () => {
		const { t, host, saved } = tab();
		const rows = [...t.containerEl.querySelectorAll(".setting-item")];
		const row = (name: string) => rows.find((r) => r.querySelector(".setting-item-name")?.textContent === name)!;
		const token = row("Access token").querySelector("input") as HTMLInputElement;
		expect(token.type).toBe("password");
		expect(token.value).toBe("s3cret");
		const port = row("Port").querySelector("input") as HTMLInputElement;
		port.value = "99999";
		port.dispatchEvent(new Event("input"));
		expect(saved).toEqual([]);
		port.value = "48000";
		port.dispatchEvent(new Event("input"));
		expect(host.settings.port).toBe(48000);
		expect(saved).toHaveLength(1);
	});

	it("lints the open editors again when Lint in the editor is switched, so marks go (or come) at once", async () => {
		const { t, host } = tab();
		let relinted = 0;
		host.relint = () => void relinted++;
		const rows = [...t.containerEl.querySelectorAll(".setting-item")];
		const row = rows.find((r) => r.querySelector(".setting-item-name")?.textContent === "Lint in the editor")!;
		(row.querySelector(".checkbox-container") as HTMLElement).click();
		await new Promise((ok) => setTimeout(ok, 0));
		expect(host.settings.lintInEditor).toBe(false);
		expect(relinted).toBe(1);
	});

	it("gives editors a linter with the new Lint delay when it changes", () => {
		const { t, host } = tab();
		const delays: number[] = [];
		host.lintDelayChanged = () => void delays.push(host.settings.lintDelayMs);
		const rows = [...t.containerEl.querySelectorAll(".setting-item")];
		const input = rows.find((r) => r.querySelector(".setting-item-name")?.textContent === "Lint delay")!.querySelector("input") as HTMLInputElement;
		input.value = "2000";
		input.dispatchEvent(new Event("input"));
		expect(delays).toEqual([2000]);
	});

	it("re-indexes from its button", () => {
		const { t, reindexed } = tab();
		const button = [...t.containerEl.querySelectorAll("button")].find((b) => b.textContent === "Re-index now")!;
		button.click();
		expect(reindexed()).toBe(1);
	});
});

describe("OraSettingTab: Models", () => {
	/**
	 * A tab whose Models section runs over a scripted sidecar; `progress`/`finish` drive a download.
	 * `switched`: the sidecar's report once restarted with an embedder (default: a pulled one active).
	 */
	function modelsTab(
		initial = aModelsReport(),
		{ offer = { languages: { en: 1 }, suggestion: null }, switched }: { offer?: ModelsSuggestion; switched?: (name: string) => ModelsReport } = {},
	) {
		let report = initial;
		let progress: (p: PullProgress) => void = () => undefined;
		let finish: () => void = () => undefined;
		const confirmed: string[] = [];
		const controller = new ModelsController({
			models: async () => report,
			suggestion: async () => offer,
			switchEstimate: async (name) => ({ name, from: "a", to: "b", chunks: 40, estimate_s: 130, reembeds: true }),
			pull: (_name, onProgress) => {
				progress = onProgress;
				return new Promise((ok) => (finish = () => ok({ name: "bge-small-en-v1.5", folder: "/m/e", restart: true })));
			},
			confirm: async (_title, text) => {
				confirmed.push(text);
				return true;
			},
			switchEmbedder: async (name) => {
				report = switched?.(name) ?? aModelsReport([aCatalogueModel({ installed: true, active: true, size: 4_000_000 })], name);
			},
			sleep: async () => undefined,
		});
		const host: SettingsHost = {
			settings: mergeSettings(null),
			saveSettings: async () => undefined,
			token: () => null,
			tokenPath: () => "/v/.ora/token",
			reindex: async () => undefined,
			restartSidecar: async () => undefined,
			models: controller,
		};
		const t = new OraSettingTab(new App(), {} as Plugin, host);
		t.display();
		const section = () => t.containerEl.querySelector(".ora-models") as HTMLElement;
		const model = (name: string) =>
			[...section().querySelectorAll(".ora-model")].find((r) => r.querySelector(".setting-item-name")?.textContent === name) as HTMLElement;
		const button = (el: HTMLElement, text: string) => [...el.querySelectorAll("button")].find((b) => b.textContent === text);
		return {
			t,
			controller,
			section,
			model,
			button,
			confirmed,
			progress: (p: PullProgress) => progress(p),
			finish: (r: typeof report) => {
				report = r;
				finish();
			},
		};
	}

	const settle = () => new Promise((ok) => setTimeout(ok, 0));

	it("lists the catalogue with kind, size and state, and the embedder in use", async () => {
		const { section, model, button } = modelsTab();
		await settle();
		expect(section().textContent).toContain("Embedder in use: the packaged all-MiniLM-L6-v2 (int8).");
		const bge = model("bge-small-en-v1.5");
		expect(bge.querySelector(".setting-item-description")?.textContent).toMatch(/^Embedder · not installed\. BGE small/);
		expect(button(bge, "Download")).toBeDefined();
		expect(button(bge, "Use")).toBeUndefined();
		expect(model("ms-marco-minilm-l6").textContent).toContain("Cross-encoder (re-ranks search results) · not installed");
	});

	it("shows a download's progress in a bar and words, with Cancel, then the installed model", async () => {
		const { section, model, button, progress, finish } = modelsTab();
		await settle();
		button(model("bge-small-en-v1.5"), "Download")?.click();
		expect(model("bge-small-en-v1.5").textContent).toContain("Connecting to the model hub…");
		expect(button(model("ms-marco-minilm-l6"), "Download")?.disabled).toBe(true);
		progress({ file: "model.onnx", done: 1_000_000, total: 4_000_000 });
		const bar = model("bge-small-en-v1.5").querySelector("progress") as HTMLProgressElement;
		expect(bar.value).toBe(0.25);
		expect(model("bge-small-en-v1.5").textContent).toContain("Downloading model.onnx: 1.0 MB of 4.0 MB (25%)");
		expect(button(model("bge-small-en-v1.5"), "Cancel")).toBeDefined();
		finish(aModelsReport([aCatalogueModel({ installed: true, size: 4_000_000 })]));
		await settle();
		await settle();
		const bge = model("bge-small-en-v1.5");
		expect(bge.querySelector("progress")).toBeNull();
		expect(bge.textContent).toContain("Embedder · 4.0 MB · installed");
		expect(bge.textContent).toContain("Downloaded and verified.");
		expect(button(bge, "Use")).toBeDefined();
		expect(section().querySelectorAll(".ora-model")).toHaveLength(1);
	});

	it("switches the embedder only after saying it re-embeds and how long it takes", async () => {
		const { model, button, confirmed, section } = modelsTab(aModelsReport([aCatalogueModel({ installed: true, size: 4_000_000 })]));
		await settle();
		button(model("bge-small-en-v1.5"), "Use")?.click();
		for (let i = 0; i < 5; i++) await settle();
		expect(confirmed).toEqual([
			"Switching to bge-small-en-v1.5 re-embeds every chunk of the index (40 chunks), about 2 min on this computer. " +
				"The sidecar restarts to switch; until the re-embedding finishes, search finds only the notes done so far.",
		]);
		expect(section().textContent).toContain("Embedder in use: bge-small-en-v1.5.");
		expect(section().textContent).toContain("Switched to bge-small-en-v1.5.");
		expect(button(model("bge-small-en-v1.5"), "Use")).toBeUndefined();
		expect(button(section(), "Use the packaged embedder")).toBeDefined();
	});

	it("offers an index on fp32 the faster q8 variant, saying it re-embeds once", async () => {
		const fp32 = aModelsReport(undefined, "fp32");
		const onFp32 = { ...fp32, embedder: { ...fp32.embedder, available: ["q8", "fp32", "int8"] } };
		const { button, confirmed, section } = modelsTab(onFp32);
		await settle();
		expect(section().textContent).toContain("Its int8 variant (q8) indexes about 1.5 times as fast");
		button(section(), "Use the faster variant")?.click();
		for (let i = 0; i < 5; i++) await settle();
		expect(confirmed[0]).toContain("Switching to the packaged all-MiniLM-L6-v2 (q8) re-embeds every chunk of the index");
		expect(section().textContent).toContain("Switched to the packaged all-MiniLM-L6-v2 (q8).");
		expect(button(section(), "Use the faster variant")).toBeUndefined();
	});

	describe("the packaged multilingual embedder", () => {
		const USE = "use-multilingual-v3";
		/** The sidecar's report with `chosen` in use, MiniLM's three variants and the multilingual embedder built. */
		const built = (chosen: string): ModelsReport => {
			const report = aModelsReport(undefined, chosen);
			return { ...report, embedder: { ...report.embedder, available: ["q8", "fp32", "int8"], multilingual: aPackagedMultilingual(true) } };
		};

		it("names it in use and switches back to the English embedder's q8 variant, not to auto, which would keep it", async () => {
			const { button, confirmed, section } = modelsTab(built(USE), { switched: built });
			await settle();
			expect(section().textContent).toContain("Embedder in use: the packaged multilingual embedder (use-multilingual-v3).");
			expect(section().textContent).not.toContain("all-MiniLM-L6-v2 (use-multilingual-v3)");
			expect(section().textContent).toContain("the packaged English embedder (all-MiniLM-L6-v2) is the default. Switching re-embeds the index once.");
			expect(button(section(), "Use the packaged embedder")).toBeUndefined();
			button(section(), "Use the English embedder")?.click();
			for (let i = 0; i < 5; i++) await settle();
			expect(confirmed[0]).toContain("Switching to the packaged all-MiniLM-L6-v2 (q8) re-embeds every chunk of the index");
			expect(section().textContent).toContain("Switched to the packaged all-MiniLM-L6-v2 (q8).");
			expect(section().textContent).toContain("Embedder in use: the packaged all-MiniLM-L6-v2 (q8).");
			expect(button(section(), "Use the English embedder")).toBeUndefined();
			expect(button(section(), "Use the multilingual embedder")).toBeDefined(); // and back again
		});

		it("once built, is offered to an English vault on MiniLM, with what it is, and switched to after the confirmation", async () => {
			const { button, confirmed, section } = modelsTab(built("q8"), { switched: built });
			await settle();
			expect(section().textContent).toContain(
				"For notes in several languages, the multilingual embedder that comes with Ora is built (Universal Sentence Encoder multilingual v3 by Google: 16 languages, 512 dimensions, 69M parameters). Switching re-embeds the index once.",
			);
			button(section(), "Use the multilingual embedder")?.click();
			for (let i = 0; i < 5; i++) await settle();
			expect(confirmed[0]).toContain("Switching to the packaged multilingual embedder (use-multilingual-v3) re-embeds every chunk of the index");
			expect(section().textContent).toContain("Embedder in use: the packaged multilingual embedder (use-multilingual-v3).");
			expect(button(section(), "Use the multilingual embedder")).toBeUndefined();
			expect(button(section(), "Use the English embedder")).toBeDefined();
		});

		it("is not offered twice: a vault mostly not in English sees only the language offer's button", async () => {
			const spanish: ModelsSuggestion = {
				languages: { es: 0.9, en: 0.1 },
				suggestion: { model: USE, about: "Universal Sentence Encoder multilingual v3.", packaged: true, share_not_english: 0.9, download_mb: null, installed: true, chunks: 40, estimate_s: 10 },
			};
			const { button, section } = modelsTab(built("q8"), { offer: spanish });
			await settle();
			expect(button(section(), "Use it")).toBeDefined();
			expect(button(section(), "Use the multilingual embedder")).toBeUndefined();
		});

		it("is not offered before it is built", async () => {
			const { button, section } = modelsTab(aModelsReport(undefined, "q8"));
			await settle();
			expect(button(section(), "Use the multilingual embedder")).toBeUndefined();
		});
	});

	it("stops redrawing once the tab is hidden", async () => {
		const { t, controller, model } = modelsTab();
		await settle();
		t.hide();
		const drawn = model("bge-small-en-v1.5");
		await controller.refresh();
		expect(model("bge-small-en-v1.5")).toBe(drawn);
	});
});
