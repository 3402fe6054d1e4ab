import { describe, expect, it } from "vitest";

import { shapeResults, titleFromPath, whyLines } from "../../src/search/shape";
import { aResult, aSearchDocument } from "../builders";

describe("shapeResults", () => {
	it("builds title, heading path, score and highlighted snippet", () => {
		const { cards } = shapeResults(aSearchDocument([aResult()]));
		const card = cards[0];
		expect(card?.title).toBe("Spaced repetition");
		expect(card?.headingPath).toBe("Spaced repetition › Why it works");
		expect(card?.score).toBe("0.71");
		expect(card?.snippet.filter((s) => s.hit).map((s) => s.text)).toEqual(["Spaced", "repetition"]);
	});

	it("turns flags and the private field into badges", () => {
		const doc = aSearchDocument([aResult({ flags: ["incubating", "archived"], private: true }), aResult()]);
		const [first, second] = shapeResults(doc).cards;
		expect(first?.badges).toEqual(["incubating", "archived", "private"]);
		expect(second?.badges).toEqual([]);
	});

	it("names the other notes holding a copy of the text in the why tooltip", () => {
		const copies = ["Daily/2024-04-22.md", "Daily/2024-04-23.md", "Daily/2024-04-24.md", "Daily/2024-04-25.md"];
		const [many, one, none] = shapeResults(
			aSearchDocument([aResult({ duplicates: copies }), aResult({ duplicates: ["Daily/2024-04-26.md"] }), aResult()]),
		).cards;
		expect(many?.why.at(-1)).toBe("Same text in 4 other notes: 2024-04-22, 2024-04-23, 2024-04-24 and 1 more");
		expect(one?.why.at(-1)).toBe("Same text in 1 other note: 2024-04-26");
		expect(none?.why.some((line) => line.startsWith("Same text"))).toBe(false);
	});

	it("falls back to the file name when the result has no title", () => {
		const { cards } = shapeResults(aSearchDocument([aResult({ title: undefined, path: "Resources/Deep work.md" })]));
		expect(cards[0]?.title).toBe("Deep work");
		expect(titleFromPath("a/b/c.MD")).toBe("c");
	});

	it("marks inferred types and notes indexing progress only while indexing", () => {
		const doc = aSearchDocument([aResult({ type_inferred: true }), aResult()], { indexing: { done: 1, total: 8, percent: 12 } });
		const list = shapeResults(doc);
		expect(list.cards.map((c) => c.typeInferred)).toEqual([true, false]);
		expect(list.indexingNote).toBe("Indexing 12 %: results come from the notes indexed so far");
		expect(shapeResults(aSearchDocument([aResult()])).indexingNote).toBeNull();
	});

	it("says search is by words while meaning-based search is being built", () => {
		const words = aSearchDocument([aResult()], { indexing: { done: 3, total: 8, percent: 37, phase: "words" } });
		expect(shapeResults(words).indexingNote).toBe("Indexing 37 %: results come from the notes indexed so far");
		const meaning = aSearchDocument([aResult()], { indexing: { done: 420, total: 1000, percent: 42, phase: "meaning" } });
		expect(shapeResults(meaning).indexingNote).toBe("Searching by words; meaning-based search 42 % ready");
		expect(shapeResults({ ...meaning, results: [] }).indexingNote).toBe("Searching by words; meaning-based search 42 % ready");
	});

	it("says which re-ranker ran, or why none did", () => {
		expect(shapeResults(aSearchDocument([], { rerank: "onnx:ms-marco" })).rerankNote).toBe("Re-ranked by onnx:ms-marco");
		expect(shapeResults(aSearchDocument([], { rerank: "none", rerank_reason: "no model found" })).rerankNote).toBe(
			"Not re-ranked: no model found",
		);
	});
});

describe("whyLines", () => {
	it("says when a passage holds the query word for word", () => {
		const held = whyLines({ dense_rank: 4, bm25_rank: 1, fused: 0.7, rerank: null, similarity: 0.7, type_weight: 1, decay: 1, cluster: null, newer_in_cluster: 0, phrase: true });
		expect(held.at(-1)).toBe("Holds your words as you wrote them");
		const near = whyLines({ dense_rank: 1, bm25_rank: 2, fused: 0.6, rerank: null, similarity: 0.6, type_weight: 1, decay: 1, cluster: null, newer_in_cluster: 0, phrase: false });
		expect(near).not.toContain("Holds your words as you wrote them");
	});

	it("explains ranks, weights and decay", () => {
		const lines = whyLines({ dense_rank: 2, bm25_rank: null, fused: 0.03, rerank: null, similarity: 0.5, type_weight: 0.8, decay: 0.7, cluster: "sleep", newer_in_cluster: 2 });
		expect(lines).toEqual([
			"Dense rank: #2",
			"Keyword rank: not in list",
			"Fused score: 0.0300",
			"Re-rank: –",
			"Similarity: 0.500",
			"Type weight: 0.80",
			"Decay: 0.70 (2 newer notes in cluster)",
			"Cluster: sleep",
		]);
	});
});
