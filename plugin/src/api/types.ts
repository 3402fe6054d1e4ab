// The sidecar's JSON documents, as described in docs/http-api.md. Only shapes: no behaviour.

export interface Health {
	status: string;
	version: string;
}

export interface ReconcileStatus {
	running: boolean;
	phase: string | null;
	done: number;
	total: number;
}

export interface Status {
	/** Absolute path of the vault the sidecar serves. */
	vault: string;
	/** The sidecar's process id. */
	pid: number;
	files: number;
	chunks: number;
	/** Files waiting to be applied or being applied. */
	queue: number;
	/** True while any index write runs or waits (reconcile, watcher batch, file events). */
	indexing: boolean;
	reconcile: ReconcileStatus;
	model: string;
	reranker: { name: string; reason: string | null };
	contradictions_open: number;
	last_error: string | null;
	cleaning: CleaningStatus;
	/** Documents in the vault that could not be read, with the reason (private ones left out). */
	unreadable_documents?: { path: string; message: string }[];
}

/** `POST /v1/ingest` without `apply`: the notes a document would become (docs/documents.md). */
export interface IngestPlan {
	document: string;
	notes: { path: string; page_start: number | null; page_end: number | null }[];
	/** The notes are written and match the document: applying writes nothing. */
	unchanged: boolean;
	/** Notes of pages the document no longer has: applying moves them to the trash (unless edited). */
	stale: string[];
	/** Notes applying refuses to write over (edited since, or the user's own): it fails until they are moved. */
	conflicts: string[];
	/** Notes of pages the document no longer has, edited since: applying keeps them where they are. */
	kept: string[];
	/** Why part of the document is not read (a page or size limit), or null. */
	cut: string | null;
}

/** `POST /v1/ingest` with `apply`: the notes written, and those of pages gone, moved to the trash. */
export interface IngestWritten {
	written: string[];
	trashed: string[];
	/** Only when there are some: notes of pages the document no longer has, edited since, kept. */
	kept?: string[];
}

/** The contradiction scan, run by the sidecar in the background after changes. */
export interface CleaningStatus {
	running: boolean;
	phase: string;
	done: number;
	total: number;
	scans: number;
	last_finished: string | null;
	fallbacks: number;
}

export type VaultEventKind = "created" | "modified" | "deleted" | "renamed";

export interface VaultEvent {
	kind: VaultEventKind;
	path: string;
	old_path?: string;
}

export interface EventsAnswer {
	accepted: number;
	deduplicated: number;
	queued?: boolean;
}

/** Search filters, applied by the sidecar inside its stores before the top-k cut. */
export interface SearchFilters {
	types?: string[];
	folders?: string[];
	tags?: string[];
	since?: string;
	until?: string;
	/** Topic clusters (declared or assigned; any case). */
	clusters?: string[];
	/** Chat notes' conversation ids. */
	conversations?: string[];
}

export interface SearchRequest {
	query: string;
	k?: number;
	private?: boolean;
	include_archived?: boolean;
	rerank?: boolean;
	namespace?: string;
	filters?: SearchFilters;
}

export interface RelatedRequest {
	path: string;
	k?: number;
	private?: boolean;
	include_archived?: boolean;
	filters?: SearchFilters;
}

/** Notes related to `path`: search results, one per note, never the note itself. */
export interface RelatedDocument {
	path: string;
	namespace?: string;
	results: SearchResult[];
}

export interface AskRequest {
	question: string;
	conversation?: string;
	private?: boolean;
	k?: number;
	/** Web results too, as `[Wn]` passages (when the sidecar has a SearXNG instance). */
	web?: boolean;
}

export interface Citation {
	n: number;
	path: string;
	title?: string;
	line_start: number | null;
	line_end: number | null;
	/** A document's page and the link that opens it there (docs/documents.md). */
	page?: number | null;
	link?: string;
	text: string;
	private: boolean;
	cited: boolean;
}

/** A grounded answer; `generator` is "none" when the answer is extractive (no model). */
export interface AskDocument {
	question: string;
	answer: string;
	generator: string;
	generator_reason?: string;
	conversation?: string | null;
	/** The conversation's chat note, vault-relative (with a conversation). */
	conversation_note?: string | null;
	citations: Citation[];
}

