import { describe, expect, it } from "vitest";

import { SidecarError, timeoutError } from "../../src/api/client";
import {
	advancePull,
	canSwitchToFastest,
	canSwitchToPackaged,
	embedderInUse,
	embedderLabel,
	englishEmbedderToUse,
	FASTEST_PACKAGED,
	formatBytes,
	formatDuration,
	isInUse,
	modelRows,
	modelsErrorMessage,
	multilingualToOffer,
	PULL_STARTING,
	pullFraction,
	pullText,
	switchMessage,
} from "../../src/models/model";
import type { CatalogueModel, ModelsReport, ModelsSuggestion } from "../../src/api/types";
import { aCatalogueModel, aModelsReport, aPackagedMultilingual } from "../builders";

describe("download progress", () => {
	it("follows each file's bytes and counts the files finished", () => {
		let state = advancePull(PULL_STARTING, { file: "model.onnx", done: 1_500_000, total: 6_000_000 });
		expect(pullFraction(state)).toBe(0.25);
		expect(pullText(state)).toBe("Downloading model.onnx: 1.5 MB of 6.0 MB (25%)");
		state = advancePull(state, { file: "model.onnx", done: 6_000_000, total: 6_000_000 });
		state = advancePull(state, { file: "tokenizer.json", done: 711_000, total: 711_661 });
		expect(pullText(state)).toBe("Downloading tokenizer.json: 711 kB of 712 kB (99%) (1 file done)");
		state = advancePull(state, { file: "config.json", done: 600, total: null });
		expect(pullFraction(state)).toBeNull();
		expect(pullText(state)).toBe("Downloading config.json: 600 B (2 files done)");
	});

	it("says it is connecting before the first event, and what happened after the last", () => {
		expect(pullText(PULL_STARTING)).toBe("Connecting to the model hub…");
		expect(pullFraction(PULL_STARTING)).toBeNull();
		expect(pullText({ phase: "installed", kind: "embedder" })).toMatch(/Choose Use/);
		expect(pullText({ phase: "installed", kind: "reranker" })).toMatch(/Restart the sidecar/);
		expect(pullText({ phase: "cancelled" })).toMatch(/resumes/);
		expect(pullText({ phase: "failed", message: "Offline." })).toBe("Offline.");
	});
});

describe("sizes and durations", () => {
	it.each([
		[0, "0 B"],
		[999, "999 B"],
		[1_000, "1.0 kB"],
		[133_093_490, "133 MB"],
		[90_900_000, "90.9 MB"],
		[2_500_000_000, "2.5 GB"],
		[999_999, "1.0 MB"],
		[99_960, "100 kB"],
	])("%d bytes read %s", (bytes, text) => expect(formatBytes(bytes)).toBe(text));

	it.each([
		[0.4, "under a second"],
		[42.4, "about 42 s"],
		[59.6, "about 1 min"],
		[185, "about 3 min"],
		[3600, "about 1 h"],
		[4_830, "about 1 h 21 min"],
	])("%d s read %s", (seconds, text) => expect(formatDuration(seconds)).toBe(text));
});

describe("modelRows", () => {
	it("describes each model's kind, size and state, and offers Use only for an installed embedder not in use", () => {
		const report = aModelsReport([
			aCatalogueModel({ installed: true, size: 133_093_490 }),
			aCatalogueModel({ name: "ms-marco-minilm-l6", kind: "reranker", installed: true, active: true, size: 90_900_000 }),
			aCatalogueModel({ name: "nli-deberta-v3-xsmall", kind: "nli" }),
			aCatalogueModel({ name: "multilingual-e5-small", download_mb: 487 }),
		]);
		const rows = modelRows(report);
		expect(rows.map((r) => r.summary)).toEqual([
			"Embedder · 133 MB · installed",
			"Cross-encoder (re-ranks search results) · 90.9 MB · installed, in use",
			"NLI cross-encoder (judges contradictions) · not installed",
			"Embedder · about 487 MB to download · not installed",
		]);
		expect(rows.map((r) => r.switchable)).toEqual([true, false, false, false]);
	});
});

