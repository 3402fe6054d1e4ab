import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { SearchDocument, SearchRequest } from "../../src/api/types";
import { moveSelection, SearchController, type SearchState } from "../../src/search/controller";
import { aResult, aSearchDocument } from "../builders";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A search function whose answers the test releases by hand, in any order. */
function manualSearch() {
	const calls: { request: SearchRequest; answer: (doc: SearchDocument) => void; fail: (e: Error) => void }[] = [];
	const search = (request: SearchRequest) =>
		new Promise<SearchDocument>((answer, fail) => calls.push({ request, answer, fail }));
	return { calls, search };
}

describe("SearchController", () => {
	const privateDoc = () =>
		aSearchDocument([
			aResult({ path: "Diary/Secret.md", private: true, flags: ["private"], text: "my secret plan" }),
			aResult({ path: "Engrams/Public.md" }),
		]);
	const shownPaths = (state: SearchState | undefined) => (state?.kind === "results" ? state.list.cards.map((c) => c.path) : []);
	/** A panel in private mode whose search for "plan" has been sent, its answer not yet back. */
	async function searchingInPrivate() {
		const { calls, search } = manualSearch();
		const states: SearchState[] = [];
		const c = new SearchController({ search, onState: (s) => states.push(s), delayMs: 200, k: 7 });
		c.setOptions({ private: true });
		c.setQuery("plan");
		await vi.advanceTimersByTimeAsync(200);
		return { calls, states, c };
	}

	it("hides private results at once when private mode is switched off", async () => {
		const { calls, states, c } = await searchingInPrivate();
		calls[0]?.answer(privateDoc());
		await vi.advanceTimersByTimeAsync(0);
		expect(shownPaths(states.at(-1))).toEqual(["Diary/Secret.md", "Engrams/Public.md"]);
		c.setOptions({ private: false });
		// Before the search without private notes has even been sent.
		expect(calls).toHaveLength(1);
		expect(shownPaths(states.at(-1))).toEqual(["Engrams/Public.md"]);
		expect(states.at(-1)).toMatchObject({ kind: "results", pending: true });
	});

	it("drops a private-mode answer that arrives after private mode was switched off", async () => {
		const { calls, states, c } = await searchingInPrivate();
		c.setOptions({ private: false });
		calls[0]?.answer(privateDoc());
		await vi.advanceTimersByTimeAsync(0);
		expect(states.some((s) => shownPaths(s).includes("Diary/Secret.md"))).toBe(false);
		await vi.advanceTimersByTimeAsync(200);
		expect(calls[1]?.request.private).toBe(false);
	});

	it("never snapshots a query typed in private mode, even once private mode is off, until the box is emptied", async () => {
		const { c } = await searchingInPrivate();
		expect(c.snapshot().query).toBe("");
		c.setOptions({ private: false });
		expect(c.snapshot().query).toBe("");
		c.setQuery("plan b"); // an edit of it outside private mode
		expect(c.snapshot().query).toBe("");
		c.setQuery("");
		c.setQuery("sourdough");
		expect(c.snapshot().query).toBe("sourdough");
		c.setOptions({ private: true }); // a query typed before private mode was turned on
		c.setOptions({ private: false });
		expect(c.snapshot().query).toBe("sourdough");
		c.dispose();
	});

	it("waits for typing to pause, then searches once with the options", async () => {
		const { calls, search } = manualSearch();
		const states: SearchState[] = [];
		const c = new SearchController({ search, onState: (s) => states.push(s), delayMs: 200, k: 7 });
		c.setQuery("sp");
		c.setQuery("spaced");
		c.setOptions({ private: true });
		vi.advanceTimersByTime(199);
		expect(calls).toHaveLength(0);
		vi.advanceTimersByTime(1);
		expect(calls.map((x) => x.request)).toEqual([{ query: "spaced", k: 7, private: true, include_archived: false }]);
		calls[0]?.answer(aSearchDocument([aResult()]));
		await vi.runAllTimersAsync();
		expect(states.map((s) => s.kind)).toEqual(["loading", "results"]);
	});

	it("drops an older answer that arrives after a newer query was sent", async () => {
		const { calls, search } = manualSearch();
		const states: SearchState[] = [];
		const c = new SearchController({ search, onState: (s) => states.push(s), delayMs: 10, k: 10 });
		c.setQuery("old");
		vi.advanceTimersByTime(10);
		c.setQuery("new");
		vi.advanceTimersByTime(10);
		calls[1]?.answer(aSearchDocument([aResult({ title: "New" })]));
		await vi.runAllTimersAsync();
		calls[0]?.answer(aSearchDocument([aResult({ title: "Old" })]));
		await vi.runAllTimersAsync();
		const last = states.at(-1);
		expect(last?.kind === "results" && last.list.cards[0]?.title).toBe("New");
	});

	it("shows empty, error and idle states as values", async () => {
		const { calls, search } = manualSearch();
		const states: SearchState[] = [];
		const c = new SearchController({ search, onState: (s) => states.push(s), delayMs: 0, k: 10 });
		c.setQuery("nothing");
		const first = c.runNow();
		calls[0]?.answer(aSearchDocument([]));
		await first;
		c.setQuery("broken");
		const second = c.runNow();
		calls[1]?.fail(new Error("No sidecar at http://127.0.0.1:47113"));
		await second;
		c.setQuery("  ");
		expect(states.map((s) => s.kind)).toEqual(["loading", "empty", "loading", "error", "idle"]);
		expect(states[3]).toMatchObject({ message: "No sidecar at http://127.0.0.1:47113" });
	});
});

describe("moveSelection", () => {
	it("enters the list from either end and stops at the edges", () => {
		expect(moveSelection(-1, 1, 3)).toBe(0);
		expect(moveSelection(-1, -1, 3)).toBe(2);
		expect(moveSelection(2, 1, 3)).toBe(2);
		expect(moveSelection(0, -1, 3)).toBe(0);
		expect(moveSelection(0, 1, 0)).toBe(-1);
	});
});
