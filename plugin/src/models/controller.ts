import { SidecarError } from "../api/client";
import type { ModelsReport, ModelsSuggestion, PulledModel, PullProgress, SwitchEstimate } from "../api/types";
import { advancePull, isInUse, modelsErrorMessage, PULL_STARTING, switchMessage, type PullState } from "./model";

/** What the Models section needs from the plugin; Obsidian stays behind these functions. */
export interface ModelsDeps {
	models(): Promise<ModelsReport>;
	/** The vault's languages and the multilingual embedder to offer (GET /v1/models/suggestion). */
	suggestion(): Promise<ModelsSuggestion>;
	switchEstimate(name: string): Promise<SwitchEstimate>;
	pull(name: string, onProgress: (progress: PullProgress) => void, signal: AbortSignal): Promise<PulledModel>;
	/** Asks the user; resolves true only when they confirm. */
	confirm(title: string, text: string, confirmLabel: string): Promise<boolean>;
	/** Sets the embedder the sidecar starts with and restarts it. */
	switchEmbedder(name: string): Promise<void>;
	/** Waits between checks that a restarted sidecar uses the new embedder. */
	sleep?: (ms: number) => Promise<void>;
}

/** The waits before asking again when a download right after a cancel is refused as a conflict (about 2 s in all). */
const CANCEL_RETRY_MS = [200, 400, 600, 800];

function isConflict(err: unknown): boolean {
	return err instanceof SidecarError && err.code === "conflict";
}

/** The section's state: the last report (or why there is none), each download, the switch outcome. */
export interface ModelsState {
	report: ModelsReport | null;
	error: string | null;
	pulls: ReadonlyMap<string, PullState>;
	/** The embedder being switched to, while the sidecar restarts. */
	switching: string | null;
	/** What became of the last switch, when there is something to say. */
	notice: string | null;
	/** The vault's languages and what to offer for them; null until asked, or when the sidecar cannot say. */
	offer: ModelsSuggestion | null;
}

/**
 * The Models section's logic: loads the catalogue, runs downloads (one at a time, as the sidecar
 * allows) with their progress, and switches the embedder only after the user saw what it costs.
 * It outlives the settings tab, so a download keeps its progress when the tab is reopened.
 */
export class ModelsController {
	private current: ModelsState = { report: null, error: null, pulls: new Map(), switching: null, notice: null, offer: null };
	private readonly listeners = new Set<(state: ModelsState) => void>();
	private readonly aborts = new Map<string, AbortController>();
	/** Set from the first click on Use until that switch is over (or declined). */
	private switchAsked = false;
	/** The last download ended by a cancel: the next one may be refused while the sidecar lets go of it. */
	private cancelledLast = false;

	constructor(private readonly deps: ModelsDeps) {}

	get state(): ModelsState {
		return this.current;
	}

