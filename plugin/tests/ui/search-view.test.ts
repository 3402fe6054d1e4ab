import { WorkspaceLeaf } from "obsidian";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { SidecarClient } from "../../src/api/client";
import type { ResultCard } from "../../src/search/shape";
import { SearchView } from "../../src/ui/search-view";
import { aResult, aSearchDocument, HANG, json, ScriptedTransport } from "../builders";
import { aFile, aLeaf } from "../stand-in";
import { asksAgainWhenReady, timesOutThenRetries } from "./recovery";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

interface Opened {
	path: string;
	newLeaf: unknown;
}

async function openView(transport: ScriptedTransport, opened: Opened[] = [], leaf = new WorkspaceLeaf()) {
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const view = new SearchView(leaf, {
		client: () => client,
		delayMs: 100,
		k: 5,
		open: async (card: ResultCard, newLeaf) => void opened.push({ path: card.path, newLeaf }),
	});
	document.body.appendChild(view.containerEl);
	await view.onOpen();
	const input = view.contentEl.querySelector("input.ora-search-input") as HTMLInputElement;
	return { view, input };
}

function key(el: HTMLElement, name: string, init: KeyboardEventInit = {}): void {
	el.dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true, ...init }));
}

async function type(input: HTMLInputElement, text: string): Promise<void> {
	input.value = text;
	input.dispatchEvent(new Event("input"));
	await vi.advanceTimersByTimeAsync(100);
}

function toggles(view: SearchView): HTMLElement[] {
	return [...view.contentEl.querySelectorAll<HTMLElement>(".checkbox-container")];
}

function body(transport: ScriptedTransport, n: number): unknown {
	return JSON.parse(transport.requests[n]?.body ?? "");
}

/** A panel opened after a restart with `saved` as its layout state; its one search finds `path`. */
async function restoredView(saved: unknown, path: string) {
	const transport = new ScriptedTransport([json(200, aSearchDocument([aResult({ path })]))]);
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const view = new SearchView(new WorkspaceLeaf(), { client: () => client, delayMs: 100, k: 5, open: async () => undefined });
	await view.setState(JSON.parse(JSON.stringify(saved)), { history: false });
	await view.onOpen();
	return { view, transport };
}

