// End-to-end: a real `ora serve`, stopped with SIGSTOP as a hung sidecar would be (alive, taking
// connections, answering nothing). The plugin's client gives up within the short limits this test
// declares, the health check calls it hung, and once it runs again (SIGCONT) calls succeed.
import { spawn } from "child_process";
import { existsSync, readFileSync, rmSync } from "fs";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { EventStream } from "../../src/api/event-stream";
import { NodeHttpTransport } from "../../src/api/node-transport";
import { recordPath, tokenPath } from "../../src/settings";
import { SidecarLink } from "../../src/sidecar/link";
import { parseRecord, SidecarSupervisor } from "../../src/sidecar/supervisor";
import { copyVault, E2E_TIMEOUT_MS, E2E_TIMEOUTS, eventually, ORA, realSupervisor, SKIP_REASON, startSidecar, type LiveSidecar } from "./harness";

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

describe.skipIf(SKIP_REASON !== null)(`a stopped ora serve started outside Obsidian${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	it("says so, and a restart continues and ends it, then starts the plugin's own on the same vault", async () => {
		const vault = copyVault();
		// As a user runs it in a terminal: no --parent-pid, so the plugin did not start it.
		const outside = spawn(ORA, ["serve", vault, "--port", "0"], { stdio: ["ignore", "ignore", "pipe"], env: process.env });
		const stderr: string[] = [];
		outside.stderr.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
		const exited = new Promise((resolve) => outside.on("exit", (code, signal) => resolve(signal ?? code)));
		let link: SidecarLink | null = null;
		try {
			const record = await eventually(async () => (existsSync(recordPath({ dataFolder: "" }, vault)) ? parseRecord(readFileSync(recordPath({ dataFolder: "" }, vault), "utf8")) : null), 150_000);
			expect(record?.pid).toBe(outside.pid);
			outside.kill("SIGSTOP");
			let token: string | null = null;
			const client = new SidecarClient(new NodeHttpTransport(60_000), { baseUrl: "http://127.0.0.1:9", token: () => token, timeouts: { ...E2E_TIMEOUTS, health: 1000 } });
			const own = realSupervisor(vault, client, (t) => (token = t));
			link = new SidecarLink({
				supervisor: own,
				client,
				openStream: (handlers) => new EventStream({ url: `${client.baseUrl}/v1/events/stream`, token: () => token, ...handlers }),
				onStatus: () => undefined,
				restart: { hungPollMs: 60_000 },
			});
			await link.start();
			expect(link.status.view).toMatchObject({ phase: "not-responding", action: "restart" });
			expect(link.status.view.detail).toContain(`This vault's sidecar (ora serve, pid ${outside.pid}, started outside Obsidian) is running but does not answer: it is stopped`);
			await link.restart();
			// Continued, then SIGTERM: a clean exit (a SIGKILL only if it took longer than 5 s).
			expect([0, "SIGKILL"]).toContain(await exited);
			expect(link.status.view.phase).not.toBe("error");
			const status = await client.status();
			expect(status.pid).not.toBe(outside.pid);
			expect(own.owned).toBe(true);
			expect(status.vault).toBe(vault);
		} finally {
			link?.stop();
			if (outside.exitCode === null && outside.signalCode === null) outside.kill("SIGKILL");
			await new Promise((ok) => setTimeout(ok, 300));
			rmSync(vault, { recursive: true, force: true });
		}
		expect(stderr.join("")).not.toContain("Traceback");
	});
});