	/** Calls `listener` on every change; returns the function that stops it. */
	subscribe(listener: (state: ModelsState) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	get downloading(): boolean {
		return this.aborts.size > 0;
	}

	async refresh(): Promise<void> {
		try {
			this.set({ report: await this.deps.models(), error: null });
		} catch (err) {
			this.set({ report: null, error: modelsErrorMessage(err) });
		}
	}

	async download(name: string): Promise<void> {
		if (this.downloading) return;
		const abort = new AbortController();
		this.aborts.set(name, abort);
		this.setPull(name, PULL_STARTING);
		// Right after a cancel the sidecar may still be letting go of that pull (its lock), and refuses a new one.
		const afterCancel = this.cancelledLast;
		this.cancelledLast = false;
		try {
			await this.pullRetrying(name, abort.signal, afterCancel);
			const kind = this.current.report?.catalogue.find((m) => m.name === name)?.kind ?? "";
			this.setPull(name, { phase: "installed", kind });
		} catch (err) {
			this.cancelledLast = abort.signal.aborted;
			this.setPull(name, abort.signal.aborted ? { phase: "cancelled" } : { phase: "failed", message: modelsErrorMessage(err) });
		} finally {
			this.aborts.delete(name);
		}
		await this.refresh();
	}

	/**
	 * Pulls `name`; after a cancel, a refusal as "another download is running" before any progress
	 * is the cancelled pull still winding down in the sidecar: asked again a few times (about 2 s in
	 * all) before it is shown.
	 */
	private async pullRetrying(name: string, signal: AbortSignal, afterCancel: boolean): Promise<void> {
		const sleep = this.deps.sleep ?? ((ms: number) => new Promise<void>((ok) => window.setTimeout(ok, ms)));
		const waits = afterCancel ? [...CANCEL_RETRY_MS] : [];
		for (;;) {
			let progressed = false;
			try {
				await this.deps.pull(
					name,
					(progress) => {
						progressed = true;
						this.setPull(name, advancePull(this.pull(name), progress));
					},
					signal,
				);
				return;
			} catch (err) {
				const wait = waits.shift();
				if (wait === undefined || progressed || signal.aborted || !isConflict(err)) throw err;
				await sleep(wait);
				if (signal.aborted) throw err;
			}
		}
	}

	/** Asks the sidecar what to offer for the vault's languages (it times the embedder, so not on every refresh). */
	async refreshOffer(): Promise<void> {
		try {
			this.set({ offer: await this.deps.suggestion() });
		} catch {
			this.set({ offer: null }); // a sidecar that is down or older says nothing: nothing is offered
		}
	}

	/**
	 * The language offer's one button: downloads embedder `name` (unless it is there already), then
	 * switches to it the usual way — its real re-embedding time shown and confirmed first. The offer
	 * says whether it is there: a packaged model is never pulled (the sidecar builds it), and a
	 * catalogue model is not pulled again once the catalogue shows it installed.
	 */
	async downloadAndUse(name: string, label: string): Promise<boolean> {
		const offered = this.current.offer?.suggestion;
		const offer = offered?.model === name ? offered : null;
		if (offer?.packaged && !offer.installed) {
			this.set({ notice: `${label} comes with Ora but is not built yet: restart the sidecar, which builds it, or run \`ora models build\`.` });
			return false;
		}
		const there = offer?.installed || (this.current.report?.catalogue.some((m) => m.name === name && m.installed) ?? false);
		if (!there) {
			await this.download(name);
			if (this.current.pulls.get(name)?.phase !== "installed") return false;
		}
		return this.switchTo(name, label);
	}

	/** Stops a download; its partial files stay with the sidecar, so downloading again resumes. */
	cancel(name: string): void {
		this.aborts.get(name)?.abort();
	}

	/** Stops every download (the plugin unloads). */
	cancelAll(): void {
		for (const abort of this.aborts.values()) abort.abort();
	}

	/**
	 * Says what switching to embedder `name` costs, and on confirmation restarts the sidecar with
	 * it; resolves true when the restarted sidecar reports the new embedder. The language offer is
	 * asked again then: it depends on the embedder in use (back on English, a Spanish vault is
	 * offered the multilingual one again).
	 */
	async switchTo(name: string, label: string): Promise<boolean> {
		if (this.switchAsked) return false; // a second click while the first is asked or running
		if (this.downloading) {
			this.set({ notice: "A model is downloading. Switch once it finishes: switching restarts the sidecar, which would stop the download." });
			return false;
		}
		this.switchAsked = true;
		let used: boolean;
		try {
			used = await this.askAndSwitch(name, label);
		} finally {
			this.switchAsked = false;
		}
		if (used) await this.refreshOffer();
		return used;
	}

	private async askAndSwitch(name: string, label: string): Promise<boolean> {
		let estimate: SwitchEstimate;
		try {
			estimate = await this.deps.switchEstimate(name);
		} catch (err) {
			this.set({ notice: modelsErrorMessage(err) });
			return false;
		}
		const ok = await this.deps.confirm("Switch the embedder?", switchMessage(label, estimate), estimate.reembeds ? "Switch and re-embed" : "Switch");
		if (!ok) return false;
		this.set({ switching: name, notice: null });
		try {
			await this.deps.switchEmbedder(name);
			const taken = await this.waitFor(name);
			this.set({
				switching: null,
				notice: taken
					? `Switched to ${label}.${estimate.reembeds ? " The index is re-embedding; the status bar shows its progress." : ""}`
					: `The sidecar did not switch to ${label}. The old sidecar may still be finishing a write: try again in a minute. If it was started outside Obsidian, restart it yourself with ORA_EMBED_MODEL=${name}.`,
			});
			return taken;
		} catch (err) {
			this.set({ switching: null, notice: modelsErrorMessage(err) });
			return false;
		}
	}

	/** Polls the restarted sidecar until it reports `name` as its embedder (it may take a moment to come up). */
	private async waitFor(name: string, attempts = 30): Promise<boolean> {
		const sleep = this.deps.sleep ?? ((ms: number) => new Promise<void>((ok) => window.setTimeout(ok, ms)));
		for (let i = 0; i < attempts; i++) {
			await this.refresh();
			const report = this.current.report;
			if (report && isInUse(report, name)) return true;
			await sleep(1000);
		}
		return false;
	}

	private pull(name: string): PullState {
		return this.current.pulls.get(name) ?? PULL_STARTING;
	}

	private setPull(name: string, state: PullState): void {
		const pulls = new Map(this.current.pulls);
		pulls.set(name, state);
		this.set({ pulls });
	}

	private set(change: Partial<ModelsState>): void {
		this.current = { ...this.current, ...change };
		for (const listener of this.listeners) listener(this.current);
	}
}
