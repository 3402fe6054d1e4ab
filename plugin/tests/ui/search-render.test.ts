import { describe, expect, it } from "vitest";

import { shapeResults, type ResultCard } from "../../src/search/shape";
import { renderSearchState } from "../../src/ui/search-render";
import { aResult, aSearchDocument } from "../builders";

function render(state: Parameters<typeof renderSearchState>[1], onOpen: (c: ResultCard) => void = () => undefined) {
	const el = document.createElement("div");
	const items = renderSearchState(el, state, onOpen);
	return { el, items };
}

describe("renderSearchState", () => {
	it("draws title, type badge, flags, heading path, score and highlighted snippet", () => {
		const doc = aSearchDocument([aResult({ flags: ["incubating"], private: true })]);
		const { el, items } = render({ kind: "results", query: doc.query, list: shapeResults(doc) });
		expect(items).toHaveLength(1);
		const item = items[0] as HTMLElement;
		expect(item.querySelector(".ora-result-title")?.textContent).toBe("Spaced repetition");
		expect(item.querySelector(".ora-type")?.textContent).toBe("engram");
		expect([...item.querySelectorAll(".ora-flag")].map((b) => b.textContent)).toEqual(["Incubating", "Private"]);
		expect(item.querySelector(".ora-result-heading")?.textContent).toBe(" › Spaced repetition › Why it works");
		expect(item.querySelector(".ora-score")?.textContent).toBe("0.71");
		expect([...item.querySelectorAll("mark.ora-hit")].map((m) => m.textContent)).toEqual(["Spaced", "repetition"]);
		expect(item.querySelector(".ora-why")?.getAttribute("aria-label")).toContain("Dense rank: #1");
		expect(el.querySelector(".ora-rerank-note")?.textContent).toBe("Not re-ranked: no model");
	});

	it("keeps note text as text, never as markup", () => {
		const doc = aSearchDocument([aResult({ text: "<img src=x onerror=alert(1)> spaced", title: "<b>t</b>" })]);
		const { el } = render({ kind: "results", query: "spaced", list: shapeResults(doc) });
		expect(el.querySelector("img")).toBeNull();
		expect(el.querySelector("b")).toBeNull();
		expect(el.querySelector(".ora-snippet")?.textContent).toContain("<img src=x");
	});

	it("opens the clicked result", () => {
		const opened: string[] = [];
		const doc = aSearchDocument([aResult({ path: "a.md" }), aResult({ path: "b.md" })]);
		const { items } = render({ kind: "results", query: "x", list: shapeResults(doc) }, (c) => opened.push(c.path));
		items[1]?.click();
		expect(opened).toEqual(["b.md"]);
	});

	it("shows indexing progress above results and an inferred type in italics", () => {
		const doc = aSearchDocument([aResult({ type: "resource", type_inferred: true })], {
			indexing: { done: 420, total: 1000, percent: 42 },
		});
		const { el } = render({ kind: "results", query: "x", list: shapeResults(doc) });
		expect(el.querySelector(".ora-indexing-note")?.textContent).toBe(
			"Indexing 42 %: results come from the notes indexed so far",
		);
		expect(el.querySelector(".ora-type")?.classList.contains("ora-type-inferred")).toBe(true);
	});

	it("says indexing is under way when nothing is found yet", () => {
		const { el } = render({ kind: "empty", query: "q", indexingNote: "Indexing 3 %: results come from the notes indexed so far" });
		expect(el.querySelector(".ora-indexing-note")?.textContent).toContain("Indexing 3 %");
	});

	it.each([
		[{ kind: "idle" } as const, "Type to search your vault."],
		[{ kind: "loading", query: "q" } as const, "Searching for “q”…"],
		[{ kind: "empty", query: "q", indexingNote: null } as const, "No results for “q”."],
		[{ kind: "error", query: "q", message: "No sidecar at http://127.0.0.1:47113" } as const, "No sidecar at http://127.0.0.1:47113"],
	])("shows the %o state as a message", (state, text) => {
		const { el, items } = render(state);
		expect(items).toEqual([]);
		expect(el.querySelector(".ora-message")?.textContent).toBe(text);
	});
});
