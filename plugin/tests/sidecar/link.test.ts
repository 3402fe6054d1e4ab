// The supervisor, the event stream and the status model together, against real child processes: a
// small Node program that behaves like `ora serve` at its edges (DATA/server.json, DATA/token,
// /v1/health, /v1/status, /v1/events/stream).
import { spawn, spawnSync, type ChildProcess } from "child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { createServer } from "http";
import type { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";

import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { EventStream } from "../../src/api/event-stream";
import { NodeHttpTransport } from "../../src/api/node-transport";
import type { Timeouts } from "../../src/api/timeouts";
import { markStopping, stoppedBefore } from "../../src/sidecar/handover";
import { SidecarLink } from "../../src/sidecar/link";
import { ProcFs, PsLsof, type Processes } from "../../src/sidecar/processes";
import type { Phase } from "../../src/sidecar/status-model";
import { parseRecord, SidecarSupervisor } from "../../src/sidecar/supervisor";
import { FAKE_SIDECAR, fakeOra } from "./fake-sidecar";


const children: ChildProcess[] = [];
const folders: string[] = [];
const links: SidecarLink[] = [];
afterEach(() => {
	for (const link of links.splice(0)) link.stop();
	for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
	for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function aVault(): { vault: string; data: string } {
	const vault = mkdtempSync(join(tmpdir(), "ora-link-"));
	folders.push(vault);
	return { vault, data: join(vault, ".ora") };
}

interface Rig {
	link: SidecarLink;
	supervisor: SidecarSupervisor;
	client: SidecarClient;
	phases: Phase[];
	/** The status bar's detail at each change. */
	details: string[];
	spawned: ChildProcess[];
	/** The client's address each time the link said the sidecar was ready (onReady). */
	readies: string[];
}

interface RigChange {
	script?: string;
	servedVault?: string;
	port?: number;
	recordDelayMs?: number;
	timeouts?: Partial<Timeouts>;
	hungPollMs?: number;
	/** The event stream's silence limit (the stand-in sends no pings). */
	silenceMs?: number;
	hungStopWaitMs?: number;
	/** How the supervisor sees other processes (default: this platform's). */
	processes?: Processes;
	/** What an earlier session of the plugin is still stopping. */
	handover?: () => Promise<void>;
	/** The plugin's process id (another Obsidian window has its own). */
	ownPid?: number;
}

function rig(vault: string, data: string, change: RigChange = {}): Rig {
	let token: string | null = null;
	const client = new SidecarClient(new NodeHttpTransport(2000), { baseUrl: "http://127.0.0.1:9", token: () => token, timeouts: change.timeouts });
	const spawned: ChildProcess[] = [];
	const supervisor = new SidecarSupervisor({
		client,
		autoStart: true,
		port: change.port ?? 0,
		vault,
		ownPid: change.ownPid ?? process.pid,
		spawn: () => {
			const args = ["-e", change.script ?? FAKE_SIDECAR, vault, data, ...(change.servedVault ? [change.servedVault] : [])];
			const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, PARENT_PID: String(change.ownPid ?? process.pid) } });
			children.push(child);
			spawned.push(child);
			return child;
		},
		readRecord: async () => {
			await new Promise((resolve) => setTimeout(resolve, change.recordDelayMs ?? 0));
			return parseRecord(readFileSync(join(data, "server.json"), "utf8"));
		},
		readToken: async () => readFileSync(join(data, "token"), "utf8"),
		onToken: (t) => (token = t),
		startTimeoutMs: 10_000,
		pollMs: 20,
		processes: change.processes,
		handover: change.handover,
	});
	const phases: Phase[] = [];
	const details: string[] = [];
	const readies: string[] = [];
	const link = new SidecarLink({
		supervisor,
		client,
		openStream: (handlers) =>
			new EventStream({ url: `${client.baseUrl}/v1/events/stream`, token: () => token, ...handlers, minDelayMs: 50, silenceMs: change.silenceMs }),
		onStatus: (model) => {
			details.push(model.view.detail);
			if (phases[phases.length - 1] !== model.view.phase) phases.push(model.view.phase);
		},
		onReady: () => readies.push(client.baseUrl),
		restart: { minDelayMs: 20, maxDelayMs: 100, maxFailures: 3, stableMs: 60_000, hungPollMs: change.hungPollMs ?? 5_000, hungStopWaitMs: change.hungStopWaitMs ?? 5_000 },
	});
	links.push(link);
	return { link, supervisor, client, phases, details, spawned, readies };
}

