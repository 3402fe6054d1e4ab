import { spawn, type ChildProcess } from "child_process";
import * as http from "http";
import type { AddressInfo } from "net";

import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { NodeHttpTransport } from "../../src/api/node-transport";
import { taskkillArgs } from "../../src/sidecar/signals";
import { SidecarSupervisor, type ChildHandle, type SupervisorOptions } from "../../src/sidecar/supervisor";

/** What /v1/status answers: the vault the supervisor expects. */
const STATUS = '{"vault": "/v", "pid": 1}';
const servers: http.Server[] = [];
/** Children a test stopped (SIGSTOP): killed outright whatever the test did. */
const stopped: ChildProcess[] = [];
const realPlatform = process.platform;
/** Runs the supervisor as on Windows (process.platform is read when it signals). */
function asWindows(): void {
	Object.defineProperty(process, "platform", { value: "win32", configurable: true });
}
afterEach(async () => {
	Object.defineProperty(process, "platform", { value: realPlatform, configurable: true });
	for (const child of stopped.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
	await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A free loopback port (bound then released). */
async function freePort(): Promise<number> {
	const s = http.createServer();
	await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
	const { port } = s.address() as AddressInfo;
	await new Promise((resolve) => s.close(resolve));
	return port;
}

function supervisor(port: number, change: Partial<SupervisorOptions>): { sup: SidecarSupervisor; tokens: string[] } {
	const tokens: string[] = [];
	const client = new SidecarClient(new NodeHttpTransport(2000), { baseUrl: `http://127.0.0.1:${port}`, token: () => null });
	const sup = new SidecarSupervisor({
		client,
		autoStart: true,
		port,
		vault: "/v",
		ownPid: process.pid,
		spawn: () => {
			throw new Error("spawn not expected");
		},
		readRecord: async () => null,
		readToken: async () => "tok\n",
		onToken: (t) => tokens.push(t),
		startTimeoutMs: 10_000,
		pollMs: 20,
		...change,
	});
	return { sup, tokens };
}

describe("SidecarSupervisor", () => {
	it("uses a sidecar that already answers and loads its token without spawning", async () => {
		const server = http.createServer((req, res) => res.end(req.url === "/v1/status" ? STATUS : '{"status": "ok", "version": "9.9.9"}'));
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const { sup, tokens } = supervisor(port, {});
		expect(await sup.ensureRunning()).toEqual({ ok: true, spawned: false, owned: false, version: "9.9.9", port });
		expect(tokens).toEqual(["tok"]);
		expect(sup.owned).toBe(false);
	});

	it("explains that nothing answers when auto-start is off", async () => {
		const port = await freePort();
		const { sup } = supervisor(port, { autoStart: false });
		const outcome = await sup.ensureRunning();
		expect(outcome).toMatchObject({ ok: false });
		expect(!outcome.ok && outcome.reason).toContain("starting one automatically is off");
	});

	it("reports a command that does not exist", async () => {
		const port = await freePort();
		const { sup } = supervisor(port, { spawn: () => spawn("/nonexistent/ora", ["serve"], { stdio: ["ignore", "ignore", "pipe"] }) });
		const outcome = await sup.ensureRunning();
		expect(!outcome.ok && outcome.reason).toMatch(/ENOENT/);
	});

	it("reports the exit code and stderr of a sidecar that stops during start-up", async () => {
		const port = await freePort();
		const script = "console.error('error: vault folder not found'); process.exit(2)";
		const { sup } = supervisor(port, { spawn: () => spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] }) });
		const outcome = await sup.ensureRunning();
		expect(!outcome.ok && outcome.reason).toBe("ora serve stopped (exit 2): error: vault folder not found");
	});

	it("waits for a spawned child to answer, and stops it on stop()", async () => {
		const port = await freePort();
		// A real child process that starts listening after a delay, as `ora serve` does after loading.
		const script = `setTimeout(() => require("http").createServer((q, s) => s.end(q.url === "/v1/status" ? '${STATUS}' : '{"status":"ok","version":"0.1.0"}')).listen(${port}, "127.0.0.1"), 300)`;
		const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
		const { sup, tokens } = supervisor(port, { spawn: () => child });
		expect(await sup.ensureRunning()).toEqual({ ok: true, spawned: true, owned: true, version: "0.1.0", port });
		expect(tokens).toEqual(["tok"]);
		expect(sup.owned).toBe(true);
		const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
		sup.stop();
		await sup.stopped();
		expect(child.exitCode !== null || child.signalCode !== null).toBe(true); // gone, not just signalled
		expect(await exited).toBe("SIGTERM");
	});

	it("kills its own child that ignores SIGTERM once stopped() has waited long enough", async () => {
		const port = await freePort();
		// Ignores SIGTERM, as a sidecar stuck in a write would.
		const script = `process.on("SIGTERM", () => undefined); require("http").createServer((q, s) => s.end(q.url === "/v1/status" ? '${STATUS}' : '{"status":"ok","version":"0.1.0"}')).listen(${port}, "127.0.0.1")`;
		const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
		const { sup } = supervisor(port, { spawn: () => child, stopWaitMs: 300 });
		expect(await sup.ensureRunning()).toMatchObject({ ok: true, spawned: true });
		const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
		sup.stop();
		await sup.stopped();
		expect(await exited).toBe("SIGKILL");
	});

	it("waits for a sidecar adopted from a reload to exit after stop()", async () => {
		const server = http.createServer((req, res) => res.end(req.url === "/v1/status" ? '{"vault": "/v", "pid": 4242}' : '{"status": "ok", "version": "0.1.0"}'));
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const killed: number[] = [];
		let checks = 0;
		const { sup } = supervisor(0, {
			readRecord: async () => ({ pid: 4242, port, vault: "/v", parent_pid: process.pid }),
			kill: (pid) => killed.push(pid),
			alive: () => ++checks < 3,
		});
		expect(await sup.ensureRunning()).toMatchObject({ ok: true, owned: true });
		sup.stop();
		await sup.stopped();
		expect(killed).toEqual([4242]);
		expect(checks).toBe(3);
	});

	it("stops polling an adopted sidecar that does not exit once stopped() gives up on it", async () => {
		const server = http.createServer((req, res) => res.end(req.url === "/v1/status" ? '{"vault": "/v", "pid": 4242}' : '{"status": "ok", "version": "0.1.0"}'));
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		let checks = 0;
		const { sup } = supervisor(port, {
			readRecord: async () => ({ pid: 4242, port, vault: "/v", parent_pid: process.pid }),
			kill: () => undefined,
			alive: () => ++checks > 0, // ignores SIGTERM
			pollMs: 5,
			stopWaitMs: 100,
		});
		expect(await sup.ensureRunning()).toMatchObject({ ok: true, owned: true });
		sup.stop();
		await sup.stopped();
		await new Promise((resolve) => setTimeout(resolve, 60));
		const after = checks;
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(checks).toBe(after);
	});

	it("takes a running sidecar whose token this vault lacks for another vault's", async () => {
		const server = http.createServer((req, res) => res.end(req.url === "/v1/status" ? STATUS : '{"status": "ok", "version": "0.1.0"}'));
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const { sup } = supervisor(port, { readToken: () => Promise.reject(new Error("ENOENT: no such file")) });
		const outcome = await sup.ensureRunning();
		expect(outcome).toMatchObject({ ok: false, problem: "other-vault" });
		expect(!outcome.ok && outcome.reason).toContain("this vault has no sidecar token yet: that sidecar belongs to another vault");
	});

	it("refuses a sidecar of another release series, and stops it if it started it", async () => {
		const port = await freePort();
		const script = `require("http").createServer((q, s) => s.end(q.url === "/v1/status" ? '${STATUS}' : '{"status":"ok","version":"0.9.0"}')).listen(${port}, "127.0.0.1")`;
		const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
		const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
		const { sup, tokens } = supervisor(port, {
			spawn: () => child,
			refuseVersion: (version) => (version.startsWith("0.1.") ? null : `The sidecar is version ${version}; upgrade it.`),
		});
		expect(await sup.ensureRunning()).toEqual({ ok: false, problem: "incompatible", reason: "The sidecar is version 0.9.0; upgrade it." });
		expect(tokens).toEqual([]);
		expect(await exited).toBe("SIGTERM");
	});

	it("tells a sidecar that takes the connection but does not answer (hung) from one that is not there (down)", async () => {
		// Accepts and reads the request, never answers: a stopped or deadlocked sidecar, seen from outside.
		const server = http.createServer(() => undefined);
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const client = new SidecarClient(new NodeHttpTransport(), { baseUrl: `http://127.0.0.1:${port}`, token: () => null, timeouts: { health: 200 } });
		const { sup } = supervisor(port, { client });
		expect(await sup.probe()).toEqual({ state: "hung" });
		expect(await sup.healthy()).toBeNull();
		server.closeAllConnections();
		const down = supervisor(await freePort(), {}).sup;
		expect(await down.probe()).toEqual({ state: "down" });
	});

	it("ends a stopped (SIGSTOP) child of its own with SIGTERM at once, without waiting to kill it", async () => {
		const port = await freePort();
		const script = `require("http").createServer((q, s) => s.end(q.url === "/v1/status" ? '${STATUS}' : '{"status":"ok","version":"0.1.0"}')).listen(${port}, "127.0.0.1")`;
		const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
		stopped.push(child);
		const { sup } = supervisor(port, { spawn: () => child, stopWaitMs: 10_000 });
		expect(await sup.ensureRunning()).toMatchObject({ ok: true, spawned: true });
		child.kill("SIGSTOP");
		const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
		sup.stop();
		await sup.stopped();
		expect(await exited).toBe("SIGTERM"); // not SIGKILL after the 10 s wait
	});

	it("says the recorded sidecar is not responding, instead of starting a second one beside it", async () => {
		const server = http.createServer(() => undefined); // takes the call, never answers
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const client = new SidecarClient(new NodeHttpTransport(), { baseUrl: "http://127.0.0.1:9", token: () => null, timeouts: { health: 200 } });
		const killed: number[] = [];
		const { sup } = supervisor(0, {
			client,
			readRecord: async () => ({ pid: 4242, port, vault: "/v", parent_pid: process.pid }),
			alive: () => true,
			kill: (pid) => killed.push(pid),
			stopWaitMs: 50,
		});
		const outcome = await sup.ensureRunning();
		expect(outcome).toEqual({ ok: false, problem: "hung", reason: "The sidecar of this vault (pid 4242) is running but does not answer." });
		// Started by this Obsidian (a plugin reload): a restart ends it.
		expect(sup.owned).toBe(true);
		sup.stop();
		expect(killed).toEqual([4242]);
		server.closeAllConnections();
	});
});

