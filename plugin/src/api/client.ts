import type { HttpMethod, HttpTransport } from "./transport";
import type {
	AdoptOutcome,
	AdoptPlan,
	AdoptProposal,
	AskDocument,
	AskRequest,
	BatchAnswer,
	ConversationDocument,
	Diagnostic,
	EventsAnswer,
	Health,
	LintAnswer,
	LintFixAnswer,
	ModelsReport,
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

/** A failed call: `status` 0 means nothing answered (the sidecar is not running). */
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
}

export interface ClientOptions {
	baseUrl: string;
	/** Read on every call, so a token loaded after start-up is picked up. */
	token: () => string | null;
}

/** Typed client for the sidecar's HTTP API (docs/http-api.md). */
export class SidecarClient {
	private url: string;

	constructor(
		private readonly transport: HttpTransport,
		private readonly options: ClientOptions,
	) {
		this.url = options.baseUrl;
	}

	get baseUrl(): string {
		return this.url;
	}

	/** Points the client at another address (the port a sidecar recorded when it started). */
	moveTo(baseUrl: string): void {
		this.url = baseUrl;
	}

	health(): Promise<Health> {
		return this.call<Health>("GET", "/v1/health");
	}

	status(): Promise<Status> {
		return this.call<Status>("GET", "/v1/status");
	}

	sendEvents(events: VaultEvent[]): Promise<EventsAnswer> {
		return this.call<EventsAnswer>("POST", "/v1/events", { events });
	}

	search(request: SearchRequest): Promise<SearchDocument> {
		return this.call<SearchDocument>("POST", "/v1/search", request);
	}

	related(request: RelatedRequest): Promise<RelatedDocument> {
		return this.call<RelatedDocument>("POST", "/v1/related", request);
	}

	ask(request: AskRequest): Promise<AskDocument> {
		return this.call<AskDocument>("POST", "/v1/ask", request);
	}

	conversation(id: string, privateMode = false): Promise<ConversationDocument> {
		const path = `/v1/conversations/${encodeURIComponent(id)}?private=${privateMode ? "true" : "false"}`;
		return this.call<ConversationDocument>("GET", path);
	}

	async lint(path: string, text: string): Promise<Diagnostic[]> {
		const answer = await this.call<LintAnswer>("POST", "/v1/lint", { path, text });
		return answer.diagnostics;
	}

	lintFix(path: string): Promise<LintFixAnswer> {
		return this.call<LintFixAnswer>("POST", "/v1/lint/fix", { path });
	}

	/** The vault's ora.yaml with defaults filled in (the same file the CLI reads). */
	vaultSettings(): Promise<VaultSettings> {
		return this.call<VaultSettings>("GET", "/v1/vault-settings");
	}

	/** Adds a note, a folder (ending in `/`) or a glob to `lint.ignore` in the vault's ora.yaml. */
	lintIgnore(path: string): Promise<VaultSettings> {
		return this.call<VaultSettings>("POST", "/v1/vault-settings/lint-ignore", { path });
	}

	/** The `ora adopt` dry run; writes nothing. */
	adoptPlan(): Promise<AdoptPlan> {
		return this.call<AdoptPlan>("GET", "/v1/adopt");
	}

	/** Writes the confirmed proposals; a note changed since the plan is refused untouched. */
	adoptApply(proposals: AdoptProposal[]): Promise<AdoptOutcome> {
		const notes = proposals.map((p) => ({ path: p.path, digest: p.digest }));
		return this.call<AdoptOutcome>("POST", "/v1/adopt/apply", { notes });
	}

	/** Restores the notes of the latest adoption byte for byte. */
	adoptUndo(): Promise<AdoptOutcome> {
		return this.call<AdoptOutcome>("POST", "/v1/adopt/undo", {});
	}

	/** What models are installed and chosen, and the catalogue `ora models pull` downloads from. */
	models(): Promise<ModelsReport> {
		return this.call<ModelsReport>("GET", "/v1/models");
	}

	/** What switching to embedder `name` would re-embed and how long it would take; changes nothing. */
	switchEstimate(name: string): Promise<SwitchEstimate> {
		return this.call<SwitchEstimate>("POST", "/v1/models/switch-estimate", { name });
	}

	reindex(): Promise<ReindexAnswer> {
		return this.call<ReindexAnswer>("POST", "/v1/reindex", {});
	}

	async contradictions(status: PairStatus | "all" = "open", privateMode = false): Promise<Pair[]> {
		const query = `?status=${encodeURIComponent(status)}${privateMode ? "&private=true" : ""}`;
		const answer = await this.call<{ pairs: Pair[] }>("GET", `/v1/contradictions${query}`);
		return answer.pairs;
	}

	async scanContradictions(): Promise<Pair[]> {
		const answer = await this.call<{ pairs: Pair[] }>("POST", "/v1/contradictions/scan", {});
		return answer.pairs;
	}

	resolve(id: string, resolution: Resolution, privateMode = false): Promise<ResolveAnswer> {
		const path = `/v1/contradictions/${encodeURIComponent(id)}/resolve`;
		return this.call<ResolveAnswer>("POST", path, privateMode ? { ...resolution, private: true } : resolution);
	}

	/** Applies every open news proposal of a batch (one story), oldest first. */
	approveBatch(batch: string, privateMode = false): Promise<BatchAnswer> {
		const path = `/v1/contradictions/batches/${encodeURIComponent(batch)}/approve`;
		return this.call<BatchAnswer>("POST", path, privateMode ? { private: true } : {});
	}

	/** Undoes the last resolution (or batch): its files back byte for byte, its pairs reopened. */
	undoResolution(privateMode = false): Promise<BatchAnswer> {
		return this.call<BatchAnswer>("POST", "/v1/contradictions/undo", privateMode ? { private: true } : {});
	}

	private async call<T>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
		const headers: Record<string, string> = { Accept: "application/json" };
		const token = this.options.token();
		if (token) headers.Authorization = `Bearer ${token}`;
		let payload: string | undefined;
		if (body !== undefined) {
			headers["Content-Type"] = "application/json";
			payload = JSON.stringify(body);
		}
		let response;
		try {
			response = await this.transport.request({
				method,
				url: this.url + path,
				headers,
				body: payload,
			});
		} catch (err) {
			const reason = err instanceof Error ? err.message : String(err);
			throw new SidecarError(0, "unreachable", `No sidecar at ${this.url} (${reason})`);
		}
		const parsed = parseJson(response.text);
		if (response.status >= 200 && response.status < 300) {
			if (parsed === undefined) {
				throw new SidecarError(response.status, "bad_response", `${path} did not answer JSON`);
			}
			return parsed as T;
		}
		throw errorFrom(response.status, parsed, path);
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
