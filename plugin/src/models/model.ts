// What the settings' Models section shows, as plain values: the catalogue rows, a download's
// progress, the human message for a failed call, and what switching the embedder costs.
import { SidecarError } from "../api/client";
import type { CatalogueModel, ModelsReport, ModelsSuggestion, PullProgress, SwitchEstimate } from "../api/types";

/** The `embed_model` value that goes back to the packaged embedder (all-MiniLM-L6-v2) from a pulled one. */
export const PACKAGED_EMBEDDER = "auto";

/** The packaged embedder's fastest variant: its int8 quantisation, which a new index uses. An index
 * built before it keeps its variant until the user switches (docs/benchmarks.md, "Embedding models"). */
export const FASTEST_PACKAGED = "q8";

/** One model's download, as the section draws it. */
export type PullState =
	| { phase: "downloading"; file: string; done: number; total: number | null; finished: string[] }
	| { phase: "installed"; kind: string }
	| { phase: "cancelled" }
	| { phase: "failed"; message: string };

export const PULL_STARTING: PullState = Object.freeze({ phase: "downloading", file: "", done: 0, total: null, finished: [] });

/** The state after a `progress` event: a new file name means the previous one is complete. */
export function advancePull(state: PullState, progress: PullProgress): PullState {
	const finished = state.phase === "downloading" ? state.finished : [];
	const current = state.phase === "downloading" ? state.file : "";
	const done = current !== "" && current !== progress.file && !finished.includes(current) ? [...finished, current] : finished;
	return { phase: "downloading", file: progress.file, done: progress.done, total: progress.total, finished: done };
}

/** The current file's fraction done (0–1), or null when its size is unknown. */
export function pullFraction(state: PullState): number | null {
	if (state.phase !== "downloading" || state.total === null || state.total <= 0) return null;
	return Math.min(1, state.done / state.total);
}

export function pullText(state: PullState): string {
	switch (state.phase) {
		case "installed":
			return state.kind === "embedder"
				? "Downloaded and verified. Choose Use to switch the index to it."
				: "Downloaded and verified. Restart the sidecar to load it.";
		case "cancelled":
			return "Download stopped; downloading again resumes where it stopped.";
		case "failed":
			return state.message;
		case "downloading": {
			if (state.file === "") return "Connecting to the model hub…";
			const fraction = pullFraction(state);
			const files = state.finished.length ? ` (${state.finished.length} file${state.finished.length === 1 ? "" : "s"} done)` : "";
			if (fraction === null || state.total === null) return `Downloading ${state.file}: ${formatBytes(state.done)}${files}`;
			return `Downloading ${state.file}: ${formatBytes(state.done)} of ${formatBytes(state.total)} (${Math.floor(fraction * 100)}%)${files}`;
		}
	}
}

