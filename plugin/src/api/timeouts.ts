/**
 * How long each kind of sidecar call may go unanswered before it fails, in milliseconds. Obsidian's
 * requestUrl has no timeout of its own, so without these a hung sidecar (stopped, deadlocked, in a
 * long pause) would leave a panel loading forever. Streams count silence between events, not total
 * time: an answer may take minutes to write as long as it keeps writing.
 */
export type CallKind =
	/** GET /v1/health: the liveness probe; a live sidecar answers it at once. */
	| "health"
	/** What a panel waits on as the user types or switches notes: search, related, lint, status. */
	| "interactive"
	/** A write the user asked for: resolve, adopt, keep extracted engrams, fix dates, vault events. */
	| "write"
	/** Calls that may legitimately run long: a whole (unstreamed) answer, a triage scan, an extraction, a re-index. */
	| "long"
	/** Silence allowed between the events of an answer stream (a local model may load first). */
	| "ask-stream"
	/** Silence allowed between the progress events of a model download. */
	| "pull-stream";

export type Timeouts = Readonly<Record<CallKind, number>>;

export const CALL_TIMEOUTS: Timeouts = {
	health: 5_000,
	interactive: 15_000,
	write: 60_000,
	long: 300_000,
	"ask-stream": 120_000,
	"pull-stream": 180_000,
};

/** The table with `overrides` applied (tests shorten a kind; nothing else should need to). */
export function timeouts(overrides: Partial<Timeouts> = {}): Timeouts {
	return { ...CALL_TIMEOUTS, ...overrides };
}

/** A duration in words for a message: "15 s", "2 min", "1.5 s". */
export function seconds(ms: number): string {
	const s = ms / 1000;
	if (s >= 60 && s % 60 === 0) return `${s / 60} min`;
	return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
