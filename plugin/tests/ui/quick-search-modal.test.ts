import { App } from "obsidian";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { SidecarClient } from "../../src/api/client";
import type { QuickAction } from "../../src/quick/suggest";
import { quickAction } from "../../src/quick/suggest";
import type { ResultCard } from "../../src/search/shape";
import { QuickSearchModal } from "../../src/ui/quick-search-modal";
import { CALL_TIMEOUTS } from "../../src/api/timeouts";
import { aResult, aSearchDocument, HANG, json, ScriptedTransport } from "../builders";

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
	vi.useRealTimers();
	document.body.empty();
});

interface Chosen {
	path: string;
	line: number;
	action: QuickAction;
}

function setup(transport: ScriptedTransport) {
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const chosen: Chosen[] = [];
	const panel: string[] = [];
	const modal = new QuickSearchModal(new App(), {
		client: () => client,
		k: 8,
		delayMs: 100,
		privateMode: () => false,
		choose: async (card: ResultCard, action) => void chosen.push({ path: card.path, line: card.lineStart ?? 0, action }),
		toPanel: async (query) => void panel.push(query),
	});
	modal.open();
	return { modal, chosen, panel };
}

async function type(modal: QuickSearchModal, text: string): Promise<void> {
	modal.inputEl.value = text;
	modal.inputEl.dispatchEvent(new Event("input"));
	await vi.advanceTimersByTimeAsync(100);
	await (modal as unknown as { updated: Promise<void> }).updated;
}

function key(modal: QuickSearchModal, name: string, init: KeyboardEventInit = {}): void {
	modal.inputEl.dispatchEvent(new KeyboardEvent("keydown", { key: name, ...init }));
}

const doc = aSearchDocument([
	aResult({ path: "Engrams/Sleep.md", title: "Sleep", line_start: 12, line_end: 14, flags: ["incubating"] }),
	aResult({ path: "Resources/Naps.md", title: "Naps", type: "resource", line_start: 3, line_end: 5 }),
	aResult({ path: "Engrams/Sleep.md", title: "Sleep", line_start: 30, line_end: 31 }),
]);