describe("the embedder in use", () => {
	it("names the packaged model or the pulled one, and offers the way back only from a pulled one", () => {
		const packaged = aModelsReport();
		expect(embedderInUse(packaged)).toBe("Embedder in use: the packaged all-MiniLM-L6-v2 (int8).");
		expect(canSwitchToPackaged(packaged)).toBe(false);
		expect(isInUse(packaged, "auto")).toBe(true);
		expect(isInUse(packaged, "bge-small-en-v1.5")).toBe(false);
		const pulled = aModelsReport([aCatalogueModel({ installed: true, active: true })], "bge-small-en-v1.5");
		expect(embedderInUse(pulled)).toBe("Embedder in use: bge-small-en-v1.5.");
		expect(canSwitchToPackaged(pulled)).toBe(true);
		expect(isInUse(pulled, "bge-small-en-v1.5")).toBe(true);
		expect(isInUse(pulled, "auto")).toBe(false);
		expect(embedderInUse(aModelsReport([], null))).toBe("No embedder is installed.");
	});
});

describe("the faster packaged variant", () => {
	const built = (chosen: string | null, available = ["q8", "fp32", "int8"]) => {
		const report = aModelsReport(undefined, chosen);
		return { ...report, embedder: { ...report.embedder, available } };
	};

	it("is offered to an index on fp32 or int8 once q8 is built", () => {
		expect(canSwitchToFastest(built("fp32"))).toBe(true);
		expect(canSwitchToFastest(built("int8"))).toBe(true);
		expect(isInUse(built("q8"), FASTEST_PACKAGED)).toBe(true);
	});

	it("is not offered when q8 is in use, not built, or a pulled embedder is in use", () => {
		expect(canSwitchToFastest(built("q8"))).toBe(false);
		expect(canSwitchToFastest(built("fp32", ["fp32", "int8"]))).toBe(false);
		expect(canSwitchToFastest(built("bge-small-en-v1.5"))).toBe(false);
		expect(canSwitchToFastest(built(null))).toBe(false);
	});
});

describe("the packaged multilingual embedder", () => {
	const USE = "use-multilingual-v3";
	/** GET /v1/models with `chosen` in use, MiniLM's variants `available` built, and the multilingual embedder built or not. */
	const report = (chosen: string | null, available = ["q8", "fp32", "int8"], built = true, catalogue?: CatalogueModel[]): ModelsReport => {
		const base = aModelsReport(catalogue, chosen);
		return { ...base, embedder: { ...base.embedder, available, multilingual: aPackagedMultilingual(built) } };
	};
	const offering = (model: string): ModelsSuggestion => ({
		languages: { es: 0.9, en: 0.1 },
		suggestion: { model, about: "", packaged: true, share_not_english: 0.9, download_mb: null, installed: true, chunks: 40, estimate_s: 10 },
	});

	it("is named as the multilingual embedder when in use, not as all-MiniLM-L6-v2", () => {
		expect(embedderInUse(report(USE))).toBe("Embedder in use: the packaged multilingual embedder (use-multilingual-v3).");
		expect(embedderLabel(report(USE), "q8")).toBe("the packaged all-MiniLM-L6-v2 (q8)");
		expect(isInUse(report(USE), USE)).toBe(true);
	});

	it("in use, offers the way back to English: the best MiniLM variant built, named outright since auto would keep it", () => {
		expect(englishEmbedderToUse(report(USE))).toBe("q8");
		expect(englishEmbedderToUse(report(USE, ["fp32", "int8"]))).toBe("fp32");
		expect(englishEmbedderToUse(report(USE, []))).toBeNull();
		expect(canSwitchToPackaged(report(USE))).toBe(false);
		expect(canSwitchToFastest(report(USE))).toBe(false);
		expect(isInUse(report("q8"), "q8")).toBe(true);
	});

	it("offers no way back to English when the multilingual embedder is not in use", () => {
		expect(englishEmbedderToUse(report("q8"))).toBeNull();
		expect(englishEmbedderToUse(report("bge-small-en-v1.5", undefined, true, [aCatalogueModel({ installed: true, active: true })]))).toBeNull();
		expect(englishEmbedderToUse(report(null))).toBeNull();
	});

	it("once built, is offered to an index on MiniLM or a pulled embedder, even on a mostly English vault", () => {
		const english = { languages: { en: 0.7, de: 0.3 }, suggestion: null };
		expect(multilingualToOffer(report("q8"), english)).toBe(USE);
		expect(multilingualToOffer(report("int8"), null)).toBe(USE);
		const pulled = report("bge-small-en-v1.5", undefined, true, [aCatalogueModel({ installed: true, active: true })]);
		expect(multilingualToOffer(pulled, english)).toBe(USE);
		expect(multilingualToOffer(report("q8"), offering("multilingual-e5-small"))).toBe(USE); // the language offer names another model
	});

	it("is not offered when not built, in use, with no embedder, or while the language offer shows the same switch", () => {
		expect(multilingualToOffer(report("q8", undefined, false), null)).toBeNull();
		expect(multilingualToOffer(report(USE), null)).toBeNull();
		expect(multilingualToOffer(report(null), null)).toBeNull();
		expect(multilingualToOffer(report("q8"), offering(USE))).toBeNull();
	});

	it("is not offered while a pulled multilingual embedder is in use", () => {
		const e5 = report("multilingual-e5-small", undefined, true, [aCatalogueModel({ name: "multilingual-e5-small", installed: true, active: true })]);
		expect(multilingualToOffer({ ...e5, embedder: { ...e5.embedder, english_only: false } }, null)).toBeNull();
		expect(multilingualToOffer({ ...e5, embedder: { ...e5.embedder, english_only: true } }, null)).toBe(USE);
	});
});

