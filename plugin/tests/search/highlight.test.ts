import { describe, expect, it } from "vitest";

import { highlight, queryTerms, snippet } from "../../src/search/highlight";

describe("queryTerms", () => {
	it("lower-cases, dedups, drops one-letter words and puts longer terms first", () => {
		expect(queryTerms("Spaced a spaced Repetition?")).toEqual(["repetition", "spaced"]);
	});

	it("keeps accented letters and digits", () => {
		expect(queryTerms("Café 2024")).toEqual(["café", "2024"]);
	});
});

describe("highlight", () => {
	it("marks terms at word starts, case-insensitively", () => {
		expect(highlight("Spaced repetition works; prepare well.", ["rep", "spaced"])).toEqual([
			{ text: "Spaced", hit: true },
			{ text: " ", hit: false },
			{ text: "rep", hit: true },
			{ text: "etition works; prepare well.", hit: false },
		]);
	});

	it("marks adjacent hits separately and keeps the text intact", () => {
		const segments = highlight("memory, memory.", ["memory"]);
		expect(segments.filter((s) => s.hit)).toHaveLength(2);
		expect(segments.map((s) => s.text).join("")).toBe("memory, memory.");
	});

	it("treats regex characters in the query as text", () => {
		expect(highlight("abc", ["a.c"])).toEqual([{ text: "abc", hit: false }]);
		expect(highlight("a a.c", ["a.c"]).filter((s) => s.hit)).toEqual([{ text: "a.c", hit: true }]);
	});

	it("returns the whole text unmarked without terms", () => {
		expect(highlight("plain", [])).toEqual([{ text: "plain", hit: false }]);
		expect(highlight("", ["x"])).toEqual([]);
	});
});

describe("snippet", () => {
	const long = `${"intro words ".repeat(40)}the key finding about retrieval practice ${"outro words ".repeat(40)}`;

	it("centres the window on the first hit and marks both cuts", () => {
		const s = snippet(long, ["retrieval"], 120);
		expect(s).toContain("retrieval practice");
		expect(s.startsWith("…")).toBe(true);
		expect(s.endsWith("…")).toBe(true);
		expect(s.length).toBeLessThanOrEqual(122);
	});

	it("returns short text whole, with whitespace collapsed", () => {
		expect(snippet("a\n\n  b", ["a"])).toBe("a b");
	});

	it("starts at the beginning when nothing matches", () => {
		expect(snippet(long, ["absent"], 60).startsWith("intro")).toBe(true);
	});
});

describe("highlight in scripts without spaces", () => {
	it("highlights Chinese and Japanese terms inside a run of text, where no word boundary stands", () => {
		const terms = queryTerms("酵母の発酵");
		expect(terms).toEqual(["酵母", "発酵"]);
		const hits = highlight("天然酵母で発酵させたパン", terms).filter((s) => s.hit).map((s) => s.text);
		expect(hits).toEqual(["酵母", "発酵"]);
		expect(highlight("野生酵母面包", queryTerms("酵母")).filter((s) => s.hit).map((s) => s.text)).toEqual(["酵母"]);
	});

	it("highlights a Korean term with its particle attached, and still only word starts in other scripts", () => {
		expect(highlight("서울에서 빵을", queryTerms("서울")).filter((s) => s.hit).map((s) => s.text)).toEqual(["서울"]);
		expect(highlight("prepare a repetition of 酵母", queryTerms("rep 酵母")).filter((s) => s.hit).map((s) => s.text)).toEqual(["rep", "酵母"]);
	});
});
