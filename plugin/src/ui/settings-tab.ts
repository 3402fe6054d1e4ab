import { Notice, PluginSettingTab, Setting, type App, type Plugin, type SettingDefinitionItem } from "obsidian";

import type { ModelsController } from "../models/controller";
import type { ApiKey } from "../secrets";
import { DEFAULT_SETTINGS, isPortSetting, type OraSettings } from "../settings";
import { debounce } from "../util/debounce";
import type { ExcludedFoldersController } from "../vault/excluded-folders";
import { errorText } from "./adopt-modal";
import { showExcludedFolders } from "./excluded-folders-section";
import { showModels } from "./models-section";

/** What the settings tab needs from the plugin. */
export interface SettingsHost {
	settings: OraSettings;
	saveSettings(): Promise<void>;
	token(): string | null;
	tokenPath(): string;
	reindex(): Promise<void>;
	restartSidecar(): Promise<void>;
	/** Lints the open editors again (Lint in the editor changed: their marks must follow at once). */
	relint?: () => void;
	/** The Lint delay changed: editors need a linter with the new delay. */
	lintDelayChanged?: () => void;
	/** Opens the sidecar set-up (install, upgrade, remove); absent in hosts without one. */
	openSetup?: () => void;
	/** The Models section (downloads, the embedder); absent in hosts without one. */
	models?: ModelsController;
	/** The excluded-folders picker (`exclude` in ora.yaml); absent in hosts without one. */
	excludedFolders?: ExcludedFoldersController;
	/** The language model key, in SecretStorage where Obsidian has it; absent: kept in settings. */
	apiKey?: ApiKey;
	/** How long after the last edit of a sidecar setting the sidecar restarts with it (ms). */
	restartDelayMs?: number;
}

interface Row {
	name: string;
	desc: string;
	render: (setting: Setting) => void;
}

/** Rows under one heading; an advanced group is folded away (internals most users never touch). */
interface Group {
	heading: string;
	rows: Row[];
	advanced?: boolean;
}

/** Every service outside this computer that the plugin or its sidecar may contact, and when. */
export const NETWORK_SERVICES =
	"The plugin talks to its sidecar on 127.0.0.1 only. Beyond this computer: the Python package index (PyPI), when you set up or upgrade the sidecar; " +
	"GitHub, where set-up's uv downloads the sidecar's private Python (python-build-standalone), when you set it up; " +
	"the Hugging Face model hub, only when you download a model (Models, or ora models pull); the language model endpoint, when you ask; " +
	"Cohere, only when a Cohere key is set (ORA_COHERE_API_KEY), to re-rank search results; the SearXNG instance, when set, when you ask or search with web results; " +
	"an embeddings server, only when embed_url is set. Each is contacted at the address you gave, which may be on this computer.";

/**
 * Every option on one tab. Rows are declared once and drawn two ways: imperatively by display()
 * on Obsidian before 1.13, and as setting definitions (searchable in settings) from 1.13 on.
 */
export class OraSettingTab extends PluginSettingTab {
	/** Stop redrawing the live sections (Models, Excluded folders), by row; set while shown. */
	private readonly stops = new Map<string, () => void>();
	/** A save failed and the user was told: a text box saves on every keystroke, so once until one succeeds. */
	private saveFailing = false;

	constructor(
		app: App,
		plugin: Plugin,
		private readonly host: SettingsHost,
	) {
		super(app, plugin);
	}

	/** Restarts the sidecar once settings it starts with have stopped changing (typing a URL). */
	private readonly restartSoon = debounce(() => void this.host.restartSidecar(), () => this.host.restartDelayMs ?? 1500);

	override display(): void {
		this.containerEl.empty();
		for (const group of this.groups()) {
			let parent = this.containerEl;
			if (group.advanced) {
				const details = parent.createEl("details", { cls: "ora-settings-advanced" });
				details.createEl("summary", { text: group.heading });
				parent = details;
			} else {
				new Setting(parent).setName(group.heading).setHeading();
			}
			for (const row of group.rows) row.render(new Setting(parent).setName(row.name).setDesc(row.desc));
		}
	}

