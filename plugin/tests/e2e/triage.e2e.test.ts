// End-to-end: the triage modal, with the plugin's real client, resolves a contradiction that a real
// `ora serve` found by itself (no scan call: its background cleaning), the resolution changes the
// notes on disk, and the modal's undo puts both back byte for byte.
import { existsSync, readFileSync, renameSync, unlinkSync } from "fs";
import { join } from "path";

import { App } from "obsidian";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Pair } from "../../src/api/types";
import { trashNote, type TrashDeps } from "../../src/ui/trash";
import { TriageModal } from "../../src/ui/triage-modal";
import { aFile } from "../stand-in";
import { eventually, E2E_TIMEOUT_MS, SKIP_REASON, startSidecar, waitForStatus, type LiveSidecar } from "./harness";

const NEWER = "Engrams/Caffeine after 2 pm reduces deep sleep.md";
const OLDER = "Engrams/Caffeine after 2 pm does not affect sleep quality.md";

let live: LiveSidecar;

function isCaffeinePair(p: Pair): boolean {
	return [p.a.path, p.b.path].sort().join("|") === [NEWER, OLDER].sort().join("|");
}

describe.skipIf(SKIP_REASON !== null)(`triage ⇄ ora serve${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(async () => {
		live = await startSidecar();
	});
	afterAll(async () => {
		await live?.stop();
	});

	it("lists the open pair and writes the changed-mind resolution into both notes", async () => {
		const before = { newer: readFileSync(join(live.vault, NEWER)), older: readFileSync(join(live.vault, OLDER)) };
		const pair = await eventually(async () => {
			const open = await live.client.contradictions("open");
			return open.find(isCaffeinePair) ?? null;
		}, 120_000);

		const counts: number[] = [];
		const confirmations: string[] = [];
		const modal = new TriageModal(new App(), {
			client: live.client,
			open: async () => undefined,
			onOpenCount: (n) => counts.push(n),
			confirm: async (_title, text) => (confirmations.push(text), true),
		});
		modal.open();
		const card = await eventually(async () => {
			const cards = [...modal.contentEl.querySelectorAll<HTMLElement>(".ora-pair")];
			return cards.find((c) => c.textContent?.includes(pair.a.text.slice(0, 30))) ?? null;
		});
		const label = pair.a.path === NEWER ? "A supersedes B" : "B supersedes A";
		const button = [...card.querySelectorAll("button")].find((b) => b.textContent === label);
		button?.click();
		await eventually(async () => (counts.length >= 2 ? true : null));

		expect(confirmations[0]).toContain(`"${NEWER}" will get a supersedes link`);
		const newer = readFileSync(join(live.vault, NEWER), "utf8");
		const older = readFileSync(join(live.vault, OLDER), "utf8");
		expect(newer).toMatch(/supersedes:\s*\n\s*- "?\[\[Caffeine after 2 pm does not affect sleep quality\]\]"?/);
		expect(older).toMatch(/- archived/);
		// The body of each note is untouched.
		expect(older).toContain("my sleep score\nwas the same on coffee days");

		const open = await live.client.contradictions("open");
		expect(open.some((p) => p.id === pair.id)).toBe(false);
		const status = await waitForStatus(live.client, () => true);
		expect(status.contradictions_open).toBe(open.length);

		const undo = [...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Undo last resolution");
		undo?.click();
		await eventually(async () => (readFileSync(join(live.vault, OLDER)).equals(before.older) ? true : null));
		expect(readFileSync(join(live.vault, NEWER)).equals(before.newer)).toBe(true);
		const reopened = await live.client.contradictions("open");
		expect(reopened.some((p) => p.id === pair.id)).toBe(true);
		modal.close();
	});

	it("deletes a note from triage through Obsidian's trash after the sidecar checked it, and Undo brings it back from the sidecar's record", async () => {
		const before = readFileSync(join(live.vault, OLDER));
		const pair = await eventually(async () => (await live.client.contradictions("open")).find(isCaffeinePair) ?? null, 120_000);
		const trashed: string[] = [];
		// Obsidian's side over the real vault; trashFile as with "Move to system trash": out of the vault.
		const obsidian: TrashDeps = {
			file: (path) => (existsSync(join(live.vault, path)) ? aFile(path) : null),
			readBinary: async (file) => new Uint8Array(readFileSync(join(live.vault, file.path))).buffer,
			trashFile: async (file) => (trashed.push(file.path), unlinkSync(join(live.vault, file.path))),
			option: () => "system",
		};
		const modal = new TriageModal(new App(), {
			client: live.client,
			open: async () => undefined,
			onOpenCount: () => undefined,
			confirm: async () => true,
			trash: (path, hash) => trashNote(obsidian, path, hash),
		});
		modal.open();
		const card = await eventually(async () => [...modal.contentEl.querySelectorAll<HTMLElement>(".ora-pair")].find((c) => c.textContent?.includes(OLDER)) ?? null);
		const label = pair.a.path === OLDER ? "Delete A" : "Delete B";
		[...card.querySelectorAll("button")].find((b) => b.textContent === label)?.click();
		await eventually(async () => (trashed.length > 0 ? true : null));
		expect(trashed).toEqual([OLDER]);
		expect(existsSync(join(live.vault, OLDER))).toBe(false);
		expect(existsSync(join(live.vault, ".trash"))).toBe(false); // the sidecar moved nothing itself
		[...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Undo last resolution")?.click();
		await eventually(async () => (existsSync(join(live.vault, OLDER)) ? true : null));
		expect(readFileSync(join(live.vault, OLDER)).equals(before)).toBe(true);
		await eventually(async () => ((await live.client.contradictions("open")).some(isCaffeinePair) ? true : null), 120_000);
		modal.close();
	});

	it("refreshes the list when a note of the shown pair was renamed meanwhile", async () => {
		const pair = await eventually(async () => (await live.client.contradictions("open")).find(isCaffeinePair) ?? null, 120_000);
		const modal = new TriageModal(new App(), { client: live.client, open: async () => undefined, onOpenCount: () => undefined, confirm: async () => true });
		modal.open();
		await eventually(async () => (modal.contentEl.querySelector(".ora-pair") ? true : null));
		const moved = "Engrams/Caffeine and sleep, old view.md";
		renameSync(join(live.vault, OLDER), join(live.vault, moved));
		// The sidecar sees the rename and finds the pair again under the note's new path.
		await eventually(async () => ((await live.client.contradictions("open")).some((p) => [p.a.path, p.b.path].includes(moved)) ? true : null), 120_000);
		const label = pair.a.path === NEWER ? "A supersedes B" : "B supersedes A";
		const card = [...modal.contentEl.querySelectorAll<HTMLElement>(".ora-pair")].find((c) => c.textContent?.includes(OLDER));
		[...(card?.querySelectorAll("button") ?? [])].find((b) => b.textContent === label)?.click();
		const paths = await eventually(async () => {
			const shown = [...modal.contentEl.querySelectorAll(".ora-claim-path")].map((el) => el.textContent ?? "");
			return shown.includes(moved) ? shown : null;
		});
		expect(paths).not.toContain(OLDER);
		expect(existsSync(join(live.vault, OLDER))).toBe(false);
		modal.close();
	});
});
