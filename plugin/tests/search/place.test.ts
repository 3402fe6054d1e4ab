import { describe, expect, it } from "vitest";

import { fileType, isIndexed, placeLabel, PROCESSABLE } from "../../src/search/place";
import { shapeResults } from "../../src/search/shape";
import { aResult, aSearchDocument } from "../builders";

describe("placeLabel", () => {
	it("names a document's type and page, a note's lines", () => {
		const doc = { path: "Papers/Tidal pumping.pdf", lineStart: null, lineEnd: null, page: 7, link: "Papers/Tidal pumping.pdf#page=7" };
		expect(placeLabel(doc)).toBe("PDF · page 7");
		expect(placeLabel({ ...doc, path: "Saved/page.html", page: null, link: "Saved/page.html" })).toBe("HTML");
		expect(placeLabel({ path: "Engrams/A.md", lineStart: 3, lineEnd: 9, page: null, link: null })).toBe("lines 3–9");
	});

	it("knows a note from another file, dots in folder names aside", () => {
		expect(fileType("a/b.MD")).toBeNull();
		expect(fileType("v1.2/notes")).toBeNull();
		expect(fileType("x/Deck.pptx")).toBe("PPTX");
	});

	it("keeps a document hit's page and link on its card", () => {
		const result = aResult({ path: "paper #2.pdf", line_start: null, line_end: null, page: 3, link: "paper #2.pdf#page=3" });
		const card = shapeResults(aSearchDocument([result])).cards[0];
		expect(card).toMatchObject({ page: 3, link: "paper #2.pdf#page=3", lineStart: null });
		expect(card && placeLabel(card)).toBe("PDF · page 3");
	});

	it("knows from schema/documents.json which files are indexed and which can be processed", () => {
		expect(["md", "pdf", "PDF", "epub", "html", "txt"].every(isIndexed)).toBe(true);
		expect(isIndexed("png")).toBe(false);
		expect([...PROCESSABLE].sort()).toEqual(["docx", "epub", "pdf", "pptx"]);
	});
});
