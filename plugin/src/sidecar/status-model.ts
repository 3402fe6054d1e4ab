import type { CleaningStatus, ReconcileStatus, Status, StreamEvent } from "../api/types";
import type { Problem, Unresponsive } from "./supervisor";

export type Phase = "starting" | "connected" | "indexing" | "scanning" | "ready" | "reconnecting" | "not-responding" | "stopped" | "error";

/** What a click on the status bar item does. */
export type ClickAction = "triage" | "details" | "log" | "restart" | "settings";

/** What the status bar item shows. */
export interface StatusView {
	phase: Phase;
	text: string;
	/** Shown on hover, and when the item is clicked for details. */
	detail: string;
	/** Open contradiction pairs, drawn as a badge when above zero. */
	openPairs: number;
	action: ClickAction;
}

type Connection = "starting" | "up" | "reconnecting" | "hung" | "stopped" | "error";

interface State {
	connection: Connection;
	/** Why the sidecar is stopped, failed or not responding, in words for the user. */
	reason: string;
	/** Not responding: whether a click can restart it (else the details say how to free the port). */
	canRestart: boolean;
	problem: Problem | null;
	/** Whether /v1/status or the stream has told us anything since connecting. */
	heard: boolean;
	files: number;
	chunks: number;
	reconcile: ReconcileStatus;
	cleaning: Pick<CleaningStatus, "running" | "done" | "total">;
	openPairs: number;
	lastError: string | null;
	/** Documents the sidecar could not read, with the reason. */
	unreadable: { path: string; message: string }[];
}

/** Unreadable documents named in the details; the rest are counted. */
const UNREADABLE_NAMED = 5;

const IDLE = { running: false, phase: null, done: 0, total: 0 };
const NOT_RESPONDING = "The sidecar is running but does not answer (it may be stuck). Ora keeps checking and reconnects when it answers again.";
const HINTS: Record<ClickAction, string> = {
	triage: "Click to triage contradictions.",
	details: "Click for details.",
	log: "Click to see the sidecar's log.",
	restart: "Click to restart the sidecar.",
	settings: "Click to open Ora's settings.",
};

/**
 * Folds the supervisor's outcomes, /v1/status answers and stream events into the status bar's
 * state. Pure: each method returns the next state; `view` says what to draw and what a click does.
 */
export class StatusModel {
	private constructor(private readonly state: State) {}

	static initial(): StatusModel {
		return new StatusModel({
			connection: "starting", reason: "", canRestart: true, problem: null, heard: false, files: 0, chunks: 0,
			reconcile: IDLE, cleaning: IDLE, openPairs: 0, lastError: null, unreadable: [],
		});
	}

	/** A sidecar answers (its status and events follow). */
	connected(): StatusModel {
		return this.with({ connection: "up", heard: false, reason: "" });
	}

	/**
	 * The connection dropped: trying to reach (or restart) the sidecar. `why`: how it ended, when
	 * known (kept while still reconnecting, whichever of the stream or the exit was noticed first).
	 */
	reconnecting(why?: string): StatusModel {
		const reason = why ?? (this.state.connection === "reconnecting" ? this.state.reason : "");
		return this.with({ connection: "reconnecting", reason, reconcile: IDLE, cleaning: IDLE });
	}

	/** The sidecar runs but does not answer its health check in time (stopped, deadlocked, in a long pause). */
	notResponding(why: Unresponsive = { reason: NOT_RESPONDING, canRestart: true }): StatusModel {
		return this.with({ connection: "hung", reason: why.reason, canRestart: why.canRestart, reconcile: IDLE, cleaning: IDLE });
	}

	stopped(reason = "The sidecar is not running."): StatusModel {
		return this.with({ connection: "stopped", reason, reconcile: IDLE, cleaning: IDLE });
	}

	failed(reason: string, problem: Problem = "failed"): StatusModel {
		return this.with({ connection: "error", reason: explain(reason, problem), problem, reconcile: IDLE, cleaning: IDLE });
	}

	fromStatus(status: Status): StatusModel {
		return this.with({
			heard: true, files: status.files, chunks: status.chunks, reconcile: status.reconcile,
			cleaning: status.cleaning ?? IDLE, openPairs: status.contradictions_open, lastError: status.last_error,
			unreadable: status.unreadable_documents ?? [],
		});
	}

