import { WorkspaceLeaf } from "obsidian";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { SidecarClient } from "../../src/api/client";
import type { ResultCard } from "../../src/search/shape";
import { SearchView } from "../../src/ui/search-view";
import { aResult, aSearchDocument, json, ScriptedTransport } from "../builders";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

async function openView(transport: ScriptedTransport, opened: ResultCard[]) {
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const view = new SearchView(new WorkspaceLeaf(), {
		client: () => client,
		delayMs: 100,
		k: 5,
		open: async (card) => void opened.push(card),
	});
	document.body.appendChild(view.containerEl);
	await view.onOpen();
	const input = view.contentEl.querySelector("input.ora-search-input") as HTMLInputElement;
	return { view, input };
}

function key(input: HTMLElement, name: string): void {
	input.dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true }));
}

describe("SearchView", () => {
	it("searches as you type with the toggles, then navigates results with the keyboard", async () => {
		const doc = aSearchDocument([aResult({ path: "one.md" }), aResult({ path: "two.md" })]);
		const transport = new ScriptedTransport([json(200, doc)]);
		const opened: ResultCard[] = [];
		const { view, input } = await openView(transport, opened);
		const [privateBox, archivedBox] = [...view.contentEl.querySelectorAll("input[type=checkbox]")] as HTMLInputElement[];
		archivedBox!.checked = true;
		archivedBox!.dispatchEvent(new Event("change"));
		input.value = "spaced repetition";
		input.dispatchEvent(new Event("input"));
		await vi.advanceTimersByTimeAsync(100);
		expect(JSON.parse(transport.requests[0]?.body ?? "")).toEqual({
			query: "spaced repetition",
			k: 5,
			private: false,
			include_archived: true,
		});
		expect(privateBox!.checked).toBe(false);
		const results = view.contentEl.querySelectorAll(".ora-result");
		expect(results).toHaveLength(2);

		key(input, "ArrowDown");
		key(input, "ArrowDown");
		key(input, "ArrowDown");
		expect([...results].map((r) => r.classList.contains("is-selected"))).toEqual([false, true]);
		key(input, "ArrowUp");
		key(input, "Enter");
		expect(opened.map((c) => c.path)).toEqual(["one.md"]);
		await view.onClose();
	});

	it("shows the error state when the sidecar is down", async () => {
		const transport = new ScriptedTransport([new Error("connect ECONNREFUSED 127.0.0.1:1")]);
		const { view, input } = await openView(transport, []);
		input.value = "anything";
		input.dispatchEvent(new Event("input"));
		await vi.advanceTimersByTimeAsync(100);
		expect(view.contentEl.querySelector(".ora-error")?.textContent).toContain("ECONNREFUSED");
	});
});
