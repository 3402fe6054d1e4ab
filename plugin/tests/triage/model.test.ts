import { describe, expect, it } from "vitest";

import { judgeLabel, statusLabel } from "../../src/triage/labels";
import { confirmText, evidenceRows, pairCard, resolution } from "../../src/triage/model";
import { aPair } from "../builders";

describe("pairCard", () => {
	it("shows both claims with titles, line ranges, judge and evidence", () => {
		const card = pairCard(aPair());
		expect(card.heading).toBe("Two of your notes disagree");
		expect(card.judge).toBe("Found by the wording rules");
		expect(card.status).toBe("Open");
		expect(card.a).toMatchObject({ side: "a", title: "Coffee is healthy", lines: "line 6" });
		expect(card.b).toMatchObject({ side: "b", lines: "lines 6–7" });
		expect(card.score).toBe("0.91");
		expect(card.evidence).toEqual([
			{ label: "Why they clash", value: "lowers/raises" },
			{ label: "How alike the articles are", value: "81 %" },
			{ label: "Rule", value: "antonym" },
		]);
	});

	it("labels where each claim came from and the suggestion keeping the user's note", () => {
		const pair = aPair({
			provenance: { a: "user", b: "ai-derived" },
			suggested: { action: "wrong", note: "Engrams/Coffee harms the heart.md", reason: "B came from the AI side" },
			evidence: { cue: "antonym", ai_derived: [false, true], told_provenance: true },
		});
		const card = pairCard(pair);
		expect([card.a.origin, card.b.origin]).toEqual(["Your own note", "AI-derived"]);
		expect(card.suggestion).toEqual({
			label: "Archive B",
			reason: "B came from the AI side",
			resolution: { action: "wrong", note: pair.b.path },
		});
		// the provenance is on the claims, not repeated as evidence; the LLM judge's knowing is said
		expect(card.evidence.map((r) => r.label)).toEqual(["Why they clash", "The model knew"]);
		const changed = pairCard(aPair({ suggested: { action: "changed-mind", newer: pair.a.path, reason: "A is yours" } }));
		expect(changed.suggestion?.label).toBe("A supersedes B");
		expect(changed.suggestion?.resolution).toEqual({ action: "changed-mind", newer: pair.a.path });
	});

	it("shows no origin or suggestion when the sidecar gives none", () => {
		const card = pairCard(aPair());
		expect([card.a.origin, card.b.origin, card.suggestion]).toEqual([null, null, null]);
	});

	it("proposes that b supersedes a for news pairs", () => {
		expect(pairCard(aPair({ kind: "news" })).proposal).toContain("B supersedes A");
	});
});

describe("resolution", () => {
	it("builds the documented request bodies", () => {
		expect(resolution("changed-mind", "b.md")).toEqual({ action: "changed-mind", newer: "b.md" });
		expect(resolution("wrong", "a.md")).toEqual({ action: "wrong", note: "a.md" });
		expect(resolution("wrong", "a.md", true)).toEqual({ action: "wrong", note: "a.md", delete: true });
		expect(resolution("flag", null)).toEqual({ action: "flag" });
		expect(resolution("dismiss", null)).toEqual({ action: "dismiss" });
	});

	it("refuses a write action without a chosen note", () => {
		expect(() => resolution("changed-mind", null)).toThrow(/Choose/);
		expect(() => resolution("wrong", null)).toThrow(/Choose/);
	});
});

describe("confirmText", () => {
	const pair = aPair();

	it("names the note that gains the link and the one archived", () => {
		const text = confirmText({ action: "changed-mind", newer: pair.b.path }, pair);
		expect(text).toContain(`"${pair.b.path}" will get a supersedes link to [[Coffee is healthy]]`);
		expect(text).toContain(`"${pair.a.path}" will be tagged archived`);
	});

	it("says whether a wrong note is archived or deleted", () => {
		expect(confirmText({ action: "wrong", note: pair.a.path }, pair)).toContain("tagged archived");
		expect(confirmText({ action: "wrong", note: pair.a.path, delete: true }, pair)).toContain("deleted");
	});

	it("formats nested evidence as JSON and missing values as a dash", () => {
		expect(evidenceRows({ nli: { contradiction: 1 }, note: null })).toEqual([
			{ label: "Nli", value: '{"contradiction":1}' },
			{ label: "Note", value: "–" },
		]);
	});
});

describe("plain words", () => {
	it("says how a pair was resolved without internal identifiers", () => {
		expect(statusLabel({ status: "resolved", resolution: { action: "changed-mind" } })).toBe("Resolved: you changed your mind");
		expect(statusLabel({ status: "resolved", resolution: { action: "wrong", deleted: true } })).toBe("Resolved: one note was wrong, and deleted");
		expect(statusLabel({ status: "flagged" })).toBe("Flagged for reflection");
		expect(statusLabel({ status: "dismissed" })).toBe("Dismissed: not a contradiction");
	});

	it("names judges and explains a fallback from a failed language model", () => {
		expect(judgeLabel("llm:gpt-4o-mini")).toBe("the language model (gpt-4o-mini)");
		expect(judgeLabel("onnx-nli:nli:0123456789ab")).toBe("the local entailment model");
		const rows = evidenceRows({ cue: "negation", fallback: "rules", judge_error: "HTTP 500", note_similarity: 0.71, dates: ["2021-03-04", null], ai_derived: [false, true] });
		expect(rows).toEqual([
			{ label: "Why they clash", value: "one of them says the opposite (a “not”)" },
			{ label: "Judged by", value: "the wording rules, because the chosen judge failed on this pair" },
			{ label: "What went wrong", value: "HTTP 500" },
			{ label: "How alike the notes are", value: "71 %" },
			{ label: "Dates (A, B)", value: "2021-03-04, no date" },
		]); // ai_derived is shown on each claim (the pair's provenance), not as evidence
	});

	it("says in words why two claims giving one thing different values clash", () => {
		expect(evidenceRows({ cue: "value", values: ["Berlin", "Munich"] })).toEqual([
			{ label: "Why they clash", value: "they give the same thing a different value (a place, a day, a date, a name)" },
			{ label: "The values", value: "Berlin / Munich" },
		]);
	});
});
