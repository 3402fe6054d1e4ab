import { seconds, timeouts, type CallKind, type Timeouts } from "./timeouts";
import type { HttpMethod, HttpTransport } from "./transport";
import type {
	AdoptOutcome,
	AdoptPlan,
	AdoptProposal,
	AskDocument,
	AskRequest,
	BatchAnswer,
	ConversationDocument,
	ConversationNote,
	Diagnostic,
	EventsAnswer,
	ExtractAccepted,
	ExtractAcceptRequest,
	ExtractPlan,
	ExtractSelector,
	ExtractUndone,
	Health,
	IngestPlan,
	IngestWritten,
	LintAnswer,
	LintFixAnswer,
	ModelsReport,
	ModelsSuggestion,
	Pair,
	PairStatus,
	ReindexAnswer,
	RelatedDocument,
	RelatedRequest,
	Resolution,
	ResolveAnswer,
	SearchDocument,
	SearchRequest,
	Status,
	SwitchEstimate,
	VaultEvent,
	VaultSettings,
} from "./types";

/**
 * A failed call: `status` 0 means nothing answered (the sidecar is not running, or, with code
 * `timeout`, it took the call and went silent: alive but stuck; with `write_timeout` or
 * `write_interrupted`, a write it may have applied: see `unsure`).
 */
export class SidecarError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
		this.name = "SidecarError";
	}

	get unreachable(): boolean {
		return this.status === 0;
	}

	get timedOut(): boolean {
		return this.code === TIMEOUT_CODE || this.code === WRITE_TIMEOUT_CODE;
	}

	/**
	 * A write that got no answer in time, or whose connection broke after it was sent: the sidecar
	 * took it and may still apply it (a paused sidecar writes once it runs again) or may have
	 * applied it before it died, so it is neither done nor refused. Say so, and how to check or
	 * undo it, rather than "could not".
	 */
	get unsure(): boolean {
		return this.code === WRITE_TIMEOUT_CODE || this.code === WRITE_INTERRUPTED_CODE;
	}
}

const TIMEOUT_CODE = "timeout";
const WRITE_TIMEOUT_CODE = "write_timeout";
const WRITE_INTERRUPTED_CODE = "write_interrupted";

/**
 * Transport failures that happen before a request is sent (nothing listens, no such host, a
 * connection attempt that timed out, a path or header Node refuses to send): the sidecar cannot
 * have seen the call. Node's codes and Chromium's (Obsidian's requestUrl) alike. A bare ETIMEDOUT
 * is not here: on a connection already open ("read ETIMEDOUT") the request may have gone out.
 */
const NEVER_SENT =
	/\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|ERR_INVALID_URL|ERR_UNESCAPED_CHARACTERS|ERR_INVALID_CHAR|ERR_INVALID_HTTP_TOKEN|connect ETIMEDOUT|ERR_CONNECTION_TIMED_OUT|ERR_CONNECTION_REFUSED|ERR_CONNECTION_FAILED|ERR_NAME_NOT_RESOLVED|ERR_ADDRESS_UNREACHABLE|ERR_ADDRESS_INVALID|ERR_INTERNET_DISCONNECTED|ERR_UNSAFE_PORT|ERR_NETWORK_ACCESS_DENIED)\b/;

/** What an error says of itself: its code and message, and those of the attempts an AggregateError gathers (Node's, when every address it tried to connect to failed). */
function errorWords(err: unknown): string {
	const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
	const inner = err instanceof AggregateError ? err.errors.map(errorWords) : [];
	return [typeof code === "string" ? code : "", err instanceof Error ? err.message : String(err), ...inner].join(" ");
}

/**
 * The error for a request the transport could not complete. A write whose connection broke any
 * other way (reset, hang-up, an error Ora does not know) may have reached the sidecar, which may
 * have written before it died: that is `unsure`, as a timed-out write is, never "no sidecar".
 */
export function transportError(err: unknown, url: string, write: boolean): SidecarError {
	const reason = err instanceof Error ? err.message : String(err);
	if (write && !NEVER_SENT.test(errorWords(err))) {
		return new SidecarError(0, WRITE_INTERRUPTED_CODE, `The connection to the sidecar at ${url} broke before it answered (${reason}), so it may have applied the change.`);
	}
	return new SidecarError(0, "unreachable", `No sidecar at ${url} (${reason})`);
}

/** The status of the error a call ends with when it was cancelled (nginx's "client closed"). */
export const CANCELLED_STATUS = 499;

