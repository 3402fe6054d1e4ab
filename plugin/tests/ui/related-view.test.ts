import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { SidecarClient } from "../../src/api/client";
import type { ResultCard } from "../../src/search/shape";
import { RELATED_VIEW_TYPE, RelatedView } from "../../src/ui/related-view";
import { aResult, HANG, json, ScriptedTransport } from "../builders";
import { aFile, aLeaf } from "../stand-in";
import { asksAgainWhenReady, timesOutThenRetries } from "./recovery";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const related = (path: string, results = [aResult({ path: "Engrams/Forgetting curve.md", line_start: 7, line_end: 9 })]) => ({
	path,
	namespace: "default",
	results,
});

async function openView(transport: ScriptedTransport, opened: { card: ResultCard; newLeaf: unknown }[] = []) {
	const { leaf, workspace, vault } = aLeaf();
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const view = new RelatedView(leaf, {
		client: () => client,
		k: 7,
		open: async (card, newLeaf) => void opened.push({ card, newLeaf }),
		linkText: (path, source) => `[[${path.replace(/\.md$/, "")}]] from ${source}`,
		openDelayMs: 50,
		editDelayMs: 500,
	});
	document.body.appendChild(view.containerEl);
	await view.onOpen();
	return { view, workspace, vault };
}

const body = (t: ScriptedTransport, n: number) => JSON.parse(t.requests[n]?.body ?? "") as unknown;