/** Decimal units, as download sizes are usually quoted. */
export function formatBytes(bytes: number): string {
	if (bytes < 1000) return `${bytes} B`;
	const units = ["kB", "MB", "GB"];
	let value = bytes / 1000;
	let unit = 0;
	// Compared as shown (rounded), so 999,999 bytes read "1.0 MB", not "1000 kB".
	while (Math.round(value) >= 1000 && unit < units.length - 1) {
		value /= 1000;
		unit++;
	}
	return `${value >= 99.95 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

export function formatDuration(seconds: number): string {
	if (seconds < 1) return "under a second";
	if (Math.round(seconds) < 60) return `about ${Math.round(seconds)} s`;
	const minutes = Math.round(seconds / 60);
	if (minutes < 60) return `about ${minutes} min`;
	const hours = Math.floor(minutes / 60);
	const rest = minutes % 60;
	return `about ${hours} h${rest ? ` ${rest} min` : ""}`;
}

const KINDS: Readonly<Record<string, string>> = Object.freeze({
	embedder: "Embedder",
	reranker: "Cross-encoder (re-ranks search results)",
	nli: "NLI cross-encoder (judges contradictions)",
});

/** A catalogue model as one row of the section. */
export interface ModelRow {
	name: string;
	kind: string;
	/** "Embedder · 133 MB · installed, in use", "Embedder · about 487 MB to download · not installed" */
	summary: string;
	about: string;
	installed: boolean;
	active: boolean;
	/** An installed embedder that is not in use: it can be switched to. */
	switchable: boolean;
}

export function modelRows(report: ModelsReport): ModelRow[] {
	return report.catalogue.map((m: CatalogueModel) => {
		const parts = [KINDS[m.kind] ?? m.kind];
		if (m.size !== null) parts.push(formatBytes(m.size));
		else if (m.download_mb !== null) parts.push(`about ${formatBytes(m.download_mb * 1_000_000)} to download`);
		parts.push(m.installed ? (m.active ? "installed, in use" : "installed") : "not installed");
		return {
			name: m.name,
			kind: m.kind,
			summary: parts.join(" · "),
			about: m.about,
			installed: m.installed,
			active: m.active,
			switchable: m.kind === "embedder" && m.installed && !m.active,
		};
	});
}

/** An `embed_model` value in words: a pulled model by its name, a packaged one by what it is. */
export function embedderLabel(report: ModelsReport, name: string): string {
	if (name === report.embedder.multilingual.name) return `the packaged multilingual embedder (${name})`;
	const pulled = report.catalogue.some((m) => m.kind === "embedder" && m.name === name);
	return pulled ? name : `the packaged all-MiniLM-L6-v2 (${name})`;
}

/** The embedder the sidecar uses, in words. */
export function embedderInUse(report: ModelsReport): string {
	const chosen = report.embedder.chosen;
	if (chosen === null) return "No embedder is installed.";
	return `Embedder in use: ${embedderLabel(report, chosen)}.`;
}

/**
 * The English embedder to go back to from the packaged multilingual one: the best all-MiniLM-L6-v2
 * variant built (`available` is in the sidecar's preference order, q8 first), named outright because
 * `auto` keeps the embedder the index was made with. Null when the multilingual one is not in use.
 */
export function englishEmbedderToUse(report: ModelsReport): string | null {
	const { chosen, available, multilingual } = report.embedder;
	if (chosen === null || chosen !== multilingual.name) return null;
	return available[0] ?? null;
}

/**
 * The packaged multilingual embedder to offer an index on an English-only one (a mixed vault's user
 * may want it), or null: not built, already in use, no embedder, the embedder in use knows other
 * languages (a pulled multilingual model), or the language offer (`offer`, the prominent version
 * for a vault mostly not in English) already shows this switch.
 */
export function multilingualToOffer(report: ModelsReport, offer: ModelsSuggestion | null): string | null {
	const { chosen, multilingual, english_only } = report.embedder;
	if (!multilingual.available || chosen === null || chosen === multilingual.name || english_only === false) return null;
	return offer?.suggestion?.model === multilingual.name ? null : multilingual.name;
}

/** Whether the packaged embedder can be switched back to (a pulled one is in use). */
export function canSwitchToPackaged(report: ModelsReport): boolean {
	return report.catalogue.some((m) => m.kind === "embedder" && m.active);
}

/** Whether the index uses a slower packaged variant (fp32, int8) while the faster one is built. */
export function canSwitchToFastest(report: ModelsReport): boolean {
	const { chosen, available } = report.embedder;
	const packaged = chosen !== null && available.includes(chosen);
	return packaged && chosen !== FASTEST_PACKAGED && available.includes(FASTEST_PACKAGED);
}

/** Whether `name` (an `embed_model` value) is what the sidecar now uses. */
export function isInUse(report: ModelsReport, name: string): boolean {
	if (name === PACKAGED_EMBEDDER) return !canSwitchToPackaged(report) && report.embedder.chosen !== null;
	return report.embedder.chosen === name;
}

/** What the user is told before switching: the re-embedding and how long it will take. */
export function switchMessage(label: string, estimate: SwitchEstimate): string {
	if (!estimate.reembeds) {
		return estimate.from === estimate.to
			? `${label} is the model the index was built with: nothing is re-embedded. The sidecar restarts to switch.`
			: `Nothing is indexed yet, so nothing is re-embedded. The sidecar restarts to switch to ${label}.`;
	}
	const chunks = `${estimate.chunks.toLocaleString("en-US")} chunk${estimate.chunks === 1 ? "" : "s"}`;
	return (
		`Switching to ${label} re-embeds every chunk of the index (${chunks}), ${formatDuration(estimate.estimate_s)} on this computer. ` +
		"The sidecar restarts to switch; until the re-embedding finishes, search finds only the notes done so far."
	);
}

/** The message for a failed models call, one per cause the user can act on. */
export function modelsErrorMessage(err: unknown): string {
	if (err instanceof SidecarError) {
		switch (err.code) {
			case "unreachable":
				return "The sidecar is not running. Start it (Restart above) and try again.";
			case "hub_unreachable":
				return "Cannot reach the model hub: this computer looks offline, or the mirror set in ORA_HF_ENDPOINT is down. Connect and download again; a partial download resumes.";
			case "checksum_mismatch":
				return "The downloaded file did not match the checksum the hub publishes, so it was discarded. Download again; if it keeps happening, the mirror serves a damaged file.";
			case "conflict":
				return "Another download is running, here or for the same model in another vault's sidecar or `ora models pull`. Wait for it to finish, then try again.";
			case "stream_ended":
				return "The sidecar stopped before the download finished. Download again to resume.";
			case "timeout":
				return `${err.message} Try again (a download resumes); if it keeps happening, restart the sidecar.`;
			case "model_unavailable":
				return `The model is not available: ${err.message}`;
			default:
				return `The sidecar refused: ${err.message}`;
		}
	}
	return `Unexpected error: ${err instanceof Error ? err.message : String(err)}`;
}
