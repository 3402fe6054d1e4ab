// End-to-end: the related view, the quick-search modal, the Ask panel and the lint quick fixes,
// with the plugin's real client against a real `ora serve`; Ask's model is a loopback
// OpenAI-compatible server started here and handed to the sidecar as the plugin does (ORA_LLM_*).
import { history, undo } from "@codemirror/commands";
import { diagnosticCount, forceLinting, forEachDiagnostic, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "fs";
import * as http from "http";
import type { AddressInfo } from "net";
import { join } from "path";

import { App } from "obsidian";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { askStream } from "../../src/api/ask-stream";
import { frontmatterLinter } from "../../src/lint/extension";
import type { QuickAction } from "../../src/quick/suggest";
import type { ResultCard } from "../../src/search/shape";
import { DEFAULT_SETTINGS, serveEnv } from "../../src/settings";
import { AskView } from "../../src/ui/ask-view";
import { QuickSearchModal } from "../../src/ui/quick-search-modal";
import { RelatedView } from "../../src/ui/related-view";
import { EventBatcher } from "../../src/vault/event-batcher";
import { aFile, aLeaf } from "../stand-in";
import { eventually, E2E_TIMEOUT_MS, SKIP_REASON, startSidecar, type LiveSidecar } from "./harness";

const SPACED = "Engrams/Spaced repetition strengthens memory.md";
const NEWER = "Engrams/Caffeine after 2 pm reduces deep sleep.md";
const OLDER = "Engrams/Caffeine after 2 pm does not affect sleep quality.md";

const REPLY = "Reviews spaced out over growing intervals strengthen memory [1].";

/**
 * A loopback OpenAI-compatible chat server: answers every question citing passage [1], as one
 * document, or word by word as server-sent chunks when asked to stream.
 */
class LoopbackModel {
	readonly bodies: { model: string; stream?: boolean; messages: { role: string; content: string }[] }[] = [];
	private readonly server = http.createServer((req, res) => {
		let raw = "";
		req.on("data", (chunk: Buffer) => (raw += chunk.toString()));
		req.on("end", () => {
			const body = JSON.parse(raw) as LoopbackModel["bodies"][number];
			this.bodies.push(body);
			if (!body.stream) {
				res.writeHead(200, { "Content-Type": "application/json" });
				res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: REPLY } }] }));
				return;
			}
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			for (const word of REPLY.split(/(?<= )/)) {
				res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: word } }] })}\n\n`);
			}
			res.end("data: [DONE]\n\n");
		});
	});

	async start(): Promise<string> {
		await new Promise<void>((ok) => this.server.listen(0, "127.0.0.1", ok));
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
	}

	stop(): Promise<void> {
		return new Promise((ok) => this.server.close(() => ok()));
	}
}

let live: LiveSidecar;
const model = new LoopbackModel();

/** The file's lines `start`..`end` (1-based), to check a citation points at the cited text. */
function fileLines(path: string, start: number, end: number): string {
	return readFileSync(join(live.vault, path), "utf8").split("\n").slice(start - 1, end).join("\n");
}

describe.skipIf(SKIP_REASON !== null)(`views ⇄ ora serve${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(async () => {
		const url = await model.start();
		const env = serveEnv({ ...DEFAULT_SETTINGS, llmUrl: url, llmModel: "loopback-model" }, {});
		live = await startSidecar({ env: env as Record<string, string> });
	});
	afterAll(async () => {
		await live?.stop();
		await model.stop();
	});

	it("shows the notes related to a note when it is opened", async () => {
		const { leaf, workspace } = aLeaf();
		const opened: ResultCard[] = [];
		const view = new RelatedView(leaf, {
			client: () => live.client,
			k: 5,
			open: async (card) => void opened.push(card),
			linkText: () => null,
			openDelayMs: 0,
		});
		await view.onOpen();
		workspace.trigger("file-open", aFile(NEWER));
		const rows = await eventually(async () => {
			const found = [...view.contentEl.querySelectorAll<HTMLElement>(".ora-result")];
			return found.length ? found : null;
		});
		const paths = rows.map((r) => r.querySelector(".ora-result-path")?.textContent);
		expect(paths).not.toContain(NEWER);
		expect(paths[0]).toBe(OLDER);
		expect(view.contentEl.querySelector(".ora-related-title")?.textContent).toBe("Related to Caffeine after 2 pm reduces deep sleep");
		rows[0]?.click();
		const card = opened[0];
		expect(card && fileLines(card.path, card.lineStart ?? 0, card.lineEnd ?? 0)).toContain(card?.snippet[0]?.text.slice(0, 20).replace(/…/g, ""));
		await view.onClose();
	});

	it("quick search opens the chosen note at the cited lines", async () => {
		const chosen: { card: ResultCard; action: QuickAction }[] = [];
		const modal = new QuickSearchModal(new App(), {
			client: () => live.client,
			k: 5,
			delayMs: 0,
			privateMode: () => false,
			choose: async (card, action) => void chosen.push({ card, action }),
			toPanel: async () => undefined,
		});
		modal.open();
		modal.inputEl.value = "spaced repetition memory";
		modal.inputEl.dispatchEvent(new Event("input"));
		await (modal as unknown as { updated: Promise<void> }).updated;
		modal.inputEl.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
		const { card, action } = chosen[0] ?? {};
		expect(action).toBe("open");
		expect(card?.path).toBe(SPACED);
		const cited = card ? fileLines(card.path, card.lineStart ?? 0, card.lineEnd ?? 0) : "";
		expect(cited.toLowerCase()).toContain("spaced");
	});

	it("asks through a loopback OpenAI-compatible model and renders clickable citations", async () => {
		const { leaf } = aLeaf();
		const opened: [string, number | null, number | null][] = [];
		const view = new AskView(leaf, {
			client: () => live.client,
			open: async (path, start, end) => void opened.push([path, start, end]),
			conversations: () => [],
			saveConversations: async () => undefined,
			llmConfigured: () => true,
		});
		await view.onOpen();
		await view.ask("How does spaced repetition help memory?");
		expect(model.bodies.at(-1)?.model).toBe("loopback-model");
		expect(model.bodies.at(-1)?.stream).toBeUndefined();
		expect(JSON.stringify(model.bodies.at(-1)?.messages)).toContain("[1]");
		expect(view.contentEl.querySelector(".ora-ask-generator")?.textContent).toBe("Generated by llm:loopback-model");
		const link = view.contentEl.querySelector<HTMLElement>(".ora-ask-text a.ora-cite");
		expect(link?.textContent).toBe("[1]");
		link?.click();
		const [path, start, end] = opened[0] ?? ["", 0, 0];
		expect(path).toBe(SPACED);
		// The link opens exactly the lines of the passage the model was given as [1].
		const sent = (model.bodies.at(-1)?.messages ?? []).map((m) => m.content).join("\n");
		const lines = fileLines(path, start ?? 0, end ?? 0).split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
		expect(lines.length).toBeGreaterThan(0);
		for (const line of lines) expect(sent).toContain(line);
		await view.onClose();
	});

	it("keeps writing a conversation into its note after the user moved the note out of the chats folder", async () => {
		const { leaf, vault } = aLeaf();
		const view = new AskView(leaf, { client: () => live.client, open: async () => undefined, conversations: () => [], saveConversations: async () => undefined, llmConfigured: () => true });
		await view.onOpen();
		const chats = join(live.vault, "Chats", "Ora");
		const before = existsSync(chats) ? readdirSync(chats) : [];
		await view.ask("How does spaced repetition help memory?");
		const written = readdirSync(chats).filter((name) => !before.includes(name));
		expect(written).toHaveLength(1);
		const note = `Chats/Ora/${written[0] ?? ""}`;
		const moved = "Projects/Memory chat.md";
		mkdirSync(join(live.vault, "Projects"));
		renameSync(join(live.vault, note), join(live.vault, moved));
		// What the plugin does on Obsidian's rename event: the view follows, the batcher tells the sidecar.
		vault.trigger("rename", aFile(moved), note);
		const batcher = new EventBatcher((events) => live.client.sendEvents(events), 10);
		batcher.push({ kind: "renamed", path: moved, old_path: note });
		await batcher.flush();
		await view.ask("And what does the forgetting curve say?");
		expect(readdirSync(chats).filter((name) => !before.includes(name))).toEqual([]);
		const text = readFileSync(join(live.vault, moved), "utf8");
		expect(text).toContain("How does spaced repetition help memory?");
		expect(text).toContain("And what does the forgetting curve say?");
		await view.onClose();
	});

	it("streams an answer from the model through the sidecar, piece by piece, then cites", async () => {
		const token = readFileSync(join(live.vault, ".ora", "token"), "utf8").trim();
		const pieces: string[] = [];
		const doc = await askStream({ baseUrl: live.client.baseUrl, token }, { question: "How does spaced repetition help memory?" }, (t) =>
			pieces.push(t),
		);
		expect(model.bodies.at(-1)?.stream).toBe(true);
		expect(pieces.length).toBeGreaterThan(3);
		expect(pieces.join("")).toBe(REPLY);
		expect(doc.answer).toBe(REPLY);
		expect(doc.citations[0]?.path).toBe(SPACED);
		expect(doc.citations[0]?.cited).toBe(true);
	});

	it("applies a quick fix to a lint finding as one undoable transaction, then ignores a folder", async () => {
		const text = "---\nnexus: []\ntype: engramm\ntags: []\ndate created: 2024-01-02\ndate modified: 2024-01-02\n---\n# Draft\n";
		const path = "Drafts/Draft.md";
		const parent = document.body.appendChild(document.createElement("div"));
		let edits = 0;
		const view = new EditorView({
			parent,
			state: EditorState.create({
				doc: text,
				extensions: [
					history(),
					EditorView.updateListener.of((u) => (edits += u.transactions.filter((t) => t.docChanged).length)),
					frontmatterLinter(
						{
							pathOf: () => path,
							lint: (p, t) => live.client.lint(p, t),
							fixes: { dates: () => ({}), ignore: async (target) => void (await live.client.lintIgnore(target)) },
						},
						0,
					),
				],
			}),
		});
		try {
			forceLinting(view);
			const found = await eventually(async () => {
				const all: { d: CmDiagnostic; from: number; to: number }[] = [];
				forEachDiagnostic(view.state, (d, from, to) => all.push({ d, from, to }));
				return all.find((f) => f.d.source === "type-unknown") ?? null;
			});
			const replace = found.d.actions?.find((a) => a.name === "Replace with 'engram'");
			expect(replace).toBeDefined();
			replace?.apply(view, found.from, found.to);
			expect(edits).toBe(1);
			expect(view.state.doc.toString()).toBe(text.replace("engramm", "engram"));
			const after = await live.client.lint(path, view.state.doc.toString());
			expect(after.filter((d) => d.code === "type-unknown")).toEqual([]);
			undo(view);
			expect(view.state.doc.toString()).toBe(text);

			// "Ignore this folder": written to the vault's ora.yaml by the sidecar, lint goes quiet.
			forceLinting(view);
			const again = await eventually(async () => {
				const hits: { d: CmDiagnostic; from: number; to: number }[] = [];
				forEachDiagnostic(view.state, (d, from, to) => {
					if (d.source === "type-unknown") hits.push({ d, from, to });
				});
				return hits[0] ?? null;
			});
			again.d.actions?.find((a) => a.name === "Ignore lint for this folder")?.apply(view, again.from, again.to);
			await eventually(async () => (diagnosticCount(view.state) === 0 ? true : null), 20_000);
			expect(readFileSync(join(live.vault, "ora.yaml"), "utf8")).toContain("Drafts/");
			expect(await live.client.lint(path, text)).toEqual([]);
		} finally {
			view.destroy();
		}
	});
});