describe("switchMessage", () => {
	const estimate = { name: "bge-small-en-v1.5", from: "all-MiniLM-L6-v2:int8:abc", to: "bge-small-en-v1.5:onnx:def", chunks: 1562, estimate_s: 95, reembeds: true };

	it("says that every chunk is re-embedded and how long it takes", () => {
		expect(switchMessage("bge-small-en-v1.5", estimate)).toBe(
			"Switching to bge-small-en-v1.5 re-embeds every chunk of the index (1,562 chunks), about 2 min on this computer. " +
				"The sidecar restarts to switch; until the re-embedding finishes, search finds only the notes done so far.",
		);
	});

	it("says when nothing is re-embedded", () => {
		expect(switchMessage("int8", { ...estimate, to: estimate.from, reembeds: false, estimate_s: 0 })).toMatch(/^int8 is the model the index was built with/);
		expect(switchMessage("x", { ...estimate, from: null, chunks: 0, reembeds: false })).toMatch(/^Nothing is indexed yet/);
	});
});

describe("modelsErrorMessage", () => {
	it("gives each cause its own message", () => {
		const messages = [
			new SidecarError(0, "unreachable", "No sidecar at http://127.0.0.1:1"),
			new SidecarError(500, "hub_unreachable", "cannot reach https://huggingface.co"),
			new SidecarError(500, "checksum_mismatch", "sha256 differs"),
			new SidecarError(409, "conflict", "another model is being pulled"),
			new SidecarError(0, "stream_ended", "ended"),
			new SidecarError(503, "model_unavailable", "https://hub/x does not exist (HTTP 404)"),
			timeoutError(180_000, true),
		].map(modelsErrorMessage);
		expect(new Set(messages).size).toBe(messages.length);
		expect(messages[0]).toMatch(/^The sidecar is not running/);
		expect(messages[1]).toMatch(/offline/);
		expect(messages[2]).toMatch(/checksum/);
		expect(messages[3]).toMatch(/another vault's sidecar or `ora models pull`/); // the models folder is shared
		expect(messages[5]).toContain("does not exist (HTTP 404)");
		expect(messages[6]).toBe("The sidecar sent nothing for 3 min. Try again (a download resumes); if it keeps happening, restart the sidecar.");
		expect(modelsErrorMessage(new Error("boom"))).toBe("Unexpected error: boom");
	});
});