/** The n-th spawned child (the test fails if there is none). */
function nth(children: ChildProcess[], n: number): ChildProcess {
	const child = children[n];
	if (!child) throw new Error(`no child ${n}`);
	return child;
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!check()) {
		if (Date.now() > deadline) throw new Error("condition not met in time");
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe("SidecarLink", () => {
	it("shows reconnecting at once after a SIGKILL of the sidecar it started, then restarts it", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data);
		await r.link.start();
		expect(r.link.status.view).toMatchObject({ phase: "ready", openPairs: 2, action: "triage" });
		const first = nth(r.spawned, 0);
		const firstPort = new URL(r.client.baseUrl).port;
		first.kill("SIGKILL");
		await until(() => r.phases.includes("reconnecting"));
		await until(() => r.spawned.length === 2 && r.link.status.view.phase === "ready");
		expect(r.phases.slice(r.phases.indexOf("reconnecting"))).toEqual(["reconnecting", "connected", "ready"]);
		expect(nth(r.spawned, 1).pid).not.toBe(first.pid);
		expect(new URL(r.client.baseUrl).port).not.toBe(firstPort); // found through the new record
		expect(r.supervisor.owned).toBe(true);
	});

	it("stops restarting after repeated failures and says so", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data);
		await r.link.start();
		// From now on every start crashes at once, as a broken installation would.
		const crash = "console.error('Traceback: ImportError: no module named onnxruntime'); process.exit(1)";
		const options = (r.supervisor as unknown as { options: { spawn: () => ChildProcess } }).options;
		options.spawn = () => {
			const child = spawn(process.execPath, ["-e", crash], { stdio: ["ignore", "ignore", "pipe"] });
			children.push(child);
			r.spawned.push(child);
			return child;
		};
		nth(r.spawned, 0).kill("SIGKILL");
		await until(() => r.link.status.view.phase === "stopped");
		const view = r.link.status.view;
		expect(view.detail).toContain("stopped 3 times in a row");
		expect(view.detail).toContain("no module named onnxruntime");
		expect(view.action).toBe("restart");
		expect(r.spawned.length).toBe(4);
	});

	it("refuses a sidecar that serves another vault, in plain words", async () => {
		const { vault, data } = aVault();
		const other = aVault();
		// Another vault's sidecar answers on the fixed port this vault is set to.
		const theirs = rig(other.vault, other.data);
		await theirs.link.start();
		const port = Number(new URL(theirs.client.baseUrl).port);
		const r = rig(vault, data, { port });
		// It reads its own token, which the other sidecar does not accept; with the other
		// vault's token it would learn the vault from the status. Both are refused.
		await r.link.start();
		expect(r.link.status.view).toMatchObject({ phase: "error", action: "settings" });
		expect(r.link.status.view.detail).toMatch(/belongs to another vault|serves another vault/);
		expect(r.link.status.view.detail).toContain("Set Port to 0 (automatic)");
		expect(r.spawned).toEqual([]);
	});

	it("refuses a sidecar whose status names another vault", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data, { servedVault: "/somewhere/else" });
		await r.link.start();
		expect(r.link.status.view.phase).toBe("error");
		expect(r.link.status.view.detail).toContain("serves another vault (/somewhere/else), not this one");
	});

	it("gives two vaults two sidecars on two ports", async () => {
		const one = aVault();
		const two = aVault();
		const a = rig(one.vault, one.data);
		const b = rig(two.vault, two.data);
		await Promise.all([a.link.start(), b.link.start()]);
		expect([a.link.status.view.phase, b.link.status.view.phase]).toEqual(["ready", "ready"]);
		expect(a.client.baseUrl).not.toBe(b.client.baseUrl);
		expect(nth(a.spawned, 0).pid).not.toBe(nth(b.spawned, 0).pid);
	});

	it("recognises the sidecar it started before a reload, and stops it on unload", async () => {
		const { vault, data } = aVault();
		// Started by this process in an earlier plugin session that ended without stop().
		const child = spawn(process.execPath, ["-e", FAKE_SIDECAR, vault, data], { stdio: "ignore", env: { ...process.env, PARENT_PID: String(process.pid) } });
		children.push(child);
		await until(() => existsSync(join(data, "server.json")));
		const after = rig(vault, data);
		await after.link.start();
		expect(after.spawned).toEqual([]); // attached, not started again
		expect(after.supervisor.owned).toBe(true);
		const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
		after.link.stop();
		expect(await exited).toBe("SIGTERM");
		expect(after.link.status.view.phase).toBe("stopped");
	});

	it("points a missing ora command to the setting", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data);
		const options = (r.supervisor as unknown as { options: { spawn: () => ChildProcess } }).options;
		options.spawn = () => spawn("/nonexistent/ora", ["serve"], { stdio: ["ignore", "ignore", "pipe"] });
		await r.link.start();
		expect(r.link.status.view).toMatchObject({ phase: "error", action: "settings" });
		expect(r.link.status.view.detail).toContain('Set "Ora command" in Ora\'s settings');
	});

	it("leaves no sidecar behind when stopped before its start got going", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data, { recordDelayMs: 300 }); // stop() lands while the record is read
		const starting = r.link.start();
		await new Promise((resolve) => setTimeout(resolve, 50));
		r.link.stop();
		await starting;
		expect(r.spawned.length).toBeLessThanOrEqual(1);
		for (const child of r.spawned) await until(() => child.exitCode !== null || child.signalCode !== null);
		expect(r.link.status.view.phase).toBe("stopped");
	});

	it("restarts only once the stopped sidecar has exited, not onto the one still shutting down", async () => {
		const { vault, data } = aVault();
		// Like ora serve: it answers while it shuts down (a write to finish), and a second one on
		// the same index refuses to start while the first holds the writer lock.
		const slow = `
const lockFs = require("fs"), lock = require("path").join(process.argv[2], "lock");
if (lockFs.existsSync(lock)) { console.error("the index is being written by process " + lockFs.readFileSync(lock, "utf8")); process.exit(2); }
lockFs.mkdirSync(process.argv[2], { recursive: true });
lockFs.writeFileSync(lock, String(process.pid));
process.on("SIGTERM", () => setTimeout(() => { lockFs.rmSync(lock); process.exit(0); }, 700));
${FAKE_SIDECAR}`;
		const r = rig(vault, data, { script: slow });
		await r.link.start();
		const first = nth(r.spawned, 0);
		await r.link.restart();
		expect(first.exitCode !== null || first.signalCode !== null).toBe(true);
		expect(r.link.status.view.detail).not.toContain("being written");
		expect(r.link.status.view.phase).toBe("ready");
		expect((await r.client.status()).pid).toBe(nth(r.spawned, 1).pid);
		expect(r.phases.slice(-2)).toEqual(["connected", "ready"]);
	});

	it("backs off and then says so when the sidecar answers but refuses its event stream, instead of asking again at once forever", async () => {
		const { vault, data } = aVault();
		// Health and status answer; the stream is refused (a token that changed under the plugin).
		const refusing = FAKE_SIDECAR.replace(
			'if (req.url === "/v1/events/stream") {',
			'if (req.url === "/v1/events/stream") { fs.appendFileSync(path.join(data, "streams"), "x"); res.statusCode = 401; return res.end("{}"); }\n  if (false) {',
		);
		const r = rig(vault, data, { script: refusing });
		await r.link.start();
		await new Promise((resolve) => setTimeout(resolve, 1500));
		const attempts = readFileSync(join(data, "streams"), "utf8").length;
		expect(attempts).toBeLessThanOrEqual(5);
		expect(r.link.status.view.phase).toBe("stopped");
		expect(r.link.status.view.detail).toContain("event stream");
	});

	it("says not responding when a call times out and the stopped sidecar misses its health check, then reconnects once it answers, starting no other", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data, { timeouts: { health: 300 }, hungPollMs: 100 });
		await r.link.start();
		expect(r.link.status.view.phase).toBe("ready");
		const child = nth(r.spawned, 0);
		child.kill("SIGSTOP");
		try {
			await r.link.suspect();
			expect(r.link.status.view).toMatchObject({ phase: "not-responding", action: "restart" });
			await new Promise((resolve) => setTimeout(resolve, 500)); // a few checks, each unanswered
			expect(r.link.status.view.phase).toBe("not-responding");
		} finally {
			child.kill("SIGCONT");
		}
		await until(() => r.link.status.view.phase === "ready");
		expect(r.phases.slice(r.phases.indexOf("not-responding"))).toEqual(["not-responding", "connected", "ready"]);
		expect(r.spawned).toHaveLength(1);
	});

	it("says not responding, and starts no second sidecar, when the stream of a stopped sidecar goes silent", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data, { timeouts: { health: 300 }, hungPollMs: 100, silenceMs: 400 });
		await r.link.start();
		const child = nth(r.spawned, 0);
		child.kill("SIGSTOP");
		try {
			await until(() => r.link.status.view.phase === "not-responding");
			expect(r.spawned).toHaveLength(1);
		} finally {
			child.kill("SIGCONT");
		}
		await until(() => r.link.status.view.phase === "ready");
		expect(r.spawned).toHaveLength(1);
	});

	it("leaves a sidecar that answers alone when a call times out", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data, { timeouts: { health: 300 } });
		await r.link.start();
		await r.link.suspect();
		expect(r.link.status.view.phase).toBe("ready");
		expect(r.phases).not.toContain("not-responding");
	});

	it("says not responding when the recorded sidecar is stopped at start, then attaches to it once it runs", async () => {
		const { vault, data } = aVault();
		// Started outside this plugin (ora serve in a terminal): found through its record.
		const child = spawn(fakeOra(vault), ["serve", vault, "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
		children.push(child);
		await until(() => existsSync(join(data, "server.json")));
		child.kill("SIGSTOP");
		const r = rig(vault, data, { timeouts: { health: 300 }, hungPollMs: 100 });
		try {
			await r.link.start();
			expect(r.link.status.view).toMatchObject({ phase: "not-responding", action: "restart" });
			expect(r.link.status.view.detail).toContain(`This vault's sidecar (ora serve, pid ${child.pid}, started outside Obsidian) is running but does not answer: it is stopped`);
			expect(r.spawned).toHaveLength(0);
		} finally {
			child.kill("SIGCONT");
		}
		await until(() => r.link.status.view.phase === "ready");
		expect(r.spawned).toHaveLength(0);
		expect(r.link.status.view.openPairs).toBe(2); // its token was read: /v1/status answered
	});

	it.each([
		["/proc", () => new ProcFs(), process.platform === "linux"],
		["ps and lsof", () => new PsLsof(), process.platform !== "win32" && spawnSync("lsof", ["-v"], { stdio: "ignore" }).error === undefined],
	])("restarts a stopped ora serve started outside Obsidian, verified through %s: continues and ends it, then starts its own", async (_name, processes, available) => {
		if (!available) return;
		const { vault, data } = aVault();
		const outside = spawn(fakeOra(vault), ["serve", vault, "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
		children.push(outside);
		await until(() => existsSync(join(data, "server.json")));
		const exited = new Promise((resolve) => outside.on("exit", (_code, signal) => resolve(signal)));
		outside.kill("SIGSTOP");
		const r = rig(vault, data, { timeouts: { health: 300 }, hungPollMs: 100, processes: processes() });
		await r.link.start();
		expect(r.link.status.view.action).toBe("restart");
		await r.link.restart();
		expect(await exited).toBe("SIGTERM"); // continued first, so SIGTERM ended it (no kill needed)
		expect(r.spawned).toHaveLength(1);
		expect(r.link.status.view.phase).toBe("ready");
		expect((await r.client.status()).pid).toBe(nth(r.spawned, 0).pid);
	});

	it("kills an ora serve started outside Obsidian that ignores SIGTERM once the restart's wait is over", async () => {
		const { vault, data } = aVault();
		const outside = spawn(fakeOra(vault, 'process.on("SIGTERM", () => undefined);'), ["serve", vault, "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
		children.push(outside);
		await until(() => existsSync(join(data, "server.json")));
		const exited = new Promise((resolve) => outside.on("exit", (_code, signal) => resolve(signal)));
		outside.kill("SIGSTOP");
		const r = rig(vault, data, { timeouts: { health: 300 }, hungPollMs: 100, hungStopWaitMs: 300 });
		await r.link.start();
		await r.link.restart();
		expect(await exited).toBe("SIGKILL");
		expect(r.spawned).toHaveLength(1);
		expect(r.link.status.view.phase).toBe("ready");
	});

	it("never stops a process it cannot verify as this vault's ora serve, and says which one holds the port", async () => {
		const { vault, data } = aVault();
		// Not an ora command line: the record alone does not make it this vault's sidecar.
		const other = spawn(process.execPath, ["-e", FAKE_SIDECAR, vault, data], { stdio: ["ignore", "ignore", "pipe"] });
		children.push(other);
		await until(() => existsSync(join(data, "server.json")));
		other.kill("SIGSTOP");
		const r = rig(vault, data, { timeouts: { health: 300 }, hungPollMs: 100, hungStopWaitMs: 200 });
		await r.link.start();
		const port = new URL(r.client.baseUrl).port;
		expect(r.link.status.view).toMatchObject({ phase: "not-responding", action: "details" });
		expect(r.link.status.view.detail).toContain(`Port ${port} is held by process ${other.pid} (${process.execPath} -e`);
		expect(r.link.status.view.detail).toContain(`stop it yourself (for example: kill ${other.pid})`);
		await r.link.restart();
		expect(other.exitCode).toBe(null);
		expect(other.signalCode).toBe(null);
		expect(r.spawned).toHaveLength(0);
		expect(r.link.status.view.phase).toBe("not-responding");
	});

	it("with a fixed port, says not responding and names the holder of a port that never answers, starting no sidecar beside it", async () => {
		const { vault, data } = aVault();
		const silent = createServer(() => undefined); // takes connections, answers nothing
		await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
		const port = (silent.address() as AddressInfo).port;
		try {
			const r = rig(vault, data, { port, timeouts: { health: 300 }, hungPollMs: 100 });
			await r.link.start();
			expect(r.link.status.view).toMatchObject({ phase: "not-responding", action: "details" });
			expect(r.link.status.view.detail).toContain(`Port ${port} is held by process ${process.pid} (`);
			await new Promise((resolve) => setTimeout(resolve, 400)); // polled, still unanswered
			expect(r.spawned).toHaveLength(0);
		} finally {
			silent.closeAllConnections();
			silent.close();
		}
	});

	it("kills a sidecar that stopped responding soon after a restart asks it to stop, not after the usual wait", async () => {
		const { vault, data } = aVault();
		// Deadlocked from outside: ignores SIGTERM, and its health check hangs once DATA/stuck exists.
		const stuck = FAKE_SIDECAR.replace(
			'if (req.url === "/v1/health")',
			'if (req.url === "/v1/health" && fs.existsSync(path.join(data, "stuck"))) return;\n  if (req.url === "/v1/health")',
		);
		const r = rig(vault, data, { script: `process.on("SIGTERM", () => undefined);\n${stuck}`, timeouts: { health: 300 }, hungStopWaitMs: 200 });
		await r.link.start();
		expect(r.link.status.view.phase).toBe("ready");
		writeFileSync(join(data, "stuck"), "");
		await r.link.suspect();
		expect(r.link.status.view.phase).toBe("not-responding");
		const child = nth(r.spawned, 0);
		const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
		await r.link.shutdown(); // the usual wait is 30 s: longer than this test may take
		expect(await exited).toBe("SIGKILL");
	});

	it("says at once that the sidecar was killed by a signal, with its last words, then restarts it", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data, { script: `console.error("loaded the model");\n${FAKE_SIDECAR}` });
		await r.link.start();
		expect(r.link.status.view.phase).toBe("ready");
		nth(r.spawned, 0).kill("SIGKILL"); // as the out-of-memory killer does
		await until(() => r.details.some((d) => d.includes("killed by SIGKILL")));
		const said = r.details.find((d) => d.includes("killed by SIGKILL")) ?? "";
		expect(said).toContain("ora serve stopped (killed by SIGKILL, often the system ending it for lack of memory): loaded the model");
		await until(() => r.spawned.length === 2 && r.link.status.view.phase === "ready");
	});

	it("a session enabled again while the last one stops its sidecar waits for it to exit and starts its own, never attaching to the one going", async () => {
		const { vault, data } = aVault();
		// Answers for 700 ms after SIGTERM, as ora serve does while it finishes a write.
		const slow = `process.on("SIGTERM", () => setTimeout(() => process.exit(0), 700));\n${FAKE_SIDECAR}`;
		const host = {};
		const before = rig(vault, data, { script: slow });
		await before.link.start();
		const old = nth(before.spawned, 0);
		markStopping(vault, before.link.shutdown(), host); // the plugin disabled
		const after = rig(vault, data, { script: slow, handover: () => stoppedBefore(vault, host) }); // and enabled again
		await after.link.start();
		expect(old.exitCode !== null || old.signalCode !== null).toBe(true);
		expect(after.spawned).toHaveLength(1);
		expect(after.link.status.view.phase).toBe("ready");
		expect((await after.client.status()).pid).toBe(nth(after.spawned, 0).pid);
	});

	it("two windows starting at once: the one whose sidecar loses the index attaches to the other's", async () => {
		const { vault, data } = aVault();
		// Like ora serve: one writer per index (the loser exits naming the holder); the winner takes a
		// moment to listen and record itself, after the loser has given up.
		const locking = `
const lockFs = require("fs"), lock = require("path").join(process.argv[2], "lock");
lockFs.mkdirSync(process.argv[2], { recursive: true });
try {
  const fd = lockFs.openSync(lock, "wx"); lockFs.writeSync(fd, String(process.pid)); lockFs.closeSync(fd);
} catch {
  let who = ""; try { who = lockFs.readFileSync(lock, "utf8"); } catch {}
  console.error("ora serve: error: the index in " + process.argv[2] + " is being written by " + (who ? "process " + who : "another process") + "; stop it");
  process.exit(1);
}
process.on("SIGTERM", () => { lockFs.rmSync(lock, { force: true }); process.exit(0); });
setTimeout(() => {
${FAKE_SIDECAR}
}, 400);`;
		const unseen: Processes = { listener: async () => null, info: async () => null };
		const a = rig(vault, data, { script: locking, processes: unseen });
		const b = rig(vault, data, { script: locking, processes: unseen, ownPid: process.pid + 100_000 });
		await Promise.all([a.link.start(), b.link.start()]);
		expect([a.spawned.length, b.spawned.length]).toEqual([1, 1]); // both started one
		expect([a.link.status.view.phase, b.link.status.view.phase]).toEqual(["ready", "ready"]);
		expect(a.client.baseUrl).toBe(b.client.baseUrl);
		const serving = (await a.client.status()).pid;
		expect([nth(a.spawned, 0).pid, nth(b.spawned, 0).pid]).toContain(serving);
		expect([a.supervisor.owned, b.supervisor.owned].sort()).toEqual([false, true]); // the winner's window owns it
	});

	it("never reconnects to another vault's sidecar answering on its port when the stream drops: it checks the token and vault first", async () => {
		const { vault, data } = aVault();
		// Once DATA/impostor names this process, it behaves as another vault's sidecar on the same
		// port: health answers, this vault's token is refused, the open stream is dropped.
		const swapping = FAKE_SIDECAR.replace(
			'if (req.url === "/v1/health")',
			'if (fs.existsSync(path.join(data, "impostor")) && fs.readFileSync(path.join(data, "impostor"), "utf8") === String(process.pid)) { if (req.url === "/v1/health") return res.end(JSON.stringify({ status: "ok", version: "0.1.0" })); res.statusCode = 401; return res.end("{}"); }\n  if (req.url === "/v1/health")',
		).replace('res.write("event: contradictions', 'streams.push(res); fs.writeFileSync(path.join(data, "streamed"), ""); res.write("event: contradictions');
		const script = `const streams = [];\nsetInterval(() => { const f = require("path").join(process.argv[2], "impostor"); if (require("fs").existsSync(f) && require("fs").readFileSync(f, "utf8") === String(process.pid)) for (const s of streams.splice(0)) s.destroy(); }, 20);\n${swapping}`;
		const r = rig(vault, data, { script });
		await r.link.start();
		expect(r.link.status.view.phase).toBe("ready");
		const first = nth(r.spawned, 0);
		const firstUrl = r.client.baseUrl;
		const readyBefore = r.readies.length;
		await until(() => existsSync(join(data, "streamed")));
		await new Promise((resolve) => setTimeout(resolve, 100)); // the stream is open: its drop is not a refusal
		writeFileSync(join(data, "impostor"), String(first.pid));
		await until(() => r.spawned.length === 2 && r.link.status.view.phase === "ready");
		expect(r.readies.slice(readyBefore)).not.toContain(firstUrl); // never "ready" on the impostor
		expect(r.client.baseUrl).not.toBe(firstUrl);
		expect((await r.client.status()).pid).toBe(nth(r.spawned, 1).pid);
	});

	it("leaves a sidecar another window or a terminal started running on restart, and says so", async () => {
		const { vault, data } = aVault();
		const outside = spawn(fakeOra(vault), ["serve", vault, "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
		children.push(outside);
		await until(() => existsSync(join(data, "server.json")));
		const r = rig(vault, data);
		await r.link.start();
		expect(r.link.status.view.phase).toBe("ready");
		expect(await r.link.restart()).toBe(
			`The sidecar of this vault (pid ${outside.pid}) was started outside Obsidian (ora serve in a terminal, perhaps), so Ora did not restart it. New settings apply when you restart it there.`,
		);
		expect(outside.exitCode).toBeNull();
		expect(outside.signalCode).toBeNull();
		expect(r.spawned).toHaveLength(0);
		expect(r.link.status.view.phase).toBe("ready");
		// Its own sidecar it restarts as before.
		const own = aVault();
		const mine = rig(own.vault, own.data);
		await mine.link.start();
		expect(await mine.link.restart()).toBeNull();
		expect(mine.spawned).toHaveLength(2);
	});

	it("on Windows, a restart ends the sidecar's process tree, says stopped meanwhile rather than ready, and runs a new one", async () => {
		const { vault, data } = aVault();
		const r = rig(vault, data);
		await r.link.start();
		const first = nth(r.spawned, 0);
		// Node on Windows: kill() throws for SIGCONT; taskkill /T /F ends the tree at once.
		const kill = first.kill.bind(first);
		first.kill = (signal?: NodeJS.Signals | number) => {
			if (signal === "SIGCONT" || signal === "SIGSTOP") throw new Error("kill ENOSYS");
			return kill(signal);
		};
		const trees: number[] = [];
		const options = (r.supervisor as unknown as { options: { treeKill: (pid: number) => void } }).options;
		options.treeKill = (pid) => {
			trees.push(pid);
			process.kill(pid, "SIGKILL");
		};
		const platform = process.platform;
		Object.defineProperty(process, "platform", { value: "win32", configurable: true });
		try {
			await r.link.restart();
		} finally {
			Object.defineProperty(process, "platform", { value: platform, configurable: true });
		}
		expect(trees).toEqual([first.pid]);
		expect(r.phases).toContain("stopped");
		expect(r.link.status.view.phase).toBe("ready");
		expect((await r.client.status()).pid).toBe(nth(r.spawned, 1).pid);
	});
});