describe("RelatedView", () => {
	it("follows the note opened and lists its related notes, opening one at the cited lines", async () => {
		const transport = new ScriptedTransport([json(200, related("Engrams/Spaced repetition.md"))]);
		const opened: { card: ResultCard; newLeaf: unknown }[] = [];
		const { view, workspace } = await openView(transport, opened);
		expect(view.contentEl.textContent).toContain("Open a note to see the notes related to it.");
		workspace.trigger("file-open", aFile("Engrams/Spaced repetition.md"));
		await vi.advanceTimersByTimeAsync(50);
		expect(transport.requests[0]?.url).toBe("http://127.0.0.1:1/v1/related");
		expect(body(transport, 0)).toEqual({ path: "Engrams/Spaced repetition.md", k: 7, private: false });
		expect(view.contentEl.querySelector(".ora-related-title")?.textContent).toBe("Related to Spaced repetition");
		const row = view.contentEl.querySelector(".ora-result") as HTMLElement;
		expect(row.querySelector(".ora-result-path")?.textContent).toBe("Engrams/Forgetting curve.md");
		row.click();
		row.dispatchEvent(new MouseEvent("click", { metaKey: true }));
		expect(opened.map((o) => [o.card.lineStart, o.newLeaf])).toEqual([
			[7, false],
			[7, "tab"],
		]);
	});

	it("asks again after edits to the active note, debounced, keeping the list meanwhile", async () => {
		const transport = new ScriptedTransport([json(200, related("A.md")), json(200, related("A.md", []))]);
		const { view, workspace, vault } = await openView(transport);
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		vault.trigger("modify", aFile("Other.md"));
		vault.trigger("modify", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(200);
		vault.trigger("modify", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(499);
		expect(transport.requests).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(transport.requests).toHaveLength(2);
		expect(view.contentEl.textContent).toContain("No related notes found.");
	});

	it("asks again when the vault settings (ora.yaml) change, so a note made private leaves the list", async () => {
		const transport = new ScriptedTransport([
			json(200, related("A.md", [aResult({ path: "Private/Diary.md" }), aResult({ path: "Ideas/Zucchini.md" })])),
			json(200, related("A.md", [aResult({ path: "Ideas/Zucchini.md" })])),
			json(200, related("A.md", [aResult({ path: "Ideas/Zucchini.md" })])),
		]);
		const { view, workspace, vault } = await openView(transport);
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		expect(view.contentEl.textContent).toContain("Private/Diary.md");
		vault.trigger("modify", aFile("Notes/ora.yaml")); // not the vault's settings
		vault.trigger("modify", aFile("ora.yaml"));
		vault.trigger("modify", aFile("ora.yaml")); // one save in two writes asks once
		await vi.advanceTimersByTimeAsync(500);
		expect(transport.requests).toHaveLength(2);
		expect(view.contentEl.textContent).not.toContain("Private/Diary.md");
		vault.trigger("create", aFile("ora.yaml"));
		await vi.advanceTimersByTimeAsync(500);
		expect(transport.requests).toHaveLength(3);
	});

	it("leaves the vault settings alone while no note is followed", async () => {
		const transport = new ScriptedTransport([]);
		const { vault } = await openView(transport);
		vault.trigger("modify", aFile("ora.yaml"));
		await vi.advanceTimersByTimeAsync(5000);
		expect(transport.requests).toHaveLength(0);
	});

	it("says why a private note has no list, and ignores files that are not notes", async () => {
		const transport = new ScriptedTransport([
			json(404, { error: { code: "not_found", message: "no note Diary.md in the vault" } }),
		]);
		const { view, workspace } = await openView(transport);
		workspace.trigger("file-open", aFile("Diary.md"));
		await vi.advanceTimersByTimeAsync(50);
		expect(view.contentEl.textContent).toContain("or it is private: turn on private mode");
		workspace.trigger("file-open", aFile("Board.canvas"));
		await vi.advanceTimersByTimeAsync(50);
		expect(transport.requests).toHaveLength(1);
		expect(view.contentEl.textContent).toContain("Open a note");
	});

	it("previews on hover through Obsidian's hover-link and drags out as a link", async () => {
		const transport = new ScriptedTransport([json(200, related("A.md"))]);
		const { view, workspace } = await openView(transport);
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		const row = view.contentEl.querySelector(".ora-result") as HTMLElement;
		row.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
		const hover = workspace.calls.find((c) => c.args[0] === "hover-link");
		expect(hover?.args[1]).toMatchObject({ source: RELATED_VIEW_TYPE, linktext: "Engrams/Forgetting curve.md", targetEl: row, hoverParent: view });
		expect(row.getAttribute("draggable")).toBe("true");
		const data = new Map<string, string>();
		const drag = new Event("dragstart") as DragEvent;
		Object.defineProperty(drag, "dataTransfer", { value: { setData: (k: string, v: string) => data.set(k, v), effectAllowed: "" } });
		row.dispatchEvent(drag);
		expect(data.get("text/plain")).toBe("[[Engrams/Forgetting curve]] from A.md");
	});

	it("drops an answer for a note that is no longer active", async () => {
		let release: () => void = () => undefined;
		const gate = new Promise<void>((ok) => (release = ok));
		// B's request is answered first (A's is held back), so the script lists B's answer first.
		const transport = new ScriptedTransport([json(200, related("B.md", [])), json(200, related("A.md"))]);
		const original = transport.request.bind(transport);
		let calls = 0;
		transport.request = async (req) => (calls++ === 0 ? (await gate, original(req)) : original(req));
		const { view, workspace } = await openView(transport);
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		workspace.trigger("file-open", aFile("B.md"));
		await vi.advanceTimersByTimeAsync(50);
		release();
		await vi.advanceTimersByTimeAsync(1);
		expect(view.followedPath).toBe("B.md");
		expect(view.contentEl.textContent).toContain("Related to B");
		expect(view.contentEl.querySelector(".ora-result")).toBeNull();
	});

	it("keeps following the active note when it is renamed or moved", async () => {
		const transport = new ScriptedTransport([json(200, related("A.md")), json(200, related("Topics/Renamed.md"))]);
		const { view, workspace, vault } = await openView(transport);
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		vault.trigger("rename", aFile("Other/B.md"), "Other.md");
		vault.trigger("rename", aFile("Topics/Renamed.md"), "A.md");
		expect(view.followedPath).toBe("Topics/Renamed.md");
		// Asked again once the sidecar has had time to index the note under its new name.
		await vi.advanceTimersByTimeAsync(499);
		expect(transport.requests).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(body(transport, 1)).toEqual({ path: "Topics/Renamed.md", k: 7, private: false });
		expect(view.contentEl.querySelector(".ora-related-title")?.textContent).toBe("Related to Renamed");
		vault.trigger("modify", aFile("Topics/Renamed.md"));
		await vi.advanceTimersByTimeAsync(500);
		expect(transport.requests).toHaveLength(3);
	});

	it("hides private related notes at once when private mode is switched off", async () => {
		const results = [
			aResult({ path: "Diary/Secret.md", private: true, flags: ["private"] }),
			aResult({ path: "Engrams/Public.md" }),
		];
		const transport = new ScriptedTransport([json(200, related("A.md", results)), json(200, related("A.md", results))]);
		const { view, workspace } = await openView(transport);
		const toggle = view.contentEl.querySelector<HTMLElement>(".checkbox-container")!;
		toggle.click();
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		const paths = () => [...view.contentEl.querySelectorAll(".ora-result-path")].map((el) => el.textContent);
		expect(body(transport, 0)).toMatchObject({ private: true });
		expect(paths()).toEqual(["Diary/Secret.md", "Engrams/Public.md"]);
		toggle.click();
		expect(transport.requests).toHaveLength(1);
		expect(paths()).toEqual(["Engrams/Public.md"]);
	});

	it("asks again once the sidecar is ready when the note open at start-up could not be asked", async () => {
		const transport = new ScriptedTransport([new Error("connect ECONNREFUSED 127.0.0.1:0"), json(200, related("A.md"))]);
		const { view, workspace } = await openView(transport);
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		await asksAgainWhenReady(view, () => transport.requests.length, "Engrams/Forgetting curve.md");
	});

	it("asks for as many notes as the Results per search setting says now", async () => {
		const settings = { resultCount: 7 };
		const transport = new ScriptedTransport([json(200, related("A.md")), json(200, related("B.md"))]);
		const { leaf, workspace } = aLeaf();
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const view = new RelatedView(leaf, { client: () => client, k: () => settings.resultCount, open: async () => undefined, linkText: () => null, openDelayMs: 50 });
		await view.onOpen();
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		settings.resultCount = 20;
		workspace.trigger("file-open", aFile("B.md"));
		await vi.advanceTimersByTimeAsync(50);
		expect([body(transport, 0), body(transport, 1)]).toMatchObject([{ k: 7 }, { k: 20 }]);
	});

	it("leaves the loading state when the sidecar does not answer, and Try again clears the error", async () => {
		const transport = new ScriptedTransport([HANG, json(200, related("A.md"))]);
		const { view, workspace } = await openView(transport);
		workspace.trigger("file-open", aFile("A.md"));
		await vi.advanceTimersByTimeAsync(50);
		await timesOutThenRetries(view.contentEl, () => transport.requests.length);
		expect(view.contentEl.querySelector(".ora-result-path")?.textContent).toBe("Engrams/Forgetting curve.md");
		transport.late(0, json(200, related("A.md", [])));
		await vi.advanceTimersByTimeAsync(0);
		expect(view.contentEl.querySelector(".ora-result-path")?.textContent).toBe("Engrams/Forgetting curve.md");
	});

	it("shows its refresh button with a refresh icon, not a spinner that looks forever busy", async () => {
		const { view } = await openView(new ScriptedTransport([]));
		const refresh = view.contentEl.querySelector('[aria-label="Refresh"] svg');
		expect(refresh?.getAttribute("data-icon")).toBe("refresh-cw");
	});

	describe("when a note it lists changes", () => {
		const paths = (view: RelatedView) => [...view.contentEl.querySelectorAll(".ora-result-path")].map((el) => el.textContent);

		it("asks again after the edit delay once a listed note is edited (tagged private, say), and the note leaves the list", async () => {
			const transport = new ScriptedTransport([
				json(200, related("A.md", [aResult({ path: "Therapy notes.md" }), aResult({ path: "Evening.md" })])),
				json(200, related("A.md", [aResult({ path: "Evening.md" })])),
			]);
			const { view, workspace, vault } = await openView(transport);
			workspace.trigger("file-open", aFile("A.md"));
			await vi.advanceTimersByTimeAsync(50);
			expect(paths(view)).toEqual(["Therapy notes.md", "Evening.md"]);
			vault.trigger("modify", aFile("Gardening.md")); // not listed: nothing to ask
			await vi.advanceTimersByTimeAsync(5000);
			expect(transport.requests).toHaveLength(1);
			vault.trigger("modify", aFile("Therapy notes.md"));
			await vi.advanceTimersByTimeAsync(499);
			expect(paths(view)).toEqual(["Therapy notes.md", "Evening.md"]); // kept until the new list comes
			await vi.advanceTimersByTimeAsync(1);
			expect(body(transport, 1)).toEqual({ path: "A.md", k: 7, private: false });
			expect(paths(view)).toEqual(["Evening.md"]);
		});

		it("drops a deleted note's row at once, and from an answer that still names it, until a note is made there again", async () => {
			const both = [aResult({ path: "Gone.md" }), aResult({ path: "Kept.md" })];
			const transport = new ScriptedTransport([json(200, related("A.md", both)), json(200, related("A.md", both)), json(200, related("A.md", both))]);
			const { view, workspace, vault } = await openView(transport);
			workspace.trigger("file-open", aFile("A.md"));
			await vi.advanceTimersByTimeAsync(50);
			vault.trigger("delete", aFile("Gone.md"));
			expect(paths(view)).toEqual(["Kept.md"]);
			// Asked again after the edit delay; the sidecar has not yet heard of the deletion.
			await vi.advanceTimersByTimeAsync(500);
			expect(transport.requests).toHaveLength(2);
			expect(paths(view)).toEqual(["Kept.md"]);
			vault.trigger("create", aFile("Gone.md"));
			view.contentEl.querySelector<HTMLElement>('[aria-label="Refresh"]')!.click();
			await vi.advanceTimersByTimeAsync(0);
			expect(paths(view)).toEqual(["Gone.md", "Kept.md"]);
		});

		it("drops a renamed note's old row at once and lists it under its new name once asked again", async () => {
			const transport = new ScriptedTransport([
				json(200, related("A.md", [aResult({ path: "Ideas/Old.md" }), aResult({ path: "Kept.md" })])),
				json(200, related("A.md", [aResult({ path: "Ideas/New.md" }), aResult({ path: "Kept.md" })])),
			]);
			const { view, workspace, vault } = await openView(transport);
			workspace.trigger("file-open", aFile("A.md"));
			await vi.advanceTimersByTimeAsync(50);
			vault.trigger("rename", aFile("Ideas/New.md"), "Ideas/Old.md");
			expect(view.followedPath).toBe("A.md");
			expect(paths(view)).toEqual(["Kept.md"]);
			await vi.advanceTimersByTimeAsync(500);
			expect(paths(view)).toEqual(["Ideas/New.md", "Kept.md"]);
		});

		it("drops a refresh's answer that arrives after another note was opened", async () => {
			const transport = new ScriptedTransport([json(200, related("A.md", [aResult({ path: "Listed.md" })])), HANG, json(200, related("B.md", []))]);
			const { view, workspace, vault } = await openView(transport);
			workspace.trigger("file-open", aFile("A.md"));
			await vi.advanceTimersByTimeAsync(50);
			vault.trigger("modify", aFile("Listed.md"));
			await vi.advanceTimersByTimeAsync(500);
			expect(transport.requests).toHaveLength(2);
			workspace.trigger("file-open", aFile("B.md"));
			await vi.advanceTimersByTimeAsync(50);
			transport.late(0, json(200, related("A.md", [aResult({ path: "Listed.md" })])));
			await vi.advanceTimersByTimeAsync(0);
			expect(view.contentEl.textContent).toContain("Related to B");
			expect(paths(view)).toEqual([]);
		});
	});
});