/** A call that got no answer (or, for a stream, no event) within `ms`; `write`: one that changes the vault or the index. */
export function timeoutError(ms: number, stream = false, write = false): SidecarError {
	if (write) return new SidecarError(0, WRITE_TIMEOUT_CODE, `The sidecar did not answer in ${seconds(ms)}, and may still apply the change.`);
	const text = stream ? `The sidecar sent nothing for ${seconds(ms)}.` : `The sidecar did not answer in ${seconds(ms)}.`;
	return new SidecarError(0, TIMEOUT_CODE, text);
}

/** Whether `err` is a write that timed out or broke off and may be applied (`SidecarError.unsure`). */
export function mayStillApply(err: unknown): boolean {
	return err instanceof SidecarError && err.unsure;
}

/**
 * What a failed write says when it may have applied (`mayStillApply`): "Not sure <what>: <why>
 * <check>", `check` saying how to see (or undo) whether it did, as trying again might do it twice.
 * Null for any other failure, which the caller reports as "Could not …".
 */
export function notSureText(err: unknown, what: string, check: string): string | null {
	return mayStillApply(err) ? `Not sure ${what}: ${(err as SidecarError).message} ${check}` : null;
}

export function cancelledError(): SidecarError {
	return new SidecarError(CANCELLED_STATUS, "cancelled", "Cancelled.");
}

export interface ClientOptions {
	baseUrl: string;
	/** Read on every call, so a token loaded after start-up is picked up. */
	token: () => string | null;
	/** Shorter (or longer) limits than CALL_TIMEOUTS for some kinds of call. */
	timeouts?: Partial<Timeouts>;
	/** A call timed out (the sidecar may be stuck: the plugin checks its health at once). */
	onTimeout?: (error: SidecarError) => void;
}

interface Waiting {
	timer: number;
	abort: AbortController;
	fail: (error: SidecarError) => void;
}

/** Typed client for the sidecar's HTTP API (docs/http-api.md). */
export class SidecarClient {
	private url: string;
	private readonly limits: Timeouts;
	/** Calls in flight, each with its timer: dispose() clears them all. */
	private readonly waiting = new Set<Waiting>();

	constructor(
		private readonly transport: HttpTransport,
		private readonly options: ClientOptions,
	) {
		this.url = options.baseUrl;
		this.limits = timeouts(options.timeouts);
	}

	/** How long a call of `kind` may go unanswered (the streams read theirs here too). */
	timeout(kind: CallKind): number {
		return this.limits[kind];
	}

	/** The plugin unloads: every call in flight fails as cancelled and its timer is cleared. */
	dispose(): void {
		for (const call of this.waiting) {
			window.clearTimeout(call.timer);
			call.abort.abort();
			call.fail(cancelledError());
		}
		this.waiting.clear();
	}

	get baseUrl(): string {
		return this.url;
	}

	/** Points the client at another address (the port a sidecar recorded when it started). */
	moveTo(baseUrl: string): void {
		this.url = baseUrl;
	}

	health(): Promise<Health> {
		return this.call<Health>("health", "GET", "/v1/health");
	}

	status(): Promise<Status> {
		return this.call<Status>("interactive", "GET", "/v1/status");
	}

	sendEvents(events: VaultEvent[]): Promise<EventsAnswer> {
		return this.call<EventsAnswer>("write", "POST", "/v1/events", { events });
	}

	search(request: SearchRequest): Promise<SearchDocument> {
		return this.call<SearchDocument>("interactive", "POST", "/v1/search", request);
	}

	related(request: RelatedRequest): Promise<RelatedDocument> {
		return this.call<RelatedDocument>("interactive", "POST", "/v1/related", request);
	}

	ask(request: AskRequest): Promise<AskDocument> {
		return this.call<AskDocument>("long", "POST", "/v1/ask", request);
	}

	conversation(id: string, privateMode = false): Promise<ConversationDocument> {
		const path = `/v1/conversations/${encodeURIComponent(id)}?private=${privateMode ? "true" : "false"}`;
		return this.call<ConversationDocument>("interactive", "GET", path);
	}

	/** Every conversation's chat note as memory last saw it, private ones included (for relinking moved notes). */
	async conversationNotes(): Promise<ConversationNote[]> {
		return (await this.call<{ conversations: ConversationNote[] }>("interactive", "GET", "/v1/conversations?private=true")).conversations;
	}

