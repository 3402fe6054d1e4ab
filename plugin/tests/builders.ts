// Small builders for test data, shaped like the documented HTTP answers (docs/http-api.md).
import type { HttpRequest, HttpResponse, HttpTransport } from "../src/api/transport";
import type { AdoptPlan, AdoptProposal, CatalogueModel, Diagnostic, ExtractPlan, ExtractProposal, ModelsReport, PackagedEmbedder, Pair, SearchDocument, SearchResult } from "../src/api/types";

export function aResult(change: Partial<SearchResult> = {}): SearchResult {
	return {
		path: "Engrams/Spaced repetition.md",
		title: "Spaced repetition",
		type: "engram",
		score: 0.7134,
		flags: [],
		private: false,
		text: "Spaced repetition schedules reviews at growing intervals, so memory is refreshed just before it fades.",
		heading_path: ["Spaced repetition", "Why it works"],
		line_start: 12,
		line_end: 20,
		why: {
			dense_rank: 1,
			bm25_rank: 3,
			fused: 0.0321,
			rerank: 0.83,
			similarity: 0.83,
			type_weight: 1.0,
			decay: 1.0,
			cluster: null,
			newer_in_cluster: 0,
		},
		...change,
	};
}

export function aSearchDocument(results: SearchResult[], change: Partial<SearchDocument> = {}): SearchDocument {
	return { query: "spaced repetition", namespace: "default", rerank: "none", rerank_reason: "no model", results, ...change };
}

export function aDiagnostic(change: Partial<Diagnostic> = {}): Diagnostic {
	return {
		path: "Engrams/Note.md",
		line: 2,
		severity: "error",
		code: "unknown-type",
		message: "type 'engramm' is not one of the twelve types",
		...change,
	};
}

export function aPair(change: Partial<Pair> = {}): Pair {
	return {
		id: "p1",
		kind: "engram",
		a: { path: "Engrams/Coffee is healthy.md", line_start: 6, line_end: 6, text: "Coffee lowers the risk of heart disease." },
		b: { path: "Engrams/Coffee harms the heart.md", line_start: 6, line_end: 7, text: "Coffee raises the risk of heart disease." },
		judge: "rules",
		score: 0.91,
		evidence: { rule: "antonym", cue: "lowers/raises", similarity: 0.8123 },
		status: "open",
		...change,
	};
}

/** A transport answering from a list of canned responses and recording every request. */
/** In a script, an answer that does not come (requestUrl against a stuck sidecar) until `late()` sends one. */
export const HANG = "hang";

export class ScriptedTransport implements HttpTransport {
	readonly requests: HttpRequest[] = [];
	/** The hung requests' resolvers, in order: `late(n, response)` answers the n-th. */
	private readonly hung: ((response: HttpResponse) => void)[] = [];

	constructor(private readonly answers: (HttpResponse | Error | typeof HANG)[]) {}

	async request(req: HttpRequest): Promise<HttpResponse> {
		this.requests.push(req);
		const answer = this.answers.shift();
		if (answer === undefined) throw new Error("no scripted answer left");
		if (answer === HANG) return new Promise((resolve) => this.hung.push(resolve));
		if (answer instanceof Error) throw answer;
		return answer;
	}

	/** Answers the n-th hung request, after its caller may have given up on it. */
	late(n: number, response: HttpResponse): void {
		this.hung[n]?.(response);
	}
}

export function json(status: number, body: unknown): HttpResponse {
	return { status, text: JSON.stringify(body) };
}

export function aProposal(change: Partial<AdoptProposal> = {}): AdoptProposal {
	return {
		path: "Recipes/Dal.md",
		hash: "ab".repeat(32),
		digest: "d1",
		values: { type: "resource", nexus: ["[[Recipes index]]"], tags: ["recipe"], "date created": "2026-11-02", "date modified": "2026-11-30" },
		why: { type: "the vault's type for untyped notes", nexus: "hub Recipes index.md" },
		removed: ["tag"],
		new_block: false,
		private: false,
		diff: "--- a/Recipes/Dal.md\n+++ b/Recipes/Dal.md\n@@ -1,3 +1,9 @@\n ---\n-tag: recipe\n+tags:\n+- recipe\n+type: resource\n",
		...change,
	};
}