describe("QuickSearchModal", () => {
	it("searches as you type and shows one row per note with type, flags and cited lines", async () => {
		const transport = new ScriptedTransport([json(200, doc)]);
		const { modal } = setup(transport);
		await type(modal, "deep sleep type:engram");
		expect(JSON.parse(transport.requests[0]?.body ?? "")).toEqual({ query: "deep sleep", k: 8, private: false, filters: { types: ["engram"] } });
		const rows = [...modal.resultContainerEl.querySelectorAll(".suggestion-item")];
		expect(rows).toHaveLength(2);
		expect(rows[0]?.querySelector(".ora-type")?.textContent).toBe("engram");
		expect(rows[0]?.querySelector(".ora-flag")?.textContent).toBe("Incubating");
		expect(rows[0]?.querySelector(".ora-result-lines")?.textContent).toBe(" · lines 12–14");
		expect(rows[0]?.querySelector(".ora-result-more")?.textContent).toBe(" · +1 more");
	});

	it("says search is by words above the suggestions while meaning-based search is built, and nothing once indexed", async () => {
		const indexing = { ...doc, indexing: { done: 420, total: 1000, percent: 42, phase: "meaning" as const } };
		const { modal } = setup(new ScriptedTransport([json(200, indexing), json(200, doc)]));
		await type(modal, "sleep");
		const note = modal.modalEl.querySelector(".ora-indexing-note");
		expect(note?.textContent).toBe("Searching by words; meaning-based search 42 % ready");
		expect(note?.nextElementSibling).toBe(modal.resultContainerEl);
		expect(modal.resultContainerEl.querySelectorAll(".suggestion-item")).toHaveLength(2);
		await type(modal, "sleep deep");
		expect(modal.modalEl.querySelectorAll(".ora-indexing-note")).toHaveLength(0);
	});

	it("waits for typing to pause and never lets an older answer replace a newer one", async () => {
		const transport = new ScriptedTransport([json(200, doc)]);
		const { modal } = setup(transport);
		modal.inputEl.value = "de";
		modal.inputEl.dispatchEvent(new Event("input"));
		await vi.advanceTimersByTimeAsync(50);
		await type(modal, "deep");
		expect(transport.requests).toHaveLength(1);
		expect((JSON.parse(transport.requests[0]?.body ?? "") as { query: string }).query).toBe("deep");
	});

	it("keeps the list shown while an input method composes, and searches the word it picks", async () => {
		const picked = aSearchDocument([aResult({ path: "日本.md", title: "日本" })]);
		const transport = new ScriptedTransport([json(200, doc), json(200, picked)]);
		const { modal } = setup(transport);
		await type(modal, "sleep");
		modal.inputEl.dispatchEvent(new CompositionEvent("compositionstart"));
		for (const reading of ["sleep n", "sleep に", "sleep にほn"]) await type(modal, reading);
		expect(transport.requests).toHaveLength(1);
		expect(modal.resultContainerEl.querySelectorAll(".ora-quick-item")).toHaveLength(2);

		modal.inputEl.value = "sleep 日本";
		modal.inputEl.dispatchEvent(new CompositionEvent("compositionend"));
		await vi.advanceTimersByTimeAsync(100);
		await (modal as unknown as { updated: Promise<void> }).updated;
		expect(transport.requests).toHaveLength(2);
		expect((JSON.parse(transport.requests[1]?.body ?? "") as { query: string }).query).toBe("sleep 日本");
		expect(modal.resultContainerEl.textContent).toContain("日本");
	});

	it.each([
		[{}, "open"],
		[{ ctrlKey: true }, "open-new-tab"],
		[{ altKey: true }, "insert-link"],
	] as const)("Enter with %o chooses %s at the cited line", async (mods, action) => {
		const { modal, chosen } = setup(new ScriptedTransport([json(200, doc)]));
		await type(modal, "sleep");
		key(modal, "ArrowDown");
		key(modal, "Enter", mods);
		expect(chosen).toEqual([{ path: "Resources/Naps.md", line: 3, action }]);
	});

	it("Tab hands the query to the search panel", async () => {
		const { modal, panel } = setup(new ScriptedTransport([json(200, doc)]));
		await type(modal, "sleep tag:health");
		key(modal, "Tab");
		expect(panel).toEqual(["sleep tag:health"]);
		expect(modal.containerEl.isConnected).toBe(false);
	});

	it("says why when the sidecar cannot answer", async () => {
		const { modal } = setup(new ScriptedTransport([new Error("connect ECONNREFUSED")]));
		await type(modal, "sleep");
		expect(modal.resultContainerEl.textContent).toContain("ECONNREFUSED");
	});

	it("maps keys and clicks to actions", () => {
		expect(quickAction({})).toBe("open");
		expect(quickAction({ metaKey: true })).toBe("open-new-tab");
		expect(quickAction({ button: 1 })).toBe("open-new-tab");
		expect(quickAction({ altKey: true, ctrlKey: true })).toBe("insert-link");
	});

	it("says the sidecar did not answer instead of waiting forever, and a later search shows results", async () => {
		const { modal } = setup(new ScriptedTransport([HANG, json(200, doc)]));
		modal.inputEl.value = "sleep";
		modal.inputEl.dispatchEvent(new Event("input"));
		await vi.advanceTimersByTimeAsync(100 + CALL_TIMEOUTS.interactive);
		await (modal as unknown as { updated: Promise<void> }).updated;
		expect(modal.resultContainerEl.textContent).toContain("The sidecar did not answer in 15 s. Edit the query to try again.");
		await type(modal, "sleep well");
		expect(modal.resultContainerEl.textContent).not.toContain("did not answer");
		expect(modal.resultContainerEl.querySelectorAll(".ora-quick-item").length).toBeGreaterThan(0);
	});
});