/** An in-process sidecar of vault "/v" (pid 1 in its status) that accepts the token "tok" and no other; its port. */
async function aSidecar(): Promise<number> {
	const server = http.createServer((req, res) => {
		if (req.url === "/v1/health") return res.end('{"status": "ok", "version": "0.1.0"}');
		if (req.headers.authorization !== "Bearer tok") {
			res.statusCode = 401;
			return res.end('{"error": {"code": "unauthorized", "message": "bad token"}}');
		}
		res.end(STATUS);
	});
	servers.push(server);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return (server.address() as AddressInfo).port;
}

/** A child that exits at once the way `ora serve` does when another process holds the index's writer lock. */
function losesTheIndex(holder: string): ChildProcess {
	const script = `console.error("ora serve: error: the index in /v/.ora is being written by ${holder}; stop it (or wait for it to finish)"); process.exit(1)`;
	return spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
}

describe("SidecarSupervisor, another window of the vault", () => {
	it("attaches to the sidecar started at the same moment when its own child loses the index to it, even before that one has recorded itself", async () => {
		const port = await aSidecar();
		let token: string | null = null;
		const client = new SidecarClient(new NodeHttpTransport(2000), { baseUrl: "http://127.0.0.1:9", token: () => token });
		let child: ChildProcess | null = null;
		const { sup } = supervisor(0, {
			client,
			onToken: (t) => (token = t),
			spawn: () => (child = losesTheIndex(`process ${process.pid}`)),
			// The other window's sidecar records itself only once it listens: after ours has given up.
			readRecord: async () => (child?.exitCode !== null && child?.exitCode !== undefined ? { pid: 1, port, vault: "/v", parent_pid: process.pid + 100_000 } : null),
			processes: { listener: async () => null, info: async () => null }, // the holder cannot be seen (Windows)
		});
		expect(await sup.ensureRunning()).toEqual({ ok: true, spawned: false, owned: false, version: "0.1.0", port });
		expect(client.baseUrl).toBe(`http://127.0.0.1:${port}`);
		expect(sup.owned).toBe(false);
	});

	it("says at once that the index is being written when its holder is no sidecar (ora watch in a terminal)", async () => {
		const { sup } = supervisor(0, {
			spawn: () => losesTheIndex(`process ${process.pid}`),
			processes: { listener: async () => null, info: async (pid) => ({ pid, argv: ["/usr/bin/python3", "/home/me/.local/bin/ora", "watch", "/v"], command: "ora watch /v", state: "running", startedAt: "1" }) },
		});
		const began = Date.now();
		const outcome = await sup.ensureRunning();
		expect(outcome).toMatchObject({ ok: false, problem: "failed" });
		expect(!outcome.ok && outcome.reason).toContain(`is being written by process ${process.pid}`);
		expect(Date.now() - began).toBeLessThan(5_000); // not the 10 s start limit
	});

	it("gives up waiting for the index's holder once that process is gone", async () => {
		const { sup } = supervisor(0, { spawn: () => losesTheIndex("process 4242"), alive: () => false, processes: { listener: async () => null, info: async () => null } });
		const began = Date.now();
		expect(await sup.ensureRunning()).toMatchObject({ ok: false, problem: "failed" });
		expect(Date.now() - began).toBeLessThan(5_000);
	});

	it("checks again, after the stream dropped, that the sidecar on its port is still this vault's", async () => {
		const port = await aSidecar();
		let token: string | null = null;
		const client = new SidecarClient(new NodeHttpTransport(2000), { baseUrl: `http://127.0.0.1:${port}`, token: () => token });
		const ours = supervisor(port, { client, onToken: (t) => (token = t) }).sup;
		expect(await ours.recheck()).toMatchObject({ ok: true });
		// Another vault's sidecar on the port now: this vault's token is refused.
		const theirs = supervisor(port, { client, onToken: (t) => (token = t), readToken: async () => "other\n" }).sup;
		const outcome = await theirs.recheck();
		expect(outcome).toMatchObject({ ok: false, problem: "other-vault" });
		expect(!outcome.ok && outcome.reason).toContain("belongs to another vault");
	});

	it.each([
		[4242, "was started by another Obsidian window, so Ora did not restart it. New settings apply when it is restarted there, or once that window is closed."],
		[null, "was started outside Obsidian (ora serve in a terminal, perhaps), so Ora did not restart it. New settings apply when you restart it there."],
	])("says who started a sidecar it did not start, from its record (parent %s)", async (parent, said) => {
		const port = await aSidecar();
		const client = new SidecarClient(new NodeHttpTransport(2000), { baseUrl: `http://127.0.0.1:${port}`, token: () => "tok" });
		const { sup } = supervisor(port, { client, readRecord: async () => ({ pid: 1, port, vault: "/v", parent_pid: parent }) });
		expect(await sup.startedElsewhere()).toBe(`The sidecar of this vault (pid 1) ${said}`);
		const unrecorded = supervisor(port, { client }).sup;
		expect(await unrecorded.startedElsewhere()).toBe("The sidecar of this vault (pid 1) was started elsewhere, so Ora did not restart it. New settings apply when it is restarted where it was started.");
		const nothing = supervisor(await freePort(), {}).sup;
		expect(await nothing.startedElsewhere()).toBeNull();
	});
});

