// End-to-end: the Extract engrams review (ui/extract-modal.ts) with the plugin's client against a
// real `ora serve`: a chat note's claims proposed by the rule extractor, kept as engram notes on
// disk, and undone from the notice. A sidecar without the extraction routes (or, for the edit
// test, without `edits` in its accept request) skips the test and says why.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "fs";
import { dirname, join } from "path";

import { App } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";

import { NodeHttpTransport } from "../../src/api/node-transport";
import { ExtractModal } from "../../src/ui/extract-modal";
import { noticeEls, shownNotices } from "../__mocks__/obsidian";
import { until } from "../plugin-host";
import { E2E_TIMEOUT_MS, SKIP_REASON, startSidecar, type LiveSidecar } from "./harness";

const CHAT = "Chats/Ora/extract-e2e.md";
const RYE = "Rye flour ferments faster than wheat flour.";
const MINE = "I keep my rye starter in the fridge between bakes.";

/** A chat note as Ora writes one (sidecar/memory/chat_note.py): a question, the assistant's claim, the user's own. */
const NOTE = [
	"---",
	"type: chat",
	"nexus: []",
	"tags: []",
	"date created: 2026-11-30",
	"date modified: 2026-11-30",
	'conversation: "extract-e2e"',
	'namespace: "default"',
	"---",
	"# extract-e2e",
	"",
	"## You · 2026-11-30 08:40:01 UTC",
	"",
	"Which flour ferments fastest?",
	"",
	"## Ora · 2026-11-30 08:40:02 UTC",
	"",
	RYE,
	"",
	"## You · 2026-11-30 08:40:03 UTC",
	"",
	MINE,
	"",
].join("\n");

let live: LiveSidecar | null = null;
afterEach(async () => {
	document.body.empty();
	shownNotices.length = 0;
	noticeEls.length = 0;
	await live?.stop();
	live = null;
});

/** The sidecar's own OpenAPI document (what this build of it serves). */
async function openapi(sidecar: LiveSidecar): Promise<{ paths: Record<string, unknown>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }> {
	const token = readFileSync(join(sidecar.vault, ".ora", "token"), "utf8").trim();
	const answer = await new NodeHttpTransport(60_000).request({ method: "GET", url: `http://127.0.0.1:${sidecar.port}/v1/openapi.json`, headers: { Authorization: `Bearer ${token}` } });
	return JSON.parse(answer.text) as Awaited<ReturnType<typeof openapi>>;
}

/** A sidecar with the chat note written, or null (the test skipped) when it has no extraction routes. */
async function sidecarWithChat(skip: (note: string) => void): Promise<LiveSidecar> {
	live = await startSidecar();
	if (!("/v1/extract/accept" in (await openapi(live)).paths)) skip("this sidecar has no /v1/extract routes");
	mkdirSync(join(live.vault, dirname(CHAT)), { recursive: true });
	writeFileSync(join(live.vault, CHAT), NOTE);
	return live;
}

function openReview(sidecar: LiveSidecar, opened: string[] = []): ExtractModal {
	const modal = new ExtractModal(new App(), { client: sidecar.client, selector: { note: CHAT }, open: async (path) => void opened.push(path) });
	modal.open();
	return modal;
}

function cardWith(modal: ExtractModal, text: string): HTMLElement {
	const found = [...modal.contentEl.querySelectorAll<HTMLElement>(".ora-proposal")].find((c) => c.querySelector(".ora-proposal-text")?.textContent === text);
	if (!found) throw new Error(`no proposal "${text}" among: ${modal.contentEl.textContent ?? ""}`);
	return found;
}

function press(root: ParentNode, label: string): void {
	const found = [...root.querySelectorAll<HTMLElement>("button, a")].find((b) => b.textContent === label);
	if (!found) throw new Error(`no ${label}`);
	found.click();
}

describe.skipIf(SKIP_REASON !== null)(`the Extract engrams review against ora serve${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	it("proposes the conversation's claims, keeps them as engram notes, and undoes that from the notice", async (ctx) => {
		const sidecar = await sidecarWithChat((note) => ctx.skip(note));
		const modal = openReview(sidecar);
		await until(() => modal.contentEl.querySelector(".ora-extract-extractor") !== null || modal.contentEl.querySelector(".ora-error") !== null, 120_000);
		expect(modal.contentEl.querySelector(".ora-error")).toBeNull();
		expect(modal.contentEl.querySelector(".ora-extract-extractor")?.textContent).toContain("rule extractor");
		expect(cardWith(modal, RYE).querySelector(".ora-badge-ai")?.textContent).toBe("AI-derived");
		expect(cardWith(modal, MINE).querySelector(".ora-badge-ai")).toBeNull();
		const proposed = [...modal.contentEl.querySelectorAll(".ora-proposal-text")].map((t) => t.textContent);
		expect(proposed).not.toContain("Which flour ferments fastest?"); // a question is no claim

		press(modal.contentEl, "Accept all");
		await until(() => shownNotices.some((n) => n.startsWith("Kept ")), 120_000);
		const written = [...(noticeEls.at(-1)?.querySelectorAll<HTMLElement>("a.ora-note-link") ?? [])].map((a) => a.textContent ?? "");
		expect(written.length).toBeGreaterThanOrEqual(2);
		for (const path of written) {
			const text = readFileSync(join(sidecar.vault, path), "utf8");
			expect(text).toMatch(/^type: engram$/m);
		}
		expect(written.map((p) => readFileSync(join(sidecar.vault, p), "utf8")).some((t) => t.includes(RYE))).toBe(true);

		press(noticeEls.at(-1) as HTMLElement, "Undo");
		await until(() => shownNotices.some((n) => n.startsWith("Undone") || n.startsWith("Could not undo")), 120_000);
		expect(shownNotices.at(-1)).toMatch(/^Undone: \d+ engrams? moved to the trash/);
		expect(written.filter((p) => existsSync(join(sidecar.vault, p)))).toEqual([]);
		expect(readFileSync(join(sidecar.vault, CHAT), "utf8")).toBe(NOTE);
	});

	it("writes an edited proposal in the user's words", async (ctx) => {
		const sidecar = await sidecarWithChat((note) => ctx.skip(note));
		if (!("edits" in ((await openapi(sidecar)).components.schemas.ExtractAcceptRequest?.properties ?? {}))) ctx.skip("this sidecar takes no edits with an accept yet");
		const modal = openReview(sidecar);
		await until(() => modal.contentEl.querySelector(".ora-proposal") !== null, 120_000);
		press(cardWith(modal, MINE), "Edit");
		const box = modal.contentEl.querySelector<HTMLElement>(".ora-proposal-editor");
		const title = box?.querySelector("input");
		const text = box?.querySelector("textarea");
		if (!title || !text) throw new Error("no editor");
		title.value = "My rye starter lives in the fridge";
		text.value = "Between bakes I keep my rye starter in the fridge, fed once a week.";
		press(box as HTMLElement, "Save");
		press(cardWith(modal, text.value), "Accept");
		press(modal.contentEl, "Keep 1 accepted");
		await until(() => shownNotices.some((n) => n.startsWith("Kept ") || n.startsWith("Could not")) || modal.contentEl.querySelector(".ora-extract-write-error") !== null, 120_000);
		expect(modal.contentEl.querySelector(".ora-extract-write-error")).toBeNull();
		const [path] = [...(noticeEls.at(-1)?.querySelectorAll<HTMLElement>("a.ora-note-link") ?? [])].map((a) => a.textContent ?? "");
		expect(readFileSync(join(sidecar.vault, path ?? ""), "utf8")).toContain("fed once a week");
	});
});