export function anAdoptPlan(proposals: AdoptProposal[], change: Partial<AdoptPlan["summary"]> = {}): AdoptPlan {
	return {
		summary: {
			proposed: proposals.length,
			new_frontmatter: proposals.filter((p) => p.new_block).length,
			with_nexus: proposals.length,
			by_type: { resource: proposals.length },
			skipped: 1,
			already_adopted: 3,
			private_hidden: 0,
			...change,
		},
		proposals,
		skipped: [{ path: "Books/Own type.md", reason: "has its own `type: book`", private: false }],
	};
}

export function aCatalogueModel(change: Partial<CatalogueModel> = {}): CatalogueModel {
	return {
		name: "bge-small-en-v1.5",
		kind: "embedder",
		repo: "BAAI/bge-small-en-v1.5",
		about: "BGE small English v1.5 (33M parameters, 384 dimensions): a stronger embedder.",
		folder: "/m/embedders/bge-small-en-v1.5",
		installed: false,
		size: null,
		download_mb: null,
		active: false,
		...change,
	};
}

/** The packaged multilingual embedder as GET /v1/models reports it: not built, unless `built`. */
export function aPackagedMultilingual(built = false): PackagedEmbedder {
	return {
		name: "use-multilingual-v3",
		available: built,
		about: "Universal Sentence Encoder multilingual v3 by Google: 16 languages, 512 dimensions, 69M parameters",
		file: built ? "/m/use-multilingual-v3/model.onnx" : null,
		model_id: built ? "use-multilingual-v3:onnx:0123456789ab" : null,
	};
}

/** GET /v1/models with the packaged int8 embedder in use and `catalogue` (default: bge and the re-ranker, not pulled). */
export function aModelsReport(catalogue?: CatalogueModel[], chosen: string | null = "int8"): ModelsReport {
	return {
		models_dir: "/m",
		embedder: { setting: "auto", chosen, available: ["int8"], multilingual: aPackagedMultilingual() },
		catalogue: catalogue ?? [
			aCatalogueModel(),
			aCatalogueModel({ name: "ms-marco-minilm-l6", kind: "reranker", repo: "cross-encoder/ms-marco-MiniLM-L-6-v2", about: "MS MARCO cross-encoder.", folder: "/m/reranker" }),
		],
	};
}

/** A proposed engram as `POST /v1/extract` returns it: the assistant's claim, from turn lines 12–14. */
export function anExtractProposal(change: Partial<ExtractProposal> = {}): ExtractProposal {
	return {
		id: "x1",
		title: "Caffeine's half-life is five to six hours",
		text: "Caffeine's half-life is five to six hours, so an afternoon coffee is still active at bedtime.",
		ai_derived: true,
		subtype: "fact",
		nexus: ["[[Sleep and Energy]]"],
		source: { path: "Chats/Ora/ask-1.md", line_start: 12, line_end: 14 },
		contradicts: [],
		...change,
	};
}

/** A plan from the rule extractor: `proposals` (default: one), one pushback and one duplicate dropped. */
export function anExtractPlan(proposals: ExtractProposal[] = [anExtractProposal()], change: Partial<ExtractPlan> = {}): ExtractPlan {
	return {
		extractor: "rules",
		proposals,
		dropped: [
			{ text: "Decaf has no caffeine at all.", reason: "pushback" },
			{ text: "Caffeine after 2 pm reduces deep sleep.", reason: "duplicate", of: "Engrams/Caffeine after 2 pm reduces deep sleep.md" },
		],
		...change,
	};
}