/** A real child seen through Node's rules on Windows: kill() throws for a signal Windows lacks (SIGCONT, SIGSTOP). */
function windowsHandle(child: ChildProcess): ChildHandle {
	return {
		get pid() {
			return child.pid;
		},
		kill: (signal) => {
			if (signal !== undefined && !["SIGTERM", "SIGKILL", "SIGINT", "SIGQUIT"].includes(signal)) throw new Error(`kill ENOSYS (${signal})`);
			return child.kill(signal);
		},
		on: ((event: "exit" | "error", listener: (...args: unknown[]) => void) => child.on(event, listener)) as ChildHandle["on"],
		stderr: child.stderr,
	};
}

describe("SidecarSupervisor, signal exits", () => {
	it("reports a sidecar killed by a signal during start-up at once, with the signal and its last stderr lines", async () => {
		const port = await freePort();
		// Loads, says so, then dies as the out-of-memory killer would end it.
		const script = "console.error('loading the embedding model'); setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100)";
		const { sup } = supervisor(port, { spawn: () => spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] }), startTimeoutMs: 20_000 });
		const started = Date.now();
		const outcome = await sup.ensureRunning();
		expect(Date.now() - started).toBeLessThan(5_000); // not the 20 s start timeout
		expect(outcome).toMatchObject({ ok: false, problem: "failed" });
		expect(!outcome.ok && outcome.reason).toBe("ora serve stopped (killed by SIGKILL, often the system ending it for lack of memory): loading the embedding model");
	});

	it("does not wait for a child killed by a signal to exit again when stopped after it", async () => {
		const port = await freePort();
		const script = `require("http").createServer((q, s) => s.end(q.url === "/v1/status" ? '${STATUS}' : '{"status":"ok","version":"0.1.0"}')).listen(${port}, "127.0.0.1")`;
		const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
		const { sup } = supervisor(port, { spawn: () => child, stopWaitMs: 20_000 });
		const exits: string[] = [];
		sup.onExit((reason) => exits.push(reason));
		expect(await sup.ensureRunning()).toMatchObject({ ok: true, spawned: true });
		child.kill("SIGSEGV");
		await new Promise((resolve) => child.on("exit", resolve));
		expect(exits).toEqual(["ora serve stopped (killed by SIGSEGV, a crash)"]);
		expect(sup.owned).toBe(false);
		const started = Date.now();
		sup.stop();
		await sup.stopped();
		expect(Date.now() - started).toBeLessThan(1_000); // not the 20 s stop wait
		expect(exits).toHaveLength(1);
	});
});