	override hide(): void {
		this.restartSoon.flush();
		for (const stop of this.stops.values()) stop();
		this.stops.clear();
		super.hide();
	}

	override getSettingDefinitions(): SettingDefinitionItem[] {
		return this.groups().map((group): SettingDefinitionItem => {
			const items = group.rows.map((row) => ({ name: row.name, desc: row.desc, render: (setting: Setting) => row.render(setting) }));
			return group.advanced ? { type: "page", name: group.heading, desc: "Port, data folder, batching, the access token.", items } : { type: "group", heading: group.heading, items };
		});
	}

	private groups(): Group[] {
		const rows = new Map(this.rows().map((row) => [row.name, row]));
		const pick = (...names: string[]): Row[] =>
			names.map((name) => {
				const row = rows.get(name);
				if (!row) throw new Error(`no setting row ${name}`);
				return row;
			});
		return [
			{ heading: "Sidecar", rows: pick("Ora command", "Start the sidecar automatically", "Sidecar", "Sidecar installation", "Re-index now") },
			{ heading: "Search", rows: pick("Results per search", "Search delay", "Excluded folders") },
			{ heading: "Ask", rows: pick("Language model URL", "Language model name", "Language model key", "Private text may go to", "Language model timeout", "Answer length", "Conversation window", "Web search") },
			{ heading: "Lint", rows: pick("Lint in the editor", "Lint delay") },
			{ heading: "Models", rows: pick("Models") },
			{ heading: "Network", rows: pick("What Ora contacts") },
			{ heading: "Advanced", advanced: true, rows: pick("Port", "Data folder", "Event batching delay", "Access token") },
		];
	}

