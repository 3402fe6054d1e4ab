// The installer's own logic with a stand-in for its programs (uv, the managed Python): one
// set-up operation at a time, and what a stalled or broken download of uv leaves and says. The
// set-up with the real programs is installer.e2e.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { SidecarInstaller, type SetupOutcome } from "../../src/setup/installer";
import { managedPaths, type ManagedPaths } from "../../src/setup/paths";
import type { RunResult, Runner } from "../../src/setup/process";
import { startFlakyIndex, UV_VERSION, UV_WHEEL, type FlakyIndex } from "./flaky-index";

const PLUGIN_VERSION = (JSON.parse(readFileSync(resolve(__dirname, "../../../manifest.json"), "utf8")) as { version: string }).version;
const BUSY = "Another set-up step is still running.";

let index: FlakyIndex;
let root = "";
let folders = 0;

beforeAll(async () => {
	index = await startFlakyIndex();
	root = mkdtempSync(join(tmpdir(), "ora-installer-"));
});

afterAll(async () => {
	await index?.close();
	if (root) rmSync(root, { recursive: true, force: true });
});

afterEach(() => {
	index.listing = "ok";
	index.file = "ok";
});

const ok = (stdout = ""): RunResult => ({ code: 0, stdout, stderr: "", error: null });

/**
 * uv and the sidecar as the installer sees them: `uv --version`, `uv python find` (a file in the
 * install folder), `ora --version`; everything else succeeds. `calls` records each command;
 * `gate`, when set, holds `uv pip install` until it resolves.
 */
function fakePrograms(paths: ManagedPaths): { run: Runner; calls: string[]; gate: { wait: Promise<void> | null; reached: () => void } } {
	const python = join(paths.python, "cpython-test", "bin", "python3");
	mkdirSync(join(paths.python, "cpython-test", "bin"), { recursive: true });
	writeFileSync(python, "");
	const calls: string[] = [];
	const gate = { wait: null as Promise<void> | null, reached: () => undefined as void };
	const run: Runner = async (command, args) => {
		const name = command === paths.uv ? "uv" : command === python ? "python" : command;
		calls.push([name, ...args.slice(0, 2)].join(" "));
		await Promise.resolve();
		if (name === "uv" && args[0] === "--version") return ok(`uv ${UV_VERSION}\n`);
		if (name === "uv" && args[0] === "python" && args[1] === "find") return ok(`${python}\n`);
		if (name === "uv" && args[0] === "pip" && gate.wait) {
			const wait = gate.wait;
			gate.wait = null;
			gate.reached();
			await wait;
		}
		if (name === "python" && args.includes("--version")) return ok(`ora ${PLUGIN_VERSION}\n`);
		return ok();
	};
	return { run, calls, gate };
}

function makeInstaller(dir: string, run: Runner, downloadIdleMs?: number): SidecarInstaller {
	return new SidecarInstaller({ run, paths: managedPaths(dir, "linux"), platform: "linux", arch: "x64", pluginVersion: PLUGIN_VERSION, env: {}, index: index.url, downloadIdleMs });
}

/** A fresh install folder; with `uv`, uv is already there (its version answered by the runner). */
function folder(uv: boolean): { dir: string; paths: ManagedPaths; programs: ReturnType<typeof fakePrograms> } {
	const dir = join(root, `install-${++folders}`);
	const paths = managedPaths(dir, "linux");
	const programs = fakePrograms(paths);
	if (uv) {
		mkdirSync(join(paths.uv, ".."), { recursive: true });
		writeFileSync(paths.uv, "");
	}
	return { dir, paths, programs };
}

const pipInstalls = (calls: string[]): number => calls.filter((c) => c.startsWith("uv pip install")).length;

describe("one set-up operation at a time", () => {
	it("refuses a second operation started at once on the same installer, before it changes anything", async () => {
		const { dir, programs } = folder(true);
		const installer = makeInstaller(dir, programs.run);
		const [first, second, third] = await Promise.all([installer.install({ kind: "index" }), installer.install({ kind: "index" }), installer.remove()]);
		expect(first).toEqual({ ok: true, version: PLUGIN_VERSION });
		expect(second).toEqual({ ok: false, message: BUSY });
		expect(third).toEqual({ ok: false, message: BUSY });
		expect(pipInstalls(programs.calls)).toBe(1);
		expect(installer.state()).toBe("installed");
		expect(installer.running).toBe(false);
		expect(existsSync(join(dir, "setup.lock"))).toBe(false);
	});

	it("refuses another installer of this process on the same folder while the first runs", async () => {
		const { dir, programs } = folder(true);
		let reached: () => void = () => undefined;
		const atPip = new Promise<void>((r) => (reached = r));
		let release: () => void = () => undefined;
		programs.gate.wait = new Promise<void>((r) => (release = r));
		programs.gate.reached = reached;
		const first = makeInstaller(dir, programs.run);
		const running = first.install({ kind: "index" });
		await atPip; // the first holds the lock file, which names this process
		expect(readFileSync(join(dir, "setup.lock"), "utf8")).toBe(String(process.pid));
		const other = makeInstaller(dir, programs.run);
		let outcome: SetupOutcome;
		try {
			outcome = await other.repair({ kind: "index" });
		} finally {
			release();
		}
		expect(outcome).toEqual({ ok: false, message: BUSY });
		expect(await running).toEqual({ ok: true, version: PLUGIN_VERSION });
		expect(pipInstalls(programs.calls)).toBe(1);
		expect(existsSync(join(dir, "setup.lock"))).toBe(false);
		// Once the first is done the other may run.
		expect(await other.repair({ kind: "index" })).toEqual({ ok: true, version: PLUGIN_VERSION });
	});

	it("takes over a lock naming this process when no operation of it runs (left by an earlier run)", async () => {
		const { dir, programs } = folder(true);
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "setup.lock"), String(process.pid));
		expect(await makeInstaller(dir, programs.run).install({ kind: "index" })).toEqual({ ok: true, version: PLUGIN_VERSION });
		expect(existsSync(join(dir, "setup.lock"))).toBe(false);
	});
});