export interface Turn {
	id: number;
	role: string;
	content: string;
	created: string;
	private: boolean;
}

/** A conversation's chat note where the sidecar's memory last matched it (GET /v1/conversations). */
export interface ConversationNote {
	conversation: string;
	namespace: string;
	note: string;
}

export interface ConversationDocument {
	conversation: string;
	turns: Turn[];
}

/** Why a result ranks where it does; ranks are 1-based, null when absent from that list. */
export interface Why {
	dense_rank: number | null;
	bm25_rank: number | null;
	fused: number;
	rerank: number | null;
	similarity: number;
	type_weight: number;
	decay: number;
	cluster: string | null;
	newer_in_cluster: number;
	/** Related notes only: the two notes are linked. */
	linked?: boolean;
	/** Search results only: the passage holds the whole query word for word, which lifts it. */
	phrase?: boolean;
}

export interface SearchResult {
	path: string;
	title?: string;
	/** The effective type: the note's own, or inferred from the vault's folder rules. */
	type: string;
	/** True when `type` was inferred (the note carries no Ora type). */
	type_inferred?: boolean;
	score: number;
	flags: string[];
	private: boolean;
	text: string;
	heading_path?: string[];
	/** Null for a document's page (see `page`). */
	line_start: number | null;
	line_end: number | null;
	/** A document kept in the vault (a PDF): its 1-based page, null for a format without pages. */
	page?: number | null;
	/** A document's hit: what Obsidian opens at the page, `path#page=N`. */
	link?: string;
	/** Other notes holding a copy of this text; their copies are left out of the results. */
	duplicates?: string[];
	why: Partial<Why>;
}

/** Present while the index is still being built: results come from what is indexed so far. */
export interface IndexingProgress {
	done: number;
	total: number;
	percent: number;
	/** "words": notes being read into the word index; "meaning": every note is findable by its words, embedding follows. */
	phase?: "words" | "meaning";
}

export interface SearchDocument {
	query: string;
	namespace?: string;
	rerank?: string;
	rerank_reason?: string;
	results: SearchResult[];
	indexing?: IndexingProgress;
}

/** `info` is a hint, e.g. for a note that has not adopted Ora's schema (docs/lint-codes.md). */
export type Severity = "error" | "warning" | "info";

export interface Diagnostic {
	path: string;
	line: number;
	severity: Severity;
	code: string;
	message: string;
}

/** The vault's own settings (`VAULT/ora.yaml` with defaults filled in, docs/vault-settings.md). */
export interface VaultSettings {
	file: string;
	exists: boolean;
	/** Folder prefix (ending in `/`) -> type for notes without an Ora type; the longest wins. */
	folders: Record<string, string>;
	untyped_type: string;
	exclude: string[];
	/** Paths whose notes and documents are private (a document has no tags to say so). */
	private: string[];
	obsidian_excluded: string[];
	obsidian_templates: string[];
	/** Tags community plugins use as their markers (Tasks' global filter), without `#`: lint knows them. */
	obsidian_plugin_tags: string[];
	lint: { untyped: "hint" | "off"; ignore: string[] };
	chats_folder: string;
	problems: string[];
	/** Why an edit of `exclude` would be refused now (GET only; null when it would not be). */
	exclude_refused?: string | null;
}

/** One note's proposed Ora frontmatter (`GET /v1/adopt`, docs/adopt.md). */
export interface AdoptProposal {
	path: string;
	hash: string;
	/** Names this exact proposal when it is applied. */
	digest: string;
	/** The properties set, in the order written (type, nexus, tags, dates; only those missing). */
	values: Record<string, unknown>;
	why: Record<string, string>;
	removed: string[];
	new_block: boolean;
	private: boolean;
	diff: string;
}

export interface AdoptPlan {
	summary: {
		proposed: number;
		new_frontmatter: number;
		with_nexus: number;
		by_type: Record<string, number>;
		skipped: number;
		already_adopted: number;
		private_hidden: number;
	};
	proposals: AdoptProposal[];
	skipped: { path: string; reason: string; private: boolean }[];
}