	private rows(): Row[] {
		const s = this.host.settings;
		// The change applies at once in memory; a failed saveData (data.json not writable) is said in a
		// notice rather than left an unhandled rejection.
		const save = async (change: Partial<OraSettings>): Promise<void> => {
			Object.assign(s, change);
			await this.saved(this.host.saveSettings());
		};
		// Settings the sidecar starts with: it restarts to apply them, as the help says.
		const saveAndRestart = async (change: Partial<OraSettings>): Promise<void> => {
			await save(change);
			this.restartSoon();
		};
		const apiKey = this.host.apiKey;
		return [
			{
				name: "Ora command",
				desc: "\"managed\" (set by set-up) starts the sidecar this plugin installed for every vault on this computer; otherwise the ora executable, on your path or absolute (for example /path/to/repo/.venv/bin/ora). Takes effect after a restart of the sidecar.",
				render: (st) => {
					st.addText((t) => t.setPlaceholder(DEFAULT_SETTINGS.oraCommand).setValue(s.oraCommand).onChange((v) => void save({ oraCommand: v.trim() || DEFAULT_SETTINGS.oraCommand })));
				},
			},
			{
				name: "Port",
				desc: "Loopback port of the sidecar; 0 (the default) lets each vault's sidecar pick a free port. Takes effect after a restart of the sidecar.",
				render: (st) => {
					st.addText((t) => t.setValue(String(s.port)).onChange((v) => {
						const port = Number(v);
						if (isPortSetting(port)) void save({ port });
					}));
				},
			},
			{
				name: "Data folder",
				desc: "Where the sidecar keeps its index and token. Empty means the .ora folder inside the vault. Takes effect after a restart of the sidecar; a new data folder starts without an index, so the whole vault is indexed again.",
				render: (st) => {
					st.addText((t) => t.setPlaceholder(".ora").setValue(s.dataFolder).onChange((v) => void save({ dataFolder: v.trim() })));
				},
			},
			{
				name: "Start the sidecar automatically",
				desc: "Run ora serve when the plugin loads and nothing answers on the port; stopped again on unload.",
				render: (st) => {
					st.addToggle((t) => t.setValue(s.autoStart).onChange((v) => void save({ autoStart: v })));
				},
			},
			{
				name: "Results per search",
				desc: "How many results the search panel asks for.",
				render: (st) => {
					st.addSlider((t) => t.setLimits(1, 50, 1).setValue(s.resultCount).onChange((v) => void save({ resultCount: v })));
				},
			},
			{
				name: "Search delay",
				desc: "Milliseconds of quiet typing before the panel searches.",
				render: (st) => this.numberText(st, s.searchDelayMs, (v) => save({ searchDelayMs: v })),
			},
			{
				name: "Excluded folders",
				desc: "Folders left out of the index, lint and search: exclude in the vault's ora.yaml, which the ora command reads too. The index follows at once.",
				render: (st) => {
					const excluded = this.host.excludedFolders;
					if (!excluded) return;
					st.settingEl.addClass("ora-models-setting");
					this.live("Excluded folders", () => showExcludedFolders(this.app, st.settingEl.createDiv({ cls: "ora-excluded-folders" }), excluded));
				},
			},
			{
				name: "Lint in the editor",
				desc: "Underline frontmatter problems as you type.",
				render: (st) => {
					st.addToggle((t) =>
						t.setValue(s.lintInEditor).onChange((v) => {
							void save({ lintInEditor: v });
							this.host.relint?.();
						}),
					);
				},
			},
			{
				name: "Lint delay",
				desc: "Milliseconds after the last keystroke before the note is linted.",
				render: (st) =>
					this.numberText(st, s.lintDelayMs, async (v) => {
						const saving = save({ lintDelayMs: v });
						this.host.lintDelayChanged?.();
						await saving;
					}),
			},
			{
				name: "Event batching delay",
				desc: "Milliseconds of quiet in the vault before changes are sent to the sidecar as one batch.",
				render: (st) => this.numberText(st, s.eventDelayMs, (v) => save({ eventDelayMs: v })),
			},
			{
				name: "Language model URL",
				desc: "An OpenAI-compatible endpoint for Ask, e.g. Ollama http://127.0.0.1:11434/v1, llama.cpp server http://127.0.0.1:8080/v1, LM Studio http://127.0.0.1:1234/v1. Empty: answers quote passages. The sidecar restarts to apply it.",
				render: (st) => {
					st.addText((t) => t.setPlaceholder("Empty: no model").setValue(s.llmUrl).onChange((v) => void saveAndRestart({ llmUrl: v.trim() })));
				},
			},
			{
				name: "Language model name",
				desc: "The model the endpoint should run, for example llama3.2.",
				render: (st) => {
					st.addText((t) => t.setValue(s.llmModel).onChange((v) => void saveAndRestart({ llmModel: v.trim() })));
				},
			},
			{
				name: "Language model key",
				desc: `Bearer key, only if the endpoint needs one. ${apiKey?.where ?? ""}`.trim(),
				render: (st) => {
					st.addText((t) => {
						t.inputEl.type = "password";
						t.setValue(apiKey ? apiKey.get() : s.llmApiKey).onChange((v) => {
							const key = v.trim();
							void (apiKey ? this.saved(apiKey.set(key)) : save({ llmApiKey: key })).then(() => this.restartSoon());
						});
					});
				},
			},
			{
				name: "Private text may go to",
				desc: "Hosts not on this machine that may receive your private notes' text and private-mode questions, comma-separated, e.g. gpu-box.lan. Empty: private text stays on this machine (a language model elsewhere then answers private-mode questions by quoting your notes). The sidecar restarts to apply it.",
				render: (st) => {
					st.addText((t) => t.setPlaceholder("Empty: this machine only").setValue(s.trustedHosts).onChange((v) => void saveAndRestart({ trustedHosts: v.trim() })));
				},
			},
			{
				name: "Language model timeout",
				desc: "Seconds before the sidecar gives up on the language model for an answer; 0 keeps its default. The sidecar restarts to apply it.",
				render: (st) => this.numberText(st, s.llmTimeoutSeconds, (v) => saveAndRestart({ llmTimeoutSeconds: v })),
			},
			{
				name: "Answer length",
				desc: "Longest generated answer, in tokens; 0 keeps the sidecar's default. The sidecar restarts to apply it.",
				render: (st) => this.numberText(st, s.answerMaxTokens, (v) => saveAndRestart({ answerMaxTokens: v })),
			},
			{
				name: "Conversation window",
				desc: "Recent conversation turns sent with a question, in tokens; 0 keeps the sidecar's default. The sidecar restarts to apply it.",
				render: (st) => this.numberText(st, s.memoryWindowTokens, (v) => saveAndRestart({ memoryWindowTokens: v })),
			},
			{
				name: "Web search",
				desc: "A SearXNG instance (its address, e.g. http://127.0.0.1:8888) for web results in Ask: a Web toggle appears in the panel. Empty: no web search. The sidecar restarts to apply it.",
				render: (st) => {
					st.addText((t) => t.setPlaceholder("Empty: no web search").setValue(s.searxngUrl).onChange((v) => void saveAndRestart({ searxngUrl: v.trim() })));
				},
			},
			{
				name: "What Ora contacts",
				desc: NETWORK_SERVICES,
				render: () => undefined,
			},
			{
				name: "Access token",
				desc: `Read from ${this.host.tokenPath()}. Sent with every request.`,
				render: (st) => {
					const token = this.host.token();
					st.addText((t) => {
						t.inputEl.type = "password";
						t.inputEl.readOnly = true;
						t.setValue(token ?? "").setPlaceholder("Not loaded yet");
					});
					st.addExtraButton((b) => b.setIcon("copy").setTooltip("Copy token").onClick(() => {
						if (!token) return;
						void navigator.clipboard.writeText(token).then(() => new Notice("Token copied."));
					}));
				},
			},
			{
				name: "Sidecar",
				desc: "Start the sidecar again (for example after changing the port).",
				render: (st) => {
					st.addButton((b) => b.setButtonText("Restart").onClick(() => void this.host.restartSidecar()));
				},
			},
			{
				name: "Sidecar installation",
				desc: "Install the sidecar (no Python needed), repair, upgrade or remove it. One install serves every vault on this computer.",
				render: (st) => {
					st.addButton((b) => b.setButtonText("Set up…").onClick(() => this.host.openSetup?.()));
				},
			},
			{
				name: "Models",
				desc: "Download models from the Hugging Face hub into the sidecar's models folder: a stronger embedder, the re-ranker for search, the judge for contradictions. Switching the embedder re-embeds the whole index.",
				render: (st) => {
					const models = this.host.models;
					if (!models) return;
					st.settingEl.addClass("ora-models-setting");
					this.live("Models", () => showModels(st.settingEl.createDiv({ cls: "ora-models" }), models));
				},
			},
			{
				name: "Re-index now",
				desc: "Ask the sidecar to bring its index in line with the vault.",
				render: (st) => {
					st.addButton((b) => b.setButtonText("Re-index now").setCta().onClick(() => void this.host.reindex()));
				},
			},
		];
	}

	/** Shows a section that redraws itself, stopping the one drawn for the same row before. */
	private live(row: string, show: () => () => void): void {
		this.stops.get(row)?.();
		this.stops.set(row, show());
	}

	/**
	 * Waits for a save; one that fails (data.json or the secret storage refused it) is said in a
	 * notice, once until a save succeeds again.
	 */
	private async saved(saving: Promise<void>): Promise<void> {
		try {
			await saving;
			this.saveFailing = false;
		} catch (err) {
			if (!this.saveFailing) new Notice(`Could not save the setting: ${errorText(err)}`, 10_000);
			this.saveFailing = true;
		}
	}

	private numberText(setting: Setting, value: number, onChange: (v: number) => Promise<void>): void {
		setting.addText((t) => t.setValue(String(value)).onChange((v) => {
			const n = Number(v);
			if (Number.isInteger(n) && n >= 0) void onChange(n);
		}));
	}
}
