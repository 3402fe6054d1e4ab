import { Modal, Notice, Setting, type App } from "obsidian";

import type { ModelsController, ModelsState } from "../models/controller";
import { formatBytes, pullFraction, pullText } from "../models/model";
import type { LlmCheck } from "../onboarding/llm-check";
import type { StatusView } from "../sidecar/status-model";
import { errorText } from "./adopt-modal";
import { drawLanguageOffer } from "./language-offer";
import { describeSetup, SetupProgressView, type SetupInstaller } from "./setup-modal";

/** The local re-ranker onboarding offers (schema/models.json). */
export const RERANKER = "ms-marco-minilm-l6";

export interface LlmSettings {
	url: string;
	model: string;
	key: string;
}

/** What the first-run guide needs from the plugin. */
export interface OnboardingHost {
	installer: SetupInstaller;
	stopSidecar(): Promise<void>;
	/** After a set-up: point the command setting at the install and start the sidecar. */
	installed(): Promise<void>;
	/** The sidecar's status now and on each change, until the returned function is called. */
	watchStatus(listener: (view: StatusView) => void): () => void;
	models: Pick<ModelsController, "state" | "subscribe" | "refresh" | "refreshOffer" | "download" | "downloadAndUse" | "cancel" | "downloading">;
	llm(): LlmSettings;
	saveLlm(llm: LlmSettings): Promise<void>;
	checkLlm(llm: LlmSettings): Promise<LlmCheck>;
	/** The guide was finished or closed: it is not shown again by itself. */
	finished(): Promise<void>;
}

// Product and API names keep their capitals (Ask is the view's name).
const LLM_ABOUT = "Optional: an OpenAI-compatible endpoint (Ollama, llama.cpp, LM Studio, or a hosted one) writes Ask's answers from your notes. Without one, Ask quotes the passages it finds. Only Ask's question and the passages it cites are sent there.";
const LLM_PLACEHOLDER = "http://127.0.0.1:11434/v1";

const STEPS = ["Set up the sidecar", "Index the vault", "Better results", "Ask with a language model"] as const;

/**
 * The first-run guide: set-up, the first index with its progress, the re-ranker (and a
 * multilingual model where the vault is not English), the optional language model with a test.
 * Each page can be skipped; the guide opens again from the command palette.
 */
export class OnboardingModal extends Modal {
	private page = 0;
	private bodyEl!: HTMLElement;
	private navEl!: HTMLElement;
	private stop: (() => void)[] = [];
	private status: StatusView | null = null;
	/** Ends what the current page watches (and saves what it edits). */
	private stopPage: (() => void) | null = null;

	constructor(
		app: App,
		private readonly host: OnboardingHost,
	) {
		super(app);
	}

	override onOpen(): void {
		this.titleEl.setText("Welcome to Ora");
		this.contentEl.addClass("ora-onboarding");
		this.bodyEl = this.contentEl.createDiv();
		this.navEl = this.contentEl.createDiv();
		this.stop.push(this.host.watchStatus((view) => (this.status = view)));
		this.render();
	}

	override onClose(): void {
		this.stopPage?.();
		this.stopPage = null;
		for (const stop of this.stop) stop();
		this.stop = [];
		this.contentEl.empty();
		void this.host.finished().catch((err: unknown) => new Notice(`Could not save that the guide was shown (it may open again): ${errorText(err)}`));
	}

	private render(): void {
		this.stopPage?.();
		this.stopPage = null;
		this.bodyEl.empty();
		this.bodyEl.createEl("h3", { text: `${this.page + 1} of ${STEPS.length}: ${STEPS[this.page]}` });
		[() => this.setupPage(), () => this.indexPage(), () => this.modelsPage(), () => this.llmPage()][this.page]?.();
		this.renderNav();
	}

	private renderNav(): void {
		this.navEl.empty();
		const row = new Setting(this.navEl);
		if (this.page > 0) row.addButton((b) => b.setButtonText("Back").onClick(() => this.go(this.page - 1)));
		const last = this.page === STEPS.length - 1;
		row.addButton((b) => {
			b.setButtonText(last ? "Finish" : "Next").onClick(() => (last ? this.close() : this.go(this.page + 1)));
			b.setCta();
		});
	}

	private go(page: number): void {
		this.page = page;
		this.render();
	}

	private setupPage(): void {
		const { installer } = this.host;
		const phase = this.status?.phase;
		if (installer.state() === "installed" || phase === "connected" || phase === "indexing" || phase === "scanning" || phase === "ready") {
			this.bodyEl.createEl("p", { text: installer.state() === "installed" ? `The sidecar is installed in ${installer.paths.root}.` : "A sidecar is running for this vault." });
			return;
		}
		this.bodyEl.createEl("p", { text: describeSetup(installer.paths) });
		if (installer.state() === "partial") this.bodyEl.createEl("p", { text: "An earlier set-up did not finish: Install goes on from where it stopped." });
		const actionsEl = this.bodyEl.createDiv();
		const actions = (): Setting => {
			actionsEl.empty();
			return new Setting(actionsEl);
		};
		const progress = new SetupProgressView(this.bodyEl);
		const result = this.bodyEl.createDiv({ cls: "ora-setup-result" });
		const install = async (): Promise<void> => {
			actions().addButton((b) => b.setButtonText("Cancel").onClick(() => installer.cancel()));
			await this.host.stopSidecar();
			const outcome = await installer.install({ kind: "index" }, (event) => progress.show(event));
			progress.done();
			actionsEl.empty();
			result.setText(outcome.ok ? `Done: ora ${outcome.version} is ready.` : outcome.message);
			result.toggleClass("ora-error", !outcome.ok);
			if (outcome.ok || installer.state() === "installed") {
				await this.host.installed();
				if (this.page === 0) this.go(1);
				return;
			}
			actions().addButton((b) => b.setButtonText("Try again").setCta().onClick(() => void install()));
		};
		actions().addButton((b) => b.setButtonText("Install").setCta().onClick(() => void install()));
	}

