// End-to-end: the plugin itself (main.ts in the `obsidian` stand-in) and a real `ora serve`. A chat
// note moved while Obsidian was closed (so no rename event was sent) keeps its conversation: on
// load the plugin finds the note by the conversation id in its frontmatter and relinks it.
import { mkdirSync, readFileSync, renameSync, rmSync } from "fs";
import { join } from "path";

import { describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { NodeHttpTransport } from "../../src/api/node-transport";
import { isAlive, parseRecord } from "../../src/sidecar/supervisor";
import * as standIn from "../__mocks__/obsidian";
import { pluginOn, until, type PluginHost } from "../plugin-host";
import { copyVault, E2E_TIMEOUT_MS, E2E_TIMEOUTS, eventually, ORA, SKIP_REASON } from "./harness";

const QUESTION = "How does spaced repetition strengthen memory?";

/** A client of the sidecar the plugin runs, through its record and token. */
function clientOf(vault: string): { client: SidecarClient; pid: number } {
	const record = parseRecord(readFileSync(join(vault, ".ora", "server.json"), "utf8"));
	if (record === null) throw new Error("no sidecar record");
	const token = readFileSync(join(vault, ".ora", "token"), "utf8").trim();
	return { client: new SidecarClient(new NodeHttpTransport(60_000), { baseUrl: `http://127.0.0.1:${record.port}`, token: () => token, timeouts: E2E_TIMEOUTS }), pid: record.pid };
}

async function loaded(vault: string): Promise<PluginHost> {
	const plugin = pluginOn(vault, { oraCommand: ORA });
	await plugin.load();
	await until(() => plugin.status().text === "Ora: ready" || plugin.status().text === "Ora: error", 150_000);
	expect(plugin.status().text).toBe("Ora: ready");
	return plugin;
}

describe.skipIf(SKIP_REASON !== null)(`chat notes moved while Obsidian was closed${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	it("are found by their conversation id on the next load, and the conversation follows them", async () => {
		const vault = copyVault();
		let pid = 0;
		try {
			const first = await loaded(vault);
			const { client, pid: firstPid } = clientOf(vault);
			pid = firstPid;
			const asked = await client.ask({ question: QUESTION, conversation: "moved-1" });
			const note = asked.conversation_note ?? "";
			expect(note).toMatch(/^Chats\/Ora\/moved-1\.md$/);
			first.host.unload(); // Obsidian closes: its sidecar stops with it
			await until(() => !isAlive(firstPid), 30_000);

			// Moved out of the chats folder with Obsidian closed: only the note itself says whose it is.
			mkdirSync(join(vault, "Archive"));
			renameSync(join(vault, note), join(vault, "Archive", "Sourdough chat.md"));

			const second = pluginOn(vault, { oraCommand: ORA });
			// What Obsidian's vault and metadata cache hold on the next start: the note at its new path.
			second.app.vault.files = [standIn.TFile.at("Archive/Sourdough chat.md")];
			second.app.metadataCache.frontmatter.set("Archive/Sourdough chat.md", { type: "chat", conversation: "moved-1", namespace: "default" });
			await second.load();
			await until(() => second.status().text === "Ora: ready", 150_000);
			const { client: again, pid: secondPid } = clientOf(vault);
			pid = secondPid;
			// The relink goes out once the sidecar is ready; this list does not sync memory first.
			await eventually(async () => ((await again.conversationNotes()).some((c) => c.note === "Archive/Sourdough chat.md") ? true : null), 30_000);
			const conversation = await again.conversation("moved-1");
			expect(conversation.turns.map((t) => t.content)).toEqual([QUESTION]);
			const next = await again.ask({ question: "And how often should I review?", conversation: "moved-1" });
			expect(next.conversation_note).toBe("Archive/Sourdough chat.md");
			second.host.unload();
		} finally {
			if (pid && isAlive(pid)) process.kill(pid, "SIGKILL");
			await new Promise((ok) => setTimeout(ok, 300));
			rmSync(vault, { recursive: true, force: true });
		}
	});
});