/** What an apply (`applied`) or an undo (`restored`) wrote, and what it refused. */
export interface AdoptOutcome {
	applied?: string[];
	restored?: string[];
	unchanged: string[];
	refused: { path: string; reason: string }[];
	journal: string | null;
	private_hidden: number;
}

export interface LintAnswer {
	diagnostics: Diagnostic[];
}

export interface LintFixAnswer {
	changed: boolean;
	diagnostics: Diagnostic[];
}

export interface Claim {
	path: string;
	line_start: number;
	line_end: number;
	text: string;
}

export type PairStatus = "open" | "resolved" | "flagged" | "dismissed";

export interface Pair {
	id: string;
	kind: "engram" | "resource" | "news";
	a: Claim;
	b: Claim;
	judge: string;
	score: number;
	evidence?: Record<string, unknown>;
	status: PairStatus;
	/** News pairs proposed together share a batch id. */
	batch?: string;
	/** How a triaged pair was resolved. */
	resolution?: Record<string, unknown>;
	/** Either note is private: listed and resolvable only in private mode. */
	private?: boolean;
	/** Contradictions: whether each claim's note is tagged ai-derived, or the user's own. */
	provenance?: { a: Provenance; b: Provenance };
	/** When exactly one side is ai-derived: the resolution keeping the user's own note. */
	suggested?: Suggested;
}

export type Provenance = "ai-derived" | "user";

/** A resolution the sidecar suggests, with why; without `reason` it is a request body. */
export type Suggested =
	| { action: "changed-mind"; newer: string; reason: string }
	| { action: "wrong"; note: string; reason: string };

export type Resolution =
	| { action: "changed-mind"; newer: string }
	| { action: "flag" }
	| { action: "wrong"; note: string; delete?: boolean; client_trash?: boolean }
	| { action: "dismiss" };

export interface ResolveAnswer {
	pair: Pair;
	changed: string[];
}

/** A batch approval or an undo: the pairs it touched, and the files it wrote. */
export interface BatchAnswer {
	pairs: Pair[];
	changed: string[];
}

export interface ReindexAnswer {
	started: boolean;
}

/** Events from GET /v1/events/stream, by their `event:` name. */
export type StreamEvent =
	| { type: "progress"; phase: string; done: number; total: number }
	| { type: "index"; files: number; chunks: number }
	| { type: "contradictions"; open: number }
	| ({ type: "cleaning" } & CleaningStatus);

/** One model `ora models pull` can download (GET /v1/models `catalogue`). */
export interface CatalogueModel {
	name: string;
	/** "embedder", "reranker" (cross-encoder) or "nli" (the contradiction judge). */
	kind: string;
	repo: string;
	about: string;
	folder: string;
	installed: boolean;
	/** Bytes on disk once pulled; null before (the hub is asked only by a pull). */
	size: number | null;
	/** About how many MB a pull downloads (the catalogue's figure), to quote before it starts. */
	download_mb: number | null;
	/** The sidecar's settings use it. */
	active: boolean;
}

/** The packaged multilingual embedder in GET /v1/models: built by `ora models build` or the first `ora serve`. */
export interface PackagedEmbedder {
	/** Its `embed_model` value: use-multilingual-v3. */
	name: string;
	/** Built. */
	available: boolean;
	about: string;
	file: string | null;
	/** The id its vectors carry, once built. */
	model_id: string | null;
}

/** GET /v1/models: the part of `ora models --json` the settings show. */
export interface ModelsReport {
	models_dir: string;
	embedder: {
		/** The `embed_model` setting (auto, q8, fp32, int8, use-multilingual-v3 or a pulled embedder's name). */
		setting: string;
		/** The variant that setting resolves to; null when none is installed. */
		chosen: string | null;
		/** The packaged variants whose model file is present. */
		available: string[];
		model_id?: string;
		/** Whether the chosen embedder knows English only; absent when none is chosen. */
		english_only?: boolean;
		/** The multilingual embedder that comes with Ora (not a catalogue row, never pulled). */
		multilingual: PackagedEmbedder;
	};
	catalogue: CatalogueModel[];
}

