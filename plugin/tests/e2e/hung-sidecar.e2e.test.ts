// End-to-end: a real `ora serve`, stopped with SIGSTOP as a hung sidecar would be (alive, taking
// connections, answering nothing). The plugin's client gives up within the short limits this test
// declares, the health check calls it hung, and once it runs again (SIGCONT) calls succeed.
import { readFileSync } from "fs";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { NodeHttpTransport } from "../../src/api/node-transport";
import { tokenPath } from "../../src/settings";
import { SidecarSupervisor } from "../../src/sidecar/supervisor";
import { E2E_TIMEOUT_MS, SKIP_REASON, startSidecar, type LiveSidecar } from "./harness";

let live: LiveSidecar;

describe.skipIf(SKIP_REASON !== null)(`a stopped ora serve${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(async () => {
		live = await startSidecar();
	});
	afterAll(async () => {
		await live?.stop();
	});

	it("times out a search and fails its health check while stopped, then answers both once continued", async () => {
		const token = readFileSync(tokenPath({ dataFolder: "" }, live.vault), "utf8").trim();
		const client = new SidecarClient(new NodeHttpTransport(), {
			baseUrl: live.client.baseUrl,
			token: () => token,
			timeouts: { interactive: 1000, health: 500 },
		});
		// The supervisor's own health check, through this client's short limit.
		const supervisor = new SidecarSupervisor({
			client,
			autoStart: false,
			port: live.port,
			vault: live.vault,
			ownPid: process.pid,
			spawn: () => {
				throw new Error("spawn not expected");
			},
			readRecord: async () => null,
			readToken: async () => token,
			onToken: () => undefined,
		});
		const { pid } = await client.status();
		process.kill(pid, "SIGSTOP");
		try {
			const err = await client.search({ query: "spaced repetition memory", k: 3 }).catch((e: unknown) => e);
			expect(err).toMatchObject({ code: "timeout", message: "The sidecar did not answer in 1 s." });
			expect(await supervisor.probe()).toEqual({ state: "hung" });
		} finally {
			process.kill(pid, "SIGCONT");
		}
		const doc = await client.search({ query: "spaced repetition memory", k: 3 });
		expect(doc.results[0]?.path).toBe("Engrams/Spaced repetition strengthens memory.md");
		expect(await supervisor.probe()).toMatchObject({ state: "ok" });
	});
});
