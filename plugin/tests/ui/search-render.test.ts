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
		const doc = aSearchDocument([aResult({ text: "<img src=x onerror=alert(1)> spaced if a < b > c", title: "<b>t</b>" })]);
		const { el } = render({ kind: "results", query: "spaced", list: shapeResults(doc) });
		expect(el.querySelector("img")).toBeNull();
		expect(el.querySelector("b")).toBeNull();
		expect(el.querySelector(".ora-result-title")?.textContent).toBe("<b>t</b>");
		expect(el.querySelector(".ora-snippet")?.textContent).toBe("spaced if a < b > c");
	});

	it("shows snippets as plain text, without Markdown marks", () => {
		const text = "## Why it works\n\n**Spaced** reviews beat _cramming_, see [[Forgetting curve|the curve]] and `code`.\n- a #tag";
		const doc = aSearchDocument([aResult({ text })]);
		const { el } = render({ kind: "results", query: "spaced", list: shapeResults(doc) });
		expect(el.querySelector(".ora-snippet")?.textContent).toBe(
			"Why it works Spaced reviews beat cramming, see the curve and code. a tag",
		);
	});

	it("draws one row per note, its other passages folded under it", () => {
		const doc = aSearchDocument([
			aResult({ path: "a.md", line_start: 3, line_end: 4 }),
			aResult({ path: "b.md" }),
			aResult({ path: "a.md", line_start: 9, line_end: 12 }),
		]);
		const opened: string[] = [];
		const { el, items } = render({ kind: "results", query: "x", list: shapeResults(doc) }, (c) => opened.push(`${c.path}:${c.lineStart}`));
		expect(items).toHaveLength(2);
		expect(items.map((i) => i.getAttribute("aria-selected"))).toEqual(["false", "false"]);
		expect(el.querySelector(".ora-results")?.getAttribute("role")).toBe("listbox");
		expect(el.querySelector(".ora-results")?.getAttribute("tabindex")).toBe("0");
		const fold = items[0]?.querySelector(".ora-fold") as HTMLElement;
		expect(fold.textContent).toBe("1 more passage");
		expect(items[0]?.querySelector(".ora-others")?.classList.contains("is-collapsed")).toBe(true);
		fold.click();
		expect(fold.getAttribute("aria-expanded")).toBe("true");
		(items[0]?.querySelector(".ora-other") as HTMLElement).click();
		expect(opened).toEqual(["a.md:9"]);
	});

	it("keeps shown results, dimmed, while a new query runs", () => {
		const list = shapeResults(aSearchDocument([aResult()]));
		const { el, items } = render({ kind: "results", query: "x", list, pending: true });
		expect(items).toHaveLength(1);
		expect(el.classList.contains("is-pending")).toBe(true);
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