/** A `progress` event of POST /v1/models/pull. */
export interface PullProgress {
	file: string;
	done: number;
	/** null when the hub did not say how big the file is. */
	total: number | null;
}

/** The `installed` event of POST /v1/models/pull (the manifest, trimmed to what the plugin reads). */
export interface PulledModel {
	name: string;
	folder: string;
	/** The running sidecar loads the model when restarted. */
	restart: boolean;
}

/** POST /v1/models/switch-estimate. */
export interface SwitchEstimate {
	name: string;
	/** The model id the index was embedded with (null before the first index). */
	from: string | null;
	to: string;
	chunks: number;
	estimate_s: number;
	/** False when `name` is the model in use or nothing is indexed. */
	reembeds: boolean;
}

/** The multilingual embedder to offer a vault mostly not in English (GET /v1/models/suggestion). */
export interface EmbedderSuggestion {
	/** The embedder to choose: a catalogue name (pulled first), or the packaged one. */
	model: string;
	/** The model's description (schema/models.json). */
	about: string;
	/**
	 * True: the model comes with the sidecar (built by `ora models build` or at start, never pulled;
	 * `download_mb` is null and `installed` means built). False: a catalogue model from the hub.
	 */
	packaged: boolean;
	share_not_english: number;
	/** About how many MB the pull downloads; null for a packaged model. */
	download_mb: number | null;
	/** There to use: pulled (a catalogue model) or built (a packaged one). */
	installed: boolean;
	/** The index's chunks, all re-embedded by the switch, in about `estimate_s` seconds. */
	chunks: number;
	estimate_s: number;
}

/** GET /v1/models/suggestion: the vault's languages (code → share of notes) and what to offer. */
export interface ModelsSuggestion {
	languages: Record<string, number>;
	suggestion: EmbedderSuggestion | null;
}

/** Which conversation to extract engrams from: by its id, or by its chat note (vault-relative). */
export type ExtractSelector = { conversation: string } | { note: string };

/** A proposed engram (`POST /v1/extract`, docs/http-api.md); nothing is written until accepted. */
export interface ExtractProposal {
	/** Names this proposal when it is accepted. */
	id: string;
	title: string;
	text: string;
	/** The substance came from the assistant's side of the conversation. */
	ai_derived: boolean;
	subtype: string | null;
	/** A wikilink (or several) to the matrix note of the conversation's topic, when inferred. */
	nexus: string | string[] | null;
	/** The turn of the chat note it comes from. */
	source: { path: string; line_start: number; line_end: number };
	/** Engrams it contradicts: kept, the pair goes to the triage queue. */
	contradicts: string[];
	/** Optional: the proposal comes from a private turn and would become a private engram. */
	private?: boolean;
}

export type DropReason = "pushback" | "duplicate" | "not-a-claim";

/** What the quality gate removed, and why; `of` is the engram a duplicate repeats. */
export interface ExtractDropped {
	text: string;
	reason: DropReason;
	of?: string;
}

export interface ExtractPlan {
	/** "llm:NAME" or "rules". */
	extractor: string;
	/** Why the model's answer was not used (the rules ran instead). */
	fallback?: string;
	proposals: ExtractProposal[];
	dropped: ExtractDropped[];
}

/** A user's own wording of a proposal, sent with the accept. */
export interface ProposalEdit {
	title: string;
	text: string;
}

export interface ExtractAcceptRequest {
	accept: "all" | string[];
	edits?: Record<string, ProposalEdit>;
}

/** The engrams written, and how many contradiction pairs they put in the triage queue. */
export interface ExtractAccepted {
	written: string[];
	queued_contradictions: number;
}

/** `POST /v1/extract/undo`: the engrams removed (to `.trash/`), the chat note restored, and what was refused (edited since). */
export interface ExtractUndone {
	removed?: string[];
	restored: string[];
	refused?: { path: string; reason: string }[];
	/** Private notes left out of the answer outside private mode. */
	private_hidden?: number;
}
