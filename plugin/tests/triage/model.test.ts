import { describe, expect, it } from "vitest";

import { confirmText, evidenceRows, pairCard, resolution } from "../../src/triage/model";
import { aPair } from "../builders";

describe("pairCard", () => {
	it("shows both claims with titles, line ranges, judge and evidence", () => {
		const card = pairCard(aPair());
		expect(card.heading).toBe("Engram contradiction");
		expect(card.a).toMatchObject({ side: "a", title: "Coffee is healthy", lines: "line 6" });
		expect(card.b).toMatchObject({ side: "b", lines: "lines 6–7" });
		expect(card.score).toBe("0.91");
		expect(card.evidence).toEqual([
			{ label: "Rule", value: "antonym" },
			{ label: "Cue", value: "lowers/raises" },
			{ label: "Similarity", value: "0.812" },
		]);
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
