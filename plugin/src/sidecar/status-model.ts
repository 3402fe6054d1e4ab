import type { Status, StreamEvent } from "../api/types";

export type Phase = "starting" | "indexing" | "ready" | "error" | "stopped";

/** What the status bar item shows. */
export interface StatusView {
	phase: Phase;
	text: string;
	/** Shown on hover and, for errors, when the item is clicked. */
	detail: string;
	/** Open contradiction pairs, drawn as a badge when above zero. */
	openPairs: number;
}

/**
 * Folds health checks, /v1/status answers and stream events into the status bar's state.
 * Pure: each method returns the next state.
 */
export class StatusModel {
	private constructor(readonly view: StatusView) {}

	static initial(): StatusModel {
		return new StatusModel({ phase: "starting", text: "Ora: starting", detail: "Starting the sidecar…", openPairs: 0 });
	}

	failed(reason: string): StatusModel {
		return this.with({ phase: "error", text: "Ora: error", detail: reason });
	}

	stopped(): StatusModel {
		return this.with({ phase: "stopped", text: "Ora: stopped", detail: "The sidecar is not running." });
	}

	fromStatus(status: Status): StatusModel {
		const next = this.with({ openPairs: status.contradictions_open });
		if (status.reconcile.running) {
			return next.indexing(status.reconcile.phase ?? "scan", status.reconcile.done, status.reconcile.total);
		}
		const detail = `${status.files} files, ${status.chunks} chunks indexed · model ${status.model}`;
		return next.with({ phase: "ready", text: "Ora: ready", detail: status.last_error ? `${detail}\nLast error: ${status.last_error}` : detail });
	}

	onEvent(event: StreamEvent): StatusModel {
		switch (event.type) {
			case "progress":
				if (event.phase === "done") return this.with({ phase: "ready", text: "Ora: ready", detail: "Index up to date." });
				return this.indexing(event.phase, event.done, event.total);
			case "index":
				if (this.view.phase === "indexing") return this;
				return this.with({ phase: "ready", text: "Ora: ready", detail: `${event.files} files, ${event.chunks} chunks indexed` });
			case "contradictions":
				return this.with({ openPairs: event.open });
		}
	}

	private indexing(phase: string, done: number, total: number): StatusModel {
		const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 0;
		return this.with({
			phase: "indexing",
			text: `Ora: indexing ${percent}%`,
			detail: `Indexing (${phase}): ${done} of ${total}`,
		});
	}

	private with(change: Partial<StatusView>): StatusModel {
		return new StatusModel({ ...this.view, ...change });
	}
}