describe("SearchView", () => {
	it("searches as you type with Obsidian toggles, then navigates results with aria-selected", async () => {
		const doc = aSearchDocument([aResult({ path: "one.md" }), aResult({ path: "two.md" })]);
		const transport = new ScriptedTransport([json(200, doc)]);
		const opened: Opened[] = [];
		const { view, input } = await openView(transport, opened);
		const [privateToggle, archivedToggle] = toggles(view);
		archivedToggle?.click();
		expect(archivedToggle?.classList.contains("is-enabled")).toBe(true);
		await type(input, "spaced repetition");
		expect(body(transport, 0)).toEqual({ query: "spaced repetition", k: 5, private: false, include_archived: true });
		expect(privateToggle?.classList.contains("is-enabled")).toBe(false);
		const results = [...view.contentEl.querySelectorAll(".ora-result")];
		expect(results).toHaveLength(2);

		key(input, "ArrowDown");
		key(input, "ArrowDown");
		key(input, "ArrowDown");
		expect(results.map((r) => r.getAttribute("aria-selected"))).toEqual(["false", "true"]);
		expect(view.contentEl.querySelector(".ora-results")?.getAttribute("aria-activedescendant")).toBe(results[1]?.id);
		key(input, "ArrowUp");
		key(input, "Enter");
		key(input, "Enter", { ctrlKey: true });
		expect(opened).toEqual([
			{ path: "one.md", newLeaf: false },
			{ path: "one.md", newLeaf: "tab" },
		]);
		await view.onClose();
	});

	it("searches the word an input method picks, not the reading typed while it composes, and leaves it its Enter and arrows", async () => {
		const transport = new ScriptedTransport([
			json(200, aSearchDocument([aResult({ path: "a.md" }), aResult({ path: "b.md" })])),
			json(200, aSearchDocument([aResult({ path: "日本.md" })])),
		]);
		const opened: Opened[] = [];
		const { view, input } = await openView(transport, opened);
		await type(input, "notes");
		input.dispatchEvent(new CompositionEvent("compositionstart"));
		for (const reading of ["notes n", "notes に", "notes にほ", "notes にほn"]) {
			input.value = reading;
			input.dispatchEvent(new InputEvent("input", { isComposing: true }));
		}
		await vi.advanceTimersByTimeAsync(500);
		expect(transport.requests).toHaveLength(1);
		key(input, "ArrowDown", { isComposing: true });
		key(input, "Enter", { isComposing: true });
		key(input, "Enter", { keyCode: 229 });
		expect(view.contentEl.querySelectorAll(".ora-result[aria-selected='true']")).toHaveLength(0);
		expect(opened).toEqual([]);

		input.value = "notes 日本";
		input.dispatchEvent(new CompositionEvent("compositionend"));
		await vi.advanceTimersByTimeAsync(100);
		expect(transport.requests).toHaveLength(2);
		expect(body(transport, 1)).toMatchObject({ query: "notes 日本" });
		expect(view.contentEl.querySelector(".ora-result")?.textContent).toContain("日本");
	});

	it("is reachable by Tab: the result list takes focus and answers the arrows and Enter", async () => {
		const transport = new ScriptedTransport([json(200, aSearchDocument([aResult({ path: "a.md" }), aResult({ path: "b.md" })]))]);
		const opened: Opened[] = [];
		const { view, input } = await openView(transport, opened);
		await type(input, "anything");
		const list = view.contentEl.querySelector(".ora-results") as HTMLElement;
		expect(list.tabIndex).toBe(0);
		list.focus();
		key(list, "ArrowDown");
		key(list, "ArrowDown");
		key(list, "Enter");
		expect(opened.map((o) => o.path)).toEqual(["b.md"]);
	});

	it("opens in a new tab on Mod-click and middle click", async () => {
		const transport = new ScriptedTransport([json(200, aSearchDocument([aResult({ path: "a.md" })]))]);
		const opened: Opened[] = [];
		const { view, input } = await openView(transport, opened);
		await type(input, "anything");
		const row = view.contentEl.querySelector(".ora-result") as HTMLElement;
		row.dispatchEvent(new MouseEvent("click", { ctrlKey: true, bubbles: true }));
		row.dispatchEvent(new MouseEvent("auxclick", { button: 1, bubbles: true }));
		row.dispatchEvent(new MouseEvent("click", { bubbles: true }));
		expect(opened.map((o) => o.newLeaf)).toEqual(["tab", "tab", false]);
	});

	it("keeps the old results on screen until the new ones arrive", async () => {
		let release: (v: unknown) => void = () => undefined;
		const slow = new Promise((ok) => (release = ok));
		const transport = new ScriptedTransport([json(200, aSearchDocument([aResult({ path: "old.md" })]))]);
		const { view, input } = await openView(transport);
		await type(input, "first");
		const original = transport.request.bind(transport);
		transport.request = async (req) => (await slow, original(req));
		(transport as unknown as { answers: unknown[] }).answers.push(json(200, aSearchDocument([aResult({ path: "new.md" })])));
		await type(input, "second");
		const results = view.contentEl.querySelector(".ora-search-results") as HTMLElement;
		expect(results.classList.contains("is-pending")).toBe(true);
		expect(results.querySelector(".ora-result-path")?.textContent).toBe("old.md");
		expect(results.textContent).not.toContain("Searching for");
		release(null);
		await vi.advanceTimersByTimeAsync(1);
		expect(results.classList.contains("is-pending")).toBe(false);
		expect(results.querySelector(".ora-result-path")?.textContent).toBe("new.md");
	});

	it("sends type chips and type:/path:/tag: prefixes as filters", async () => {
		const transport = new ScriptedTransport([json(200, aSearchDocument([aResult()])), json(200, aSearchDocument([aResult()]))]);
		const { view, input } = await openView(transport);
		const chip = [...view.contentEl.querySelectorAll<HTMLElement>(".ora-chip")].find((c) => c.textContent === "resource");
		chip?.click();
		await type(input, 'sleep path:"Daily notes" tag:#health/sleep type:chat');
		expect(body(transport, 0)).toEqual({
			query: "sleep",
			k: 5,
			private: false,
			include_archived: false,
			filters: { types: ["resource", "chat"], folders: ["Daily notes"], tags: ["health/sleep"] },
		});
		const typed = [...view.contentEl.querySelectorAll<HTMLElement>(".ora-chip.is-typed")].map((c) => c.textContent);
		expect(typed).toEqual(["type:chat", "path:Daily notes", "tag:health/sleep"]);
		(view.contentEl.querySelector(".ora-chip.is-typed .ora-chip-remove") as HTMLElement).click();
		expect(input.value).toBe('sleep path:"Daily notes" tag:#health/sleep');
	});

	it("saves the query, archived toggle and chips and restores them after a restart, with private mode off", async () => {
		const { leaf, workspace } = aLeaf();
		const transport = new ScriptedTransport(Array.from({ length: 3 }, () => json(200, aSearchDocument([aResult()]))));
		const { view, input } = await openView(transport, [], leaf);
		const [privateToggle, archivedToggle] = toggles(view);
		archivedToggle?.click();
		[...view.contentEl.querySelectorAll<HTMLElement>(".ora-chip")].find((c) => c.textContent === "engram")?.click();
		await type(input, "sleep");
		privateToggle?.click(); // a query typed before private mode is saved once it is off
		await vi.advanceTimersByTimeAsync(100);
		expect(body(transport, 1)).toMatchObject({ query: "sleep", private: true });
		privateToggle?.click();
		expect(workspace.saves).toBeGreaterThan(0);
		const saved = view.getState();
		// Someone may be looking at the screen at the next start: private mode is never saved.
		expect(saved).toEqual({ query: "sleep", includeArchived: true, chips: { types: ["engram"], folders: [], tags: [], clusters: [], conversations: [] } });

		const restored = await restoredView(saved, "back.md");
		expect((restored.view.contentEl.querySelector("input.ora-search-input") as HTMLInputElement).value).toBe("sleep");
		expect(toggles(restored.view).map((t) => t.classList.contains("is-enabled"))).toEqual([false, true]);
		expect(body(restored.transport, 0)).toMatchObject({ query: "sleep", private: false, include_archived: true, filters: { types: ["engram"] } });
		expect(restored.view.contentEl.querySelector(".ora-result-path")?.textContent).toBe("back.md");
	});

	it("starts with private mode off when an older saved layout says it was on, and drops it from the next save", async () => {
		const restored = await restoredView({ query: "sleep", private: true, includeArchived: false, chips: { types: [], folders: [], tags: [] } }, "back.md");
		expect(toggles(restored.view)[0]?.classList.contains("is-enabled")).toBe(false);
		expect(body(restored.transport, 0)).toMatchObject({ query: "sleep", private: false });
		expect(restored.view.getState()).not.toHaveProperty("private");
	});

	it("never saves a query typed in private mode, nor an edit of it once private mode is off", async () => {
		const transport = new ScriptedTransport(Array.from({ length: 4 }, () => json(200, aSearchDocument([aResult()]))));
		const { view, input } = await openView(transport);
		toggles(view)[0]?.click();
		await type(input, "locker code");
		expect(view.getState()).toEqual({ query: "", includeArchived: false, chips: { types: [], folders: [], tags: [], clusters: [], conversations: [] } });
		toggles(view)[0]?.click(); // private mode off: Obsidian saves the layout at its next change
		await vi.advanceTimersByTimeAsync(100);
		expect(view.getState()).toMatchObject({ query: "" });
		await type(input, "locker code 31");
		expect(view.getState()).toMatchObject({ query: "" });
		// Emptied, then typed outside private mode: saved as usual.
		await type(input, "");
		await type(input, "sourdough");
		expect(view.getState()).toMatchObject({ query: "sourdough" });
	});

	it("keeps private mode on while the panel lives when Obsidian sets its state again", async () => {
		const transport = new ScriptedTransport([json(200, aSearchDocument([aResult()])), json(200, aSearchDocument([aResult()]))]);
		const { view, input } = await openView(transport);
		toggles(view)[0]?.click();
		await type(input, "sleep");
		await view.setState({ query: "dreams", includeArchived: false, chips: { types: [], folders: [], tags: [] } }, { history: true });
		expect(toggles(view)[0]?.classList.contains("is-enabled")).toBe(true);
		expect(body(transport, 1)).toMatchObject({ query: "dreams", private: true });
	});

	it("shows the error state when the sidecar is down", async () => {
		const transport = new ScriptedTransport([new Error("connect ECONNREFUSED 127.0.0.1:1")]);
		const { view, input } = await openView(transport);
		await type(input, "anything");
		expect(view.contentEl.querySelector(".ora-error")?.textContent).toContain("ECONNREFUSED");
	});

	it("runs a query restored at start-up again once the sidecar is ready, instead of keeping the error", async () => {
		// Obsidian restores the panel (and runs its query) before the sidecar has started.
		const transport = new ScriptedTransport([
			new Error("connect ECONNREFUSED 127.0.0.1:0"),
			json(200, aSearchDocument([aResult({ path: "back.md" })])),
		]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const view = new SearchView(new WorkspaceLeaf(), { client: () => client, delayMs: 100, k: 5, open: async () => undefined });
		document.body.appendChild(view.containerEl);
		await view.setState({ query: "sleep", private: false, includeArchived: false, chips: { types: [], folders: [], tags: [] } }, { history: false });
		await view.onOpen();
		await asksAgainWhenReady(view, () => transport.requests.length, "back.md");
	});

	it("uses the results-per-search and search-delay settings as they are now, in a panel opened before they changed", async () => {
		const settings = { resultCount: 5, searchDelayMs: 100 };
		const transport = new ScriptedTransport([json(200, aSearchDocument([aResult()])), json(200, aSearchDocument([aResult()]))]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const view = new SearchView(new WorkspaceLeaf(), {
			client: () => client,
			delayMs: () => settings.searchDelayMs,
			k: () => settings.resultCount,
			open: async () => undefined,
		});
		document.body.appendChild(view.containerEl);
		await view.onOpen();
		const input = view.contentEl.querySelector("input.ora-search-input") as HTMLInputElement;
		await type(input, "sleep");
		expect(body(transport, 0)).toMatchObject({ k: 5 });
		settings.resultCount = 30;
		settings.searchDelayMs = 400;
		input.value = "sleep debt";
		input.dispatchEvent(new Event("input"));
		await vi.advanceTimersByTimeAsync(399);
		expect(transport.requests).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(body(transport, 1)).toMatchObject({ query: "sleep debt", k: 30 });
	});

	it("leaves the loading state when the sidecar does not answer, and Try again clears the error", async () => {
		const transport = new ScriptedTransport([HANG, json(200, aSearchDocument([aResult({ path: "back.md" })]))]);
		const { view, input } = await openView(transport);
		await type(input, "sleep");
		await timesOutThenRetries(view.contentEl, () => transport.requests.length);
		expect(view.contentEl.querySelector(".ora-result-path")?.textContent).toBe("back.md");
		// The stuck sidecar's answer to the first search, arriving now, does not replace the newer one.
		transport.late(0, json(200, aSearchDocument([aResult({ path: "stale.md" })])));
		await vi.advanceTimersByTimeAsync(0);
		expect(view.contentEl.querySelector(".ora-result-path")?.textContent).toBe("back.md");
	});

	it("does not take the focus when Obsidian restores it with the layout, so the note being edited keeps it", async () => {
		const editor = document.body.createEl("textarea");
		editor.focus();
		const leaf = new WorkspaceLeaf();
		const { view, input } = await openView(new ScriptedTransport([]), [], leaf);
		expect(document.activeElement).toBe(editor);
		view.focusInput(); // "Open search panel" does focus it
		expect(document.activeElement).toBe(input);
		editor.remove();
	});

	describe("when a note it lists changes", () => {
		/** A panel in a leaf whose vault the test fires events on; refreshes 1 s after a listed note changed. */
		async function watchingView(transport: ScriptedTransport, opened: string[] = []) {
			const { leaf, vault } = aLeaf();
			const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
			const view = new SearchView(leaf, { client: () => client, delayMs: 100, k: 5, open: async (card) => void opened.push(card.path), refreshDelayMs: 1000 });
			await view.onOpen();
			const input = view.contentEl.querySelector("input.ora-search-input") as HTMLInputElement;
			const paths = () => [...view.contentEl.querySelectorAll(".ora-result-path")].map((el) => el.textContent);
			return { view, vault, input, paths };
		}

		it("drops a deleted note's row at once, and from the search run again while the sidecar still names it", async () => {
			const both = aSearchDocument([aResult({ path: "Gone.md" }), aResult({ path: "Kept.md" })]);
			const transport = new ScriptedTransport([json(200, both), json(200, both)]);
			const { vault, input, paths } = await watchingView(transport);
			await type(input, "sleep");
			expect(paths()).toEqual(["Gone.md", "Kept.md"]);
			vault.trigger("delete", aFile("Gone.md"));
			expect(paths()).toEqual(["Kept.md"]);
			await vi.advanceTimersByTimeAsync(1000);
			expect(transport.requests).toHaveLength(2);
			expect(paths()).toEqual(["Kept.md"]);
		});

		it("searches again once a listed note changes (tagged private, say), not when another note does", async () => {
			const transport = new ScriptedTransport([
				json(200, aSearchDocument([aResult({ path: "Therapy notes.md" }), aResult({ path: "Evening.md" })])),
				json(200, aSearchDocument([aResult({ path: "Evening.md" })])),
			]);
			const { vault, input, paths } = await watchingView(transport);
			await type(input, "sleep");
			vault.trigger("modify", aFile("Gardening.md"));
			await vi.advanceTimersByTimeAsync(5000);
			expect(transport.requests).toHaveLength(1);
			vault.trigger("modify", aFile("Therapy notes.md"));
			vault.trigger("modify", aFile("Therapy notes.md")); // one save in two writes searches once
			await vi.advanceTimersByTimeAsync(999);
			expect(paths()).toEqual(["Therapy notes.md", "Evening.md"]);
			await vi.advanceTimersByTimeAsync(1);
			expect(transport.requests).toHaveLength(2);
			expect(body(transport, 1)).toEqual({ query: "sleep", k: 5, private: false, include_archived: false });
			expect(paths()).toEqual(["Evening.md"]);
		});

		it("keeps the row the keyboard is on when the search runs again, redrawing nothing when the list is the same", async () => {
			const abc = aSearchDocument([aResult({ path: "A.md" }), aResult({ path: "B.md" }), aResult({ path: "C.md" })]);
			const transport = new ScriptedTransport([json(200, abc), json(200, abc), json(200, aSearchDocument([aResult({ path: "B.md" }), aResult({ path: "A.md" })]))]);
			const opened: string[] = [];
			const { view, vault, input, paths } = await watchingView(transport, opened);
			const selected = () => view.contentEl.querySelector(".is-selected");
			await type(input, "sleep");
			key(input, "ArrowDown");
			key(input, "ArrowDown");
			const row = selected();
			expect(row?.querySelector(".ora-result-path")?.textContent).toBe("B.md");
			vault.trigger("modify", aFile("C.md")); // Obsidian saves a listed note: the same list comes back
			await vi.advanceTimersByTimeAsync(1000);
			expect(transport.requests).toHaveLength(2);
			expect(selected()).toBe(row);
			vault.trigger("modify", aFile("C.md")); // …and now C is gone and B is first
			await vi.advanceTimersByTimeAsync(1000);
			expect(paths()).toEqual(["B.md", "A.md"]);
			expect(selected()?.querySelector(".ora-result-path")?.textContent).toBe("B.md");
			key(input, "Enter");
			await vi.advanceTimersByTimeAsync(0);
			expect(opened).toEqual(["B.md"]);
			expect(transport.requests).toHaveLength(3);
		});

		it("lists a renamed note under its new name: the old row goes at once", async () => {
			const transport = new ScriptedTransport([
				json(200, aSearchDocument([aResult({ path: "Old.md" }), aResult({ path: "Kept.md" })])),
				json(200, aSearchDocument([aResult({ path: "Topics/New.md" }), aResult({ path: "Kept.md" })])),
			]);
			const { vault, input, paths } = await watchingView(transport);
			await type(input, "sleep");
			vault.trigger("rename", aFile("Topics/New.md"), "Old.md");
			expect(paths()).toEqual(["Kept.md"]);
			await vi.advanceTimersByTimeAsync(1000);
			expect(paths()).toEqual(["Topics/New.md", "Kept.md"]);
		});

		it("drops the answer of a search run again for a changed note when a newer query was typed meanwhile", async () => {
			const transport = new ScriptedTransport([
				json(200, aSearchDocument([aResult({ path: "Listed.md" })])),
				HANG,
				json(200, aSearchDocument([aResult({ path: "Newer.md" })])),
			]);
			const { vault, input, paths } = await watchingView(transport);
			await type(input, "sleep");
			vault.trigger("modify", aFile("Listed.md"));
			await vi.advanceTimersByTimeAsync(1000);
			expect(transport.requests).toHaveLength(2);
			await type(input, "sleep caffeine");
			expect(paths()).toEqual(["Newer.md"]);
			transport.late(0, json(200, aSearchDocument([aResult({ path: "Listed.md" })])));
			await vi.advanceTimersByTimeAsync(0);
			expect(paths()).toEqual(["Newer.md"]);
		});
	});
});