describe("SidecarSupervisor on Windows", () => {
	it("stops its child by ending the process tree, sending no signal Windows lacks, and no longer counts it as running", async () => {
		const port = await freePort();
		const script = `require("http").createServer((q, s) => s.end(q.url === "/v1/status" ? '${STATUS}' : '{"status":"ok","version":"0.1.0"}')).listen(${port}, "127.0.0.1")`;
		const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
		stopped.push(child);
		const trees: number[] = [];
		// taskkill /T /F: the launcher and its Python child end at once.
		const treeKill = (pid: number): void => {
			trees.push(pid);
			process.kill(pid, "SIGKILL");
		};
		const { sup } = supervisor(port, { spawn: () => windowsHandle(child), treeKill });
		expect(await sup.ensureRunning()).toMatchObject({ ok: true, spawned: true, owned: true });
		asWindows();
		expect(() => sup.stop()).not.toThrow();
		await sup.stopped();
		expect(trees).toEqual([child.pid]);
		expect(child.signalCode).toBe("SIGKILL");
		expect(sup.owned).toBe(false);
	});

	it("recognises its sidecar under a Windows vault path and ends the adopted one's tree on stop", async () => {
		// The sidecar a reload left running: a real process, so that the default signaller finds it.
		const orphan = spawn(process.execPath, ["-e", "setInterval(() => undefined, 1000)"], { stdio: "ignore" });
		stopped.push(orphan);
		const pid = orphan.pid ?? 0;
		const server = http.createServer((req, res) =>
			res.end(req.url === "/v1/status" ? JSON.stringify({ vault: "C:\\Users\\Ann\\My Vault\\", pid }) : '{"status": "ok", "version": "0.1.0"}'),
		);
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const trees: number[] = [];
		const { sup } = supervisor(0, {
			vault: "C:\\Users\\Ann\\My Vault",
			readRecord: async () => ({ pid, port, vault: "C:\\Users\\Ann\\My Vault\\", parent_pid: process.pid }),
			alive: () => orphan.exitCode === null && orphan.signalCode === null,
			treeKill: (p) => {
				trees.push(p);
				process.kill(p, "SIGKILL");
			},
		});
		asWindows();
		expect(await sup.ensureRunning()).toMatchObject({ ok: true, owned: true, spawned: false });
		sup.stop();
		await sup.stopped();
		expect(trees).toEqual([pid]);
	});

	it("ends a tree with taskkill /pid N /T /F", () => {
		expect(taskkillArgs(1234)).toEqual(["/pid", "1234", "/T", "/F"]);
	});
});
