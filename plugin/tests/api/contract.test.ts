// The plugin's view of the API against the server's OpenAPI document (sidecar/server/openapi.json):
// every field the plugin reads must be declared there, so a renamed field fails here first.
import { existsSync, readFileSync } from "fs";
import { resolve } from "path";

import { describe, expect, it } from "vitest";

const OPENAPI = resolve(__dirname, "../../../sidecar/server/openapi.json");

interface Schema {
	properties?: Record<string, unknown>;
	required?: string[];
}

/** Fields the plugin reads, per OpenAPI schema name. */
const READS: Record<string, string[]> = {
	Health: ["status", "version"],
	Status: ["vault", "pid", "files", "chunks", "queue", "reconcile", "model", "contradictions_open", "last_error", "cleaning"],
	Cleaning: ["running", "phase", "done", "total", "scans", "last_finished", "fallbacks"],
	Reconcile: ["running", "phase", "done", "total"],
	SearchResponse: ["query", "rerank", "rerank_reason", "results", "indexing"],
	Indexing: ["done", "total", "percent"],
	SearchResult: ["path", "title", "type", "type_inferred", "score", "flags", "private", "text", "heading_path", "line_start", "line_end", "why"],
	Why: ["dense_rank", "bm25_rank", "fused", "rerank", "similarity", "type_weight", "decay", "cluster", "newer_in_cluster"],
	Diagnostic: ["line", "severity", "code", "message"],
	LintFixResponse: ["changed", "diagnostics"],
	Pair: ["id", "kind", "a", "b", "judge", "score", "evidence", "status", "batch", "resolution", "private"],
	Span: ["path", "line_start", "line_end", "text"],
	ResolveResponse: ["pair", "changed"],
	ApproveResponse: ["pairs", "changed"],
	EventsResponse: ["accepted", "deduplicated"],
	ReindexResponse: ["started"],
	VaultSettings: ["file", "exists", "folders", "untyped_type", "exclude", "obsidian_excluded", "lint", "chats_folder", "problems"],
	AdoptPlan: ["summary", "proposals", "skipped"],
	AdoptProposal: ["path", "hash", "digest", "values", "why", "removed", "new_block", "private", "diff"],
	AdoptSkipped: ["path", "reason", "private"],
	AdoptOutcome: ["applied", "restored", "unchanged", "refused", "journal", "private_hidden"],
	ConversationNotesResponse: ["conversations"],
	ConversationNote: ["conversation", "namespace", "note"],
	ExtractPlan: ["extractor", "fallback", "proposals", "dropped"],
	ExtractProposal: ["id", "title", "text", "ai_derived", "subtype", "nexus", "source", "contradicts"],
	ExtractDropped: ["text", "reason", "of"],
	ExtractAccepted: ["written", "queued_contradictions"],
	ExtractUndone: ["removed", "restored", "refused"],
	ModelsSuggestion: ["languages", "suggestion"],
	EmbedderSuggestion: ["model", "about", "packaged", "share_not_english", "download_mb", "installed", "chunks", "estimate_s"],
};

/** Fields the plugin sends, per request schema. */
const SENDS: Record<string, string[]> = {
	SearchRequest: ["query", "k", "private", "include_archived"],
	LintRequest: ["path", "text"],
	LintFixRequest: ["path"],
	EventsRequest: ["events"],
	FileEvent: ["kind", "path", "old_path"],
	LintIgnoreRequest: ["path"],
	PrivateModeRequest: ["private"],
	ExtractRequest: ["conversation", "note", "private"],
	ExtractAcceptRequest: ["conversation", "note", "private", "accept", "edits"],
	AdoptApplyRequest: ["notes"],
};

describe.skipIf(!existsSync(OPENAPI))("OpenAPI contract", () => {
	const doc = existsSync(OPENAPI)
		? (JSON.parse(readFileSync(OPENAPI, "utf8")) as { components: { schemas: Record<string, Schema> } })
		: { components: { schemas: {} } };
	const schemas = doc.components.schemas;

	it.each(Object.entries({ ...READS, ...SENDS }))("%s declares every field the plugin uses", (name, fields) => {
		const declared = Object.keys(schemas[name]?.properties ?? {});
		expect(fields.filter((f) => !declared.includes(f))).toEqual([]);
	});

	it("requires nothing the plugin does not send", () => {
		for (const [name, fields] of Object.entries(SENDS)) {
			expect((schemas[name]?.required ?? []).filter((f) => !fields.includes(f)), name).toEqual([]);
		}
	});
});