	onEvent(event: StreamEvent): StatusModel {
		switch (event.type) {
			case "progress": {
				const running = event.phase === "scan" || event.phase === "embed";
				return this.with({ heard: true, reconcile: { running, phase: event.phase, done: event.done, total: event.total } });
			}
			case "index":
				return this.with({ heard: true, files: event.files, chunks: event.chunks });
			case "contradictions":
				return this.with({ openPairs: event.open });
			case "cleaning":
				return this.with({ heard: true, cleaning: { running: event.running, done: event.done, total: event.total } });
		}
	}

	get view(): StatusView {
		const s = this.state;
		const base = { openPairs: s.openPairs };
		switch (s.connection) {
			case "starting":
				return this.shown({ ...base, phase: "starting", text: "Ora: starting", detail: "Starting the sidecar…", action: "log" });
			case "reconnecting":
				return this.shown({
					...base,
					phase: "reconnecting",
					text: "Ora: reconnecting",
					detail: s.reason ? `${s.reason}\nRestarting it.` : "Lost the connection to the sidecar; reconnecting.",
					action: "log",
				});
			case "hung":
				return this.shown({
					...base,
					phase: "not-responding",
					text: "Ora: not responding",
					detail: s.reason,
					action: s.canRestart ? "restart" : "details",
				});
			case "stopped":
				return this.shown({ ...base, phase: "stopped", text: "Ora: stopped", detail: s.reason, action: "restart" });
			case "error": {
				const action = s.problem === "failed" || s.problem === null ? "restart" : "settings";
				return this.shown({ ...base, phase: "error", text: "Ora: error", detail: s.reason, action });
			}
			case "up":
				return this.shown({ ...base, ...this.working(), action: s.openPairs > 0 ? "triage" : "details" });
		}
	}

	private working(): Pick<StatusView, "phase" | "text" | "detail"> {
		const s = this.state;
		const counts = `${s.files} files, ${s.chunks} chunks indexed.`;
		const error = (s.lastError ? `\nLast error: ${s.lastError}` : "") + unreadableText(s.unreadable);
		if (s.reconcile.running && s.reconcile.phase === "embed") {
			// The second pass: every note is findable by its words already (done of total: chunks).
			const { done, total } = s.reconcile;
			const ready = `meaning-based search ${percent(done, total)} % ready`;
			return {
				phase: "indexing",
				text: `Ora: searching by words; ${ready}`,
				detail: `Every note is findable by its words; ${ready}: ${done} of ${total} chunks embedded.${error}`,
			};
		}
		if (s.reconcile.running) {
			const { done, total } = s.reconcile;
			return { phase: "indexing", text: `Ora: indexing ${percent(done, total)}%`, detail: `Indexing the vault: ${done} of ${total}.${error}` };
		}
		if (s.cleaning.running) {
			const { done, total } = s.cleaning;
			const progress = total > 0 ? ` (${done} of ${total} claim pairs judged)` : "";
			return { phase: "scanning", text: "Ora: scanning", detail: `Looking for contradictions in changed notes${progress}. ${counts}${error}` };
		}
		if (!s.heard) return { phase: "connected", text: "Ora: connected", detail: "Connected to the sidecar." };
		return { phase: "ready", text: "Ora: ready", detail: `${counts}${error}` };
	}

	private shown(view: StatusView): StatusView {
		return { ...view, detail: `${view.detail}\n${HINTS[view.action]}` };
	}

	private with(change: Partial<State>): StatusModel {
		return new StatusModel({ ...this.state, ...change });
	}
}

/** The supervisor's reason, with what to do about it in plain words. */
function explain(reason: string, problem: Problem): string {
	switch (problem) {
		case "missing-command":
			return `The ora command was not found (${reason}). Set "Ora command" in Ora's settings to the ora program, for example /path/to/repo/.venv/bin/ora, or install it from there: Sidecar installation → Set up.`;
		case "auto-start-off":
			return `${reason} Turn on "Start the sidecar automatically", or run ora serve yourself.`;
		default:
			return reason;
	}
}

/** "\nUnreadable documents (2): scan.pdf: not indexed: Image-only…; …", or nothing. */
function unreadableText(docs: { path: string; message: string }[]): string {
	if (docs.length === 0) return "";
	const named = docs.slice(0, UNREADABLE_NAMED).map((d) => `\n- ${d.path}: ${d.message}`).join("");
	const more = docs.length > UNREADABLE_NAMED ? `\n… and ${docs.length - UNREADABLE_NAMED} more (ora index lists them all)` : "";
	return `\nUnreadable documents (${docs.length}):${named}${more}`;
}

function percent(done: number, total: number): number {
	return total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 0;
}