	/**
	 * Lints the editor's text. In private mode: links resolve against every note, private ones
	 * included, as Obsidian's own file list shows them to the vault's owner (outside private mode
	 * the sidecar reports a link to a private note exactly as a link to nothing).
	 */
	async lint(path: string, text: string): Promise<Diagnostic[]> {
		const answer = await this.call<LintAnswer>("interactive", "POST", "/v1/lint", { path, text, private: true });
		return answer.diagnostics;
	}

	lintFix(path: string): Promise<LintFixAnswer> {
		return this.call<LintFixAnswer>("write", "POST", "/v1/lint/fix", { path, private: true });
	}

	/** The vault's ora.yaml with defaults filled in (the same file the CLI reads). */
	vaultSettings(): Promise<VaultSettings> {
		return this.call<VaultSettings>("interactive", "GET", "/v1/vault-settings");
	}

	/** Adds a note, a folder (ending in `/`) or a glob to `lint.ignore` in the vault's ora.yaml. */
	lintIgnore(path: string): Promise<VaultSettings> {
		return this.call<VaultSettings>("write", "POST", "/v1/vault-settings/lint-ignore", { path });
	}

	/** Adds a folder (ending in `/`), note or glob to `exclude` in ora.yaml, or removes every entry naming it; the index follows. */
	setExcluded(path: string, excluded: boolean): Promise<VaultSettings> {
		return this.call<VaultSettings>("write", "POST", "/v1/vault-settings/exclude", { path, excluded });
	}

	/** The `ora adopt` dry run; writes nothing. */
	adoptPlan(): Promise<AdoptPlan> {
		return this.call<AdoptPlan>("long", "GET", "/v1/adopt");
	}

	/** Writes the confirmed proposals; a note changed since the plan is refused untouched. */
	adoptApply(proposals: AdoptProposal[]): Promise<AdoptOutcome> {
		const notes = proposals.map((p) => ({ path: p.path, digest: p.digest }));
		return this.call<AdoptOutcome>("write", "POST", "/v1/adopt/apply", { notes });
	}

	/** The notes a document kept in the vault would become; writes nothing. */
	ingestPlan(path: string, privateMode = false): Promise<IngestPlan> {
		return this.call<IngestPlan>("long", "POST", "/v1/ingest", { path, private: privateMode });
	}

	/** Writes a document's notes (only what changed); search then finds them instead of it. */
	ingestApply(path: string, privateMode = false): Promise<IngestWritten> {
		return this.call<IngestWritten>("long", "POST", "/v1/ingest", { path, apply: true, private: privateMode }, true); // a write that runs long
	}

	/** Restores the notes of the latest adoption byte for byte. */
	adoptUndo(): Promise<AdoptOutcome> {
		return this.call<AdoptOutcome>("write", "POST", "/v1/adopt/undo", {});
	}

	/** Proposed engrams from a conversation (a dry run: writes nothing); a language model may take a while. */
	extract(selector: ExtractSelector, privateMode = false): Promise<ExtractPlan> {
		return this.call<ExtractPlan>("long", "POST", "/v1/extract", { ...selector, private: privateMode });
	}

	/** Writes the accepted proposals (with the user's edits) as engrams. */
	extractAccept(selector: ExtractSelector, request: ExtractAcceptRequest, privateMode = false): Promise<ExtractAccepted> {
		return this.call<ExtractAccepted>("write", "POST", "/v1/extract/accept", { ...selector, ...request, private: privateMode });
	}

	/** Undoes the latest accepted extraction: its engrams removed, the chat note as it was. */
	extractUndo(privateMode = false): Promise<ExtractUndone> {
		return this.call<ExtractUndone>("write", "POST", "/v1/extract/undo", privateMode ? { private: true } : {});
	}

	/** What models are installed and chosen, and the catalogue `ora models pull` downloads from. */
	models(): Promise<ModelsReport> {
		return this.call<ModelsReport>("interactive", "GET", "/v1/models");
	}

	/** The vault's languages, and the multilingual embedder to offer when they are mostly not English. */
	modelsSuggestion(): Promise<ModelsSuggestion> {
		return this.call<ModelsSuggestion>("interactive", "GET", "/v1/models/suggestion");
	}

	/** What switching to embedder `name` would re-embed and how long it would take; changes nothing. */
	switchEstimate(name: string): Promise<SwitchEstimate> {
		return this.call<SwitchEstimate>("interactive", "POST", "/v1/models/switch-estimate", { name });
	}

	reindex(): Promise<ReindexAnswer> {
		return this.call<ReindexAnswer>("write", "POST", "/v1/reindex", {});
	}

