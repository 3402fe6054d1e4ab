// End-to-end: the plugin's client code against a real `ora serve` on a temporary vault.
import { readFileSync, writeFileSync } from "fs";

import { App } from "obsidian";
import { join } from "path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SidecarClient, SidecarError } from "../../src/api/client";
import { NodeHttpTransport } from "../../src/api/node-transport";
import { EventStream } from "../../src/api/event-stream";
import type { StreamEvent } from "../../src/api/types";
import { placeDiagnostics } from "../../src/lint/ranges";
import { AdoptModal, undoAdoption } from "../../src/ui/adopt-modal";
import { shapeResults } from "../../src/search/shape";
import { EventBatcher } from "../../src/vault/event-batcher";
import { eventually, E2E_TIMEOUT_MS, SKIP_REASON, startSidecar, type LiveSidecar } from "./harness";

let live: LiveSidecar;

describe.skipIf(SKIP_REASON !== null)(`plugin ⇄ ora serve${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(async () => {
		live = await startSidecar();
	});
	afterAll(async () => {
		await live?.stop();
	});

	it("finds a note by meaning and shapes it into a highlighted card", async () => {
		const doc = await live.client.search({ query: "spaced repetition memory", k: 5 });
		const { cards } = shapeResults(doc);
		const card = cards[0];
		expect(card?.path).toBe("Engrams/Spaced repetition strengthens memory.md");
		expect(card?.type).toBe("engram");
		expect(card?.snippet.some((s) => s.hit && s.text.toLowerCase() === "spaced")).toBe(true);
		expect(card?.why[0]).toMatch(/^Dense rank: #\d+$/);
		expect(card && card.lineStart !== null && card.lineEnd !== null && card.lineStart >= 1 && card.lineEnd >= card.lineStart).toBe(true);
	});

	it("flags incubating notes and keeps private ones out unless in private mode", async () => {
		const normal = await live.client.search({ query: "uninterrupted focused work hours", k: 10 });
		const deep = normal.results.find((r) => r.path.includes("Deep work"));
		expect(deep?.flags).toContain("incubating");
		expect(normal.results.some((r) => r.path.includes("private journal"))).toBe(false);
		const priv = await live.client.search({ query: "private journal sleep habits", k: 10, private: true });
		const journal = shapeResults(priv).cards.find((c) => c.path.includes("private journal"));
		expect(journal?.badges).toContain("private");
	});

	it("lints unsaved editor text and places the diagnostic on the offending key's line", async () => {
		const text = "---\nnexus: []\ntype: engramm\ntags: []\n---\n# Draft\n";
		const diagnostics = await live.client.lint("Engrams/Draft.md", text);
		const typeProblem = diagnostics.find((d) => d.line === 3);
		expect(typeProblem?.severity).toBe("error");
		const [placed] = placeDiagnostics(text, typeProblem ? [typeProblem] : []);
		expect(text.slice(placed?.from, placed?.to)).toBe("type: engramm");
	});

	it("fixes missing dates on disk when asked", async () => {
		const rel = "Engrams/Undated.md";
		writeFileSync(join(live.vault, rel), "---\nnexus: []\ntype: engram\ntags:\n  - atomic\n---\n# Undated\n\nA note without dates.\n");
		const answer = await live.client.lintFix(rel);
		expect(answer.changed).toBe(true);
		const after = readFileSync(join(live.vault, rel), "utf8");
		expect(after).toMatch(/date created: \d{4}-\d{2}-\d{2}/);
		expect(after).toContain("# Undated\n\nA note without dates.\n");
	});

	it("forwards a batched vault event so a new note becomes searchable", async () => {
		const rel = "Engrams/Interleaving sharpens discrimination.md";
		writeFileSync(
			join(live.vault, rel),
			"---\nnexus: []\ntype: engram\ntags:\n  - atomic\ndate created: 2024-05-01\ndate modified: 2024-05-01\n---\n# Interleaving sharpens discrimination\n\nMixing problem types in one session (interleaving) trains learners to tell the types apart.\n",
		);
		const answers: unknown[] = [];
		const batcher = new EventBatcher(async (events) => answers.push(await live.client.sendEvents(events)), 10);
		batcher.push({ kind: "created", path: rel });
		batcher.push({ kind: "modified", path: rel });
		await batcher.flush();
		expect(answers).toHaveLength(1);
		// One event once the batcher merged the two: applied, or found applied already when the
		// sidecar's own watcher saw the file first (`deduplicated`, docs/http-api.md).
		const { accepted, deduplicated } = answers[0] as { accepted: number; deduplicated: number };
		expect(accepted + deduplicated).toBe(1);
		const hit = await eventually(async () => {
			const doc = await live.client.search({ query: "interleaving problem types", k: 3 });
			return doc.results.find((r) => r.path === rel) ?? null;
		});
		expect(hit.type).toBe("engram");
	});

	it("streams the index state over server-sent events", async () => {
		const events: StreamEvent[] = [];
		const stream = new EventStream({
			url: `${live.client.baseUrl}/v1/events/stream`,
			token: () => readFileSync(join(live.vault, ".ora", "token"), "utf8").trim(),
			onEvent: (e) => events.push(e),
		});
		stream.start();
		try {
			await eventually(async () => (events.some((e) => e.type === "index") ? true : null), 10_000);
		} finally {
			stream.stop();
		}
		const index = events.find((e) => e.type === "index");
		expect(index && index.type === "index" && index.files).toBeGreaterThanOrEqual(4);
	});

	it("adopts an untyped note from the modal and the undo gives its bytes back", async () => {
		const rel = "Resources/Loose thoughts.md";
		const original = "# Loose thoughts\r\n\r\nNo frontmatter, CRLF line endings.\r\n";
		writeFileSync(join(live.vault, rel), original);
		const modal = new AdoptModal(new App(), { client: live.client });
		modal.open();
		const button = await eventually(async () => {
			const found = [...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Adopt 1 note");
			return found ?? null;
		});
		expect(modal.contentEl.querySelector(".ora-adopt-path")?.textContent).toBe(rel);
		expect(readFileSync(join(live.vault, rel), "utf8")).toBe(original); // the plan wrote nothing
		button.click();
		const adopted = await eventually(async () => {
			const text = readFileSync(join(live.vault, rel), "utf8");
			return text.startsWith("---\r\ntype: resource\r\n") ? text : null;
		});
		expect(adopted.endsWith(original)).toBe(true);
		await undoAdoption(live.client);
		expect(readFileSync(join(live.vault, rel), "utf8")).toBe(original);
	});

	it("finds a Persian note by words typed on an Arabic keyboard and lights up the note's own spelling", async () => {
		const rel = "Resources/سفر اصفهان.md";
		writeFileSync(join(live.vault, rel), "# سفر اصفهان\n\nامروز غذای محلی خوردیم و از میدان نقش جهان دیدن کردیم. #سفر\n");
		const batcher = new EventBatcher(async (events) => void (await live.client.sendEvents(events)), 10);
		batcher.push({ kind: "created", path: rel });
		await batcher.flush();
		// ي and ك, as an Arabic keyboard types Persian ی and ک.
		const card = await eventually(async () => {
			const { cards } = shapeResults(await live.client.search({ query: "غذاي محلي", k: 3 }));
			return cards[0]?.path === rel ? cards[0] : null;
		});
		expect(card.why).toContain("Holds your words as you wrote them");
		expect(card.snippet.filter((s) => s.hit).map((s) => s.text)).toEqual(["غذای", "محلی"]);
	});

	it("refuses a request without the token", async () => {
		const anonymous = new SidecarClient(new NodeHttpTransport(), { baseUrl: live.client.baseUrl, token: () => null });
		const err = await anonymous.status().catch((e: unknown) => e);
		expect(err).toBeInstanceOf(SidecarError);
		expect((err as SidecarError).status).toBe(401);
	});
});