	private indexPage(): void {
		this.bodyEl.createEl("p", { text: "Ora reads every note once to build the vault's index (in the vault's .ora folder). It goes on in the background: you can go on." });
		const line = this.bodyEl.createDiv({ cls: "ora-onboarding-status" });
		const bar = this.bodyEl.createEl("progress", { cls: "ora-setup-progress" });
		const draw = (view: StatusView): void => {
			const working = view.phase === "starting" || view.phase === "connected" || view.phase === "indexing";
			line.setText(view.phase === "ready" ? `Indexed. ${view.detail}` : `${view.text.replace(/^Ora: /, "")}: ${view.detail}`);
			bar.toggleClass("ora-hidden", !working);
		};
		this.stopPage = this.host.watchStatus(draw);
	}

	private modelsPage(): void {
		this.bodyEl.createEl("p", { text: "A re-ranker reads the best candidates of each search again, side by side with the query, and orders them better. It runs on this computer." });
		const rowEl = this.bodyEl.createDiv();
		const draw = (state: ModelsState): void => {
			rowEl.empty();
			const entry = state.report?.catalogue.find((m) => m.name === RERANKER);
			const setting = new Setting(rowEl).setName(`Re-ranker (${RERANKER})`);
			if (state.error !== null) {
				setting.setDesc(`The sidecar must run first: ${state.error}`);
				return;
			}
			if (!entry) {
				setting.setDesc("Loading the model list…");
				return;
			}
			const size = entry.size !== null ? formatBytes(entry.size) : entry.download_mb !== null ? `about ${formatBytes(entry.download_mb * 1_000_000)}, its exact size is shown as it downloads` : "its size is shown as it downloads";
			const pull = state.pulls.get(RERANKER);
			if (entry.installed || pull?.phase === "installed") {
				setting.setDesc("Installed: search uses it.");
				return;
			}
			if (pull?.phase === "downloading") {
				const fraction = pullFraction(pull);
				setting.setDesc(pullText(pull));
				const bar = setting.controlEl.createEl("progress", { cls: "ora-setup-progress" });
				if (fraction !== null) {
					bar.max = 1;
					bar.value = fraction;
				}
				return;
			}
			setting.setDesc(`${entry.about} Download from the Hugging Face hub: ${size}.${pull?.phase === "failed" ? ` Last try: ${pull.message}` : ""}`);
			setting.addButton((b) => {
				b.setButtonText("Download").onClick(() => void this.host.models.download(RERANKER));
				if (this.host.models.downloading) b.setDisabled(true); // one download at a time
			});
		};
		// The vault's languages, as the sidecar read them: a mostly non-English vault is offered the multilingual model.
		const languageEl = this.bodyEl.createDiv({ cls: "ora-onboarding-language" });
		const noticeEl = this.bodyEl.createDiv({ cls: "ora-models-note" });
		const drawAll = (state: ModelsState): void => {
			draw(state);
			drawLanguageOffer(languageEl, state, this.host.models);
			noticeEl.setText(state.notice ?? "");
		};
		const stopModels = this.host.models.subscribe(drawAll);
		// The first index may still be running: its languages are read again once it is done.
		let phase: string | null = null;
		const stopStatus = this.host.watchStatus((view) => {
			if (view.phase === "ready" && phase !== null && phase !== "ready") void this.host.models.refreshOffer();
			phase = view.phase;
		});
		this.stopPage = () => {
			stopModels();
			stopStatus();
		};
		drawAll(this.host.models.state);
		void this.host.models.refresh();
		void this.host.models.refreshOffer();
	}

	private llmPage(): void {
		this.bodyEl.createEl("p", { text: LLM_ABOUT });
		const llm = { ...this.host.llm() };
		new Setting(this.bodyEl).setName("Endpoint URL").addText((t) => t.setPlaceholder(LLM_PLACEHOLDER).setValue(llm.url).onChange((v) => (llm.url = v.trim())));
		new Setting(this.bodyEl).setName("Model name").addText((t) => t.setPlaceholder("llama3.2").setValue(llm.model).onChange((v) => (llm.model = v.trim())));
		new Setting(this.bodyEl).setName("Key").setDesc("Only if the endpoint needs one.").addText((t) => {
			t.inputEl.type = "password";
			t.setValue(llm.key).onChange((v) => (llm.key = v.trim()));
		});
		const result = this.bodyEl.createDiv({ cls: "ora-onboarding-check" });
		new Setting(this.bodyEl).addButton((b) =>
			b.setButtonText("Test connection").onClick(async () => {
				result.setText("Testing…");
				const check = await this.host.checkLlm(llm);
				result.setText(check.message);
				result.toggleClass("ora-error", !check.ok);
			}),
		);
		// Saved as the guide moves on or closes: a failed save (data.json not writable) is said, not lost silently.
		this.stopPage = () => void this.host.saveLlm(llm).catch((err: unknown) => new Notice(`Could not save the language model settings: ${errorText(err)}`));
	}

}