	async contradictions(status: PairStatus | "all" = "open", privateMode = false): Promise<Pair[]> {
		const query = `?status=${encodeURIComponent(status)}${privateMode ? "&private=true" : ""}`;
		const answer = await this.call<{ pairs: Pair[] }>("interactive", "GET", `/v1/contradictions${query}`);
		return answer.pairs;
	}

	async scanContradictions(): Promise<Pair[]> {
		const answer = await this.call<{ pairs: Pair[] }>("long", "POST", "/v1/contradictions/scan", {});
		return answer.pairs;
	}

	resolve(id: string, resolution: Resolution, privateMode = false): Promise<ResolveAnswer> {
		const path = `/v1/contradictions/${encodeURIComponent(id)}/resolve`;
		return this.call<ResolveAnswer>("write", "POST", path, privateMode ? { ...resolution, private: true } : resolution);
	}

	/** Applies every open news proposal of a batch (one story), oldest first. */
	approveBatch(batch: string, privateMode = false): Promise<BatchAnswer> {
		const path = `/v1/contradictions/batches/${encodeURIComponent(batch)}/approve`;
		return this.call<BatchAnswer>("write", "POST", path, privateMode ? { private: true } : {});
	}

	/** Undoes the last resolution (or batch): its files back byte for byte, its pairs reopened. */
	undoResolution(privateMode = false): Promise<BatchAnswer> {
		return this.call<BatchAnswer>("write", "POST", "/v1/contradictions/undo", privateMode ? { private: true } : {});
	}

	/** `writes`: the call changes the vault or the index, so a timeout or a broken connection leaves it unsure (`SidecarError.unsure`). */
	private async call<T>(kind: CallKind, method: HttpMethod, path: string, body?: unknown, writes = kind === "write"): Promise<T> {
		const headers: Record<string, string> = { Accept: "application/json" };
		const token = this.options.token();
		if (token) headers.Authorization = `Bearer ${token}`;
		let payload: string | undefined;
		if (body !== undefined) {
			headers["Content-Type"] = "application/json";
			payload = JSON.stringify(body);
		}
		const url = this.url;
		const response = await this.within(this.limits[kind], writes, async (signal) => {
			try {
				return await this.transport.request({ method, url: url + path, headers, body: payload, signal });
			} catch (err) {
				throw transportError(err, url, writes);
			}
		});
		const parsed = parseJson(response.text);
		if (response.status >= 200 && response.status < 300) {
			if (parsed === undefined) {
				throw new SidecarError(response.status, "bad_response", `${path} did not answer JSON`);
			}
			return parsed as T;
		}
		throw errorFrom(response.status, parsed, path);
	}

	/**
	 * Settles with `work`, or fails with a timeout after `ms`; an answer arriving after that is
	 * dropped (the caller has moved on, perhaps to a newer call), and the request is aborted where
	 * the transport can abort (requestUrl cannot). A `write` that times out fails as `unsure`: the
	 * sidecar may have it already, and aborting the request does not take it back.
	 */
	private within<R>(ms: number, write: boolean, work: (signal: AbortSignal) => Promise<R>): Promise<R> {
		// `work` is an async function: it rejects rather than throws.
		return new Promise<R>((resolve, reject) => {
			const abort = new AbortController();
			const call: Waiting = {
				abort,
				fail: reject,
				timer: window.setTimeout(() => {
					this.waiting.delete(call);
					abort.abort();
					const error = timeoutError(ms, false, write);
					reject(error);
					this.options.onTimeout?.(error);
				}, ms),
			};
			this.waiting.add(call);
			const settle = (): boolean => {
				window.clearTimeout(call.timer);
				return this.waiting.delete(call);
			};
			work(abort.signal).then(
				(value) => {
					if (settle()) resolve(value);
				},
				(err: unknown) => {
					if (settle()) reject(err instanceof Error ? err : new Error(String(err)));
				},
			);
		});
	}
}

export function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/** Builds a SidecarError from the documented `{"error": {"code", "message"}}` body. */
export function errorFrom(status: number, body: unknown, path: string): SidecarError {
	if (isRecord(body) && isRecord(body.error)) {
		const code = typeof body.error.code === "string" ? body.error.code : "error";
		const message = typeof body.error.message === "string" ? body.error.message : code;
		return new SidecarError(status, code, message);
	}
	return new SidecarError(status, "http_error", `${path} answered HTTP ${status}`);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