describe("a failed download of uv", () => {
	it("fails a stalled download with a message, keeps no part file, and Try again starts over", async () => {
		const { dir, paths, programs } = folder(false);
		index.file = "stall";
		const host = new URL(index.url).host;
		const stalled = await makeInstaller(dir, programs.run, 300).install({ kind: "index" });
		expect(stalled).toEqual({
			ok: false,
			message: `The download of uv ${UV_VERSION} (${UV_WHEEL} from ${host}) stalled: nothing arrived for 0.3 seconds. Check the internet connection, then try again, which starts it over.`,
		});
		expect(readdirSync(paths.downloads)).toEqual([]);
		expect(existsSync(paths.uv)).toBe(false);
		expect(existsSync(join(dir, "setup.lock"))).toBe(false);
		expect(readFileSync(paths.log, "utf8")).toContain(`Failed: ${stalled.ok ? "" : stalled.message}`);

		index.file = "ok";
		const before = index.seen.filter((s) => s.includes("/files/")).length;
		expect(await makeInstaller(dir, programs.run).install({ kind: "index" })).toEqual({ ok: true, version: PLUGIN_VERSION });
		expect(index.seen.filter((s) => s.includes("/files/")).length).toBe(before + 1);
		expect(readFileSync(paths.uv).equals(index.binary)).toBe(true);
	});

	it("says which download broke off and what to do, not Node's bare error", async () => {
		const { dir, paths, programs } = folder(false);
		const host = new URL(index.url).host;
		index.file = "drop";
		const dropped = await makeInstaller(dir, programs.run).install({ kind: "index" });
		expect(dropped.ok).toBe(false);
		expect(!dropped.ok && dropped.message).toMatch(new RegExp(`^The download of uv ${UV_VERSION} \\(.+ from ${host}\\) broke off after [\\d,]+ of [\\d,]+ bytes: the server closed the connection\\. Check the internet connection, then try again, which starts it over\\.$`));
		expect(readdirSync(paths.downloads)).toEqual([]);
		index.file = "ok";
		index.listing = "closed";
		const closed = await makeInstaller(dir, programs.run).install({ kind: "index" });
		expect(closed).toEqual({ ok: false, message: `The download of the list of uv ${UV_VERSION}'s files from ${host} could not start: the server closed the connection. Check the internet connection, then try again.` });
	});

	it("keeps a password in the index's address out of its messages and log", async () => {
		const { paths, programs } = folder(false);
		const secret = index.url.replace("http://", "http://someone:hunter2@");
		const installer = new SidecarInstaller({ run: programs.run, paths, platform: "linux", arch: "x64", pluginVersion: PLUGIN_VERSION, env: {}, index: secret });
		index.file = "drop";
		const outcome = await installer.install({ kind: "index" });
		expect(outcome.ok).toBe(false);
		expect(!outcome.ok && outcome.message).toContain(new URL(index.url).host);
		expect(!outcome.ok && outcome.message).not.toMatch(/someone|hunter2/);
		index.file = "ok";
		expect(await installer.install({ kind: "index" })).toEqual({ ok: true, version: PLUGIN_VERSION });
		const log = readFileSync(paths.log, "utf8");
		expect(log).toContain("--index-url http://***:***@127.0.0.1");
		expect(log).not.toMatch(/someone|hunter2/);
	});

	it("names the step of a failure that is not the download's (a wheel that is no zip file)", async () => {
		const { paths, dir, programs } = folder(false);
		index.file = "not-a-zip";
		const outcome = await makeInstaller(dir, programs.run).install({ kind: "index" });
		const wheel = join(paths.downloads, UV_WHEEL);
		expect(outcome).toEqual({ ok: false, message: `Fetching uv ${UV_VERSION} failed: ${wheel} is not a zip file. Try again; if it fails the same way, the full log is in ${paths.log}.` });
		expect(existsSync(paths.uv)).toBe(false);
	});
});
