// The set-up end to end on a machine with no Python on PATH: the installer's children see an
// empty PATH and an empty HOME. It fetches uv's real wheel from a loopback package index
// (local-index.ts), checks its sha256, lets uv install a CPython from a loopback
// python-build-standalone mirror (built here from this machine's CPython) and the sidecar from
// the loopback "simple" index. The sidecar wheel is the stand-in of stub-wheel.ts.
import { spawnSync } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SidecarInstaller, type SetupEvent } from "../../src/setup/installer";
import { locateOra, managedEnv, managedPaths, MANAGED_COMMAND, readInstall, SIDECAR_ENTRY } from "../../src/setup/paths";
import { runProcess } from "../../src/setup/process";
import { fixturePython, pythonTarball, startLocalIndex, uvWheel, UV_VERSION, type LocalIndex, type PythonTarball } from "./local-index";
import { buildStubWheel } from "./stub-wheel";

const PLUGIN_VERSION = (JSON.parse(readFileSync(resolve(__dirname, "../../../manifest.json"), "utf8")) as { version: string }).version;
const FLOW_TIMEOUT_MS = 300_000;

let root = "";
let home = "";
let emptyBin = "";
let fixtures = "";
let index: LocalIndex;
let tarball: PythonTarball;
let python = "";

function nextPatch(version: string): string {
	const [major, minor, patch] = version.split(".");
	return `${major}.${minor}.${Number(patch) + 1}`;
}

/** No Python reachable: PATH is an empty folder, HOME an empty one that must stay empty. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	return { PATH: emptyBin, HOME: home, USERPROFILE: home, TMPDIR: process.env.TMPDIR ?? tmpdir(), LANG: "C.UTF-8", ...extra };
}

function makeInstaller(dir: string, extra: NodeJS.ProcessEnv = {}): SidecarInstaller {
	return new SidecarInstaller({
		run: runProcess,
		paths: managedPaths(dir, process.platform),
		platform: process.platform,
		arch: process.arch,
		pluginVersion: PLUGIN_VERSION,
		env: childEnv(extra),
		index: index.url,
		python: tarball.minor,
		pythonDownloads: index.pythonDownloads,
	});
}

beforeAll(async () => {
	root = mkdtempSync(join(tmpdir(), "ora-setup-e2e-"));
	home = join(root, "home");
	emptyBin = join(root, "empty-bin");
	fixtures = join(root, "fixtures");
	for (const dir of [home, emptyBin, fixtures]) mkdirSync(dir);
	python = fixturePython();
	const uv = uvWheel(python); // fails, saying why, when the wheel cannot be had
	tarball = pythonTarball(python, fixtures);
	index = await startLocalIndex(uv, tarball, [buildStubWheel(python, fixtures, PLUGIN_VERSION)]);
});

afterAll(async () => {
	await index?.close();
	if (root) rmSync(root, { recursive: true, force: true });
});

describe("set-up without a system Python, against a local index", () => {
	it("installs uv, CPython and the sidecar, starts it through the interpreter, upgrades and removes", async () => {
		const dir = join(root, "data", "ora-vault");
		const installer = makeInstaller(dir);
		expect(installer.state()).toBe("absent");
		const events: SetupEvent[] = [];
		const outcome = await installer.install({ kind: "index" }, (e) => events.push(e));
		expect(outcome).toEqual({ ok: true, version: PLUGIN_VERSION });

		const steps = events.flatMap((e) => (e.kind === "step" ? [e.title] : []));
		expect(steps).toEqual([`Fetching uv ${UV_VERSION}`, `Installing Python ${tarball.minor}`, "Installing the sidecar (a few hundred MB the first time)", "Checking the installed sidecar", "Building the embedding model"]);
		const lines = events.flatMap((e) => (e.kind === "line" ? [e.line] : []));
		expect(lines.some((l) => l.startsWith("sha256 checked: "))).toBe(true);
		expect(events.some((e) => e.kind === "progress" && e.received === e.total && e.total > 1_000_000)).toBe(true);
		expect(index.seen).toContain(`GET /pypi/uv/${UV_VERSION}/json`);
		expect(index.seen).toContain("GET /simple/ora-vault-sidecar/");
		expect(index.seen.some((s) => s.startsWith("GET /files/cpython-"))).toBe(true);
		expect(installer.state()).toBe("installed");
		const paths = installer.paths;
		expect(existsSync(join(paths.models, "all-MiniLM-L6-v2-fp32", "model.onnx"))).toBe(true);
		expect(readFileSync(paths.log, "utf8")).toContain(`Done: ora ${PLUGIN_VERSION}`);

		// Move-proof: the whole install folder renamed, the sidecar still starts through its interpreter.
		const moved = join(root, "data", "ora-vault-moved");
		renameSync(dir, moved);
		const movedPaths = managedPaths(moved, process.platform);
		const found = locateOra(MANAGED_COMMAND, movedPaths, childEnv(), process.platform);
		expect(found?.where).toBe("managed");
		expect(found?.command.startsWith(moved)).toBe(true);
		const alone = await runProcess(found!.command, [...found!.prefix, "--version"], { env: managedEnv(movedPaths, childEnv()) });
		expect(alone.stdout.trim()).toBe(`ora ${PLUGIN_VERSION}`);
		renameSync(moved, dir);

		// One upgrade for every vault: the shared install moves to the newer wheel.
		const newer = nextPatch(PLUGIN_VERSION);
		index.packages.push(buildStubWheel(python, fixtures, newer));
		expect(await installer.upgrade({ kind: "index" })).toEqual({ ok: true, version: newer });
		expect(readInstall(paths)?.version).toBe(newer);

		expect((await installer.remove()).ok).toBe(true);
		expect(installer.state()).toBe("absent");
		expect(readdirSync(dir)).toEqual(["setup.log"]);
		expect(readdirSync(home)).toEqual([]);
		index.packages.pop();
	}, FLOW_TIMEOUT_MS);

	it("refuses uv whose bytes are not the ones the index states, keeping nothing of it", async () => {
		const installer = makeInstaller(join(root, "tampered"));
		index.tamperUv = true;
		try {
			const outcome = await installer.install({ kind: "index" });
			expect(outcome.ok).toBe(false);
			expect(!outcome.ok && outcome.message).toMatch(/sha256 [0-9a-f]{64} is not the 0{64} the index states/);
		} finally {
			index.tamperUv = false;
		}
		expect(existsSync(installer.paths.uv)).toBe(false);
		expect(readdirSync(installer.paths.downloads)).toEqual([]);
	}, FLOW_TIMEOUT_MS);

	it("cancels mid-download: uv is killed, partial files go, then Install, Repair and Remove all work", async () => {
		const installer = makeInstaller(join(root, "interrupted"));
		index.held = null;
		index.holdPython = true;
		const events: SetupEvent[] = [];
		const running = installer.install({ kind: "index" }, (e) => {
			events.push(e);
			if (e.kind === "line" && e.line.includes(" python install ")) setTimeout(() => void waitForHold().then(() => installer.cancel()), 0);
		});
		const waitForHold = async (): Promise<void> => {
			while (!index.held) await new Promise((r) => setTimeout(r, 50));
		};
		const outcome = await running;
		index.holdPython = false;
		expect(outcome).toMatchObject({ ok: false, cancelled: true });
		const held = index.held as Promise<void> | null;
		expect(held).not.toBeNull();
		await held; // uv's connection closed: the process is gone
		expect(existsSync(join(installer.paths.python, ".temp")) && readdirSync(join(installer.paths.python, ".temp")).length > 0).toBe(false);
		expect(existsSync(installer.paths.downloads)).toBe(false);
		expect(installer.state()).toBe("partial");

		// Another vault's Obsidian setting up at the same time holds the lock: refused, nothing touched.
		const lock = join(installer.paths.root, "setup.lock");
		writeFileSync(lock, String(process.ppid));
		const refused = await installer.install({ kind: "index" });
		expect(!refused.ok && refused.message).toContain(`Obsidian (process ${process.ppid}) is setting up the sidecar of this computer for another vault`);
		// Obsidian quit mid-install: its lock (a process that is gone) is taken over.
		const gone = spawnSync("true").pid;
		writeFileSync(lock, String(gone));
		expect(await installer.install({ kind: "index" })).toEqual({ ok: true, version: PLUGIN_VERSION });
		expect(existsSync(lock)).toBe(false);
		// Quit between the sidecar's install and its check: no record, so "partial" again.
		rmSync(installer.paths.marker);
		expect(installer.state()).toBe("partial");
		expect((await installer.upgrade({ kind: "index" })).ok).toBe(false);
		expect(await installer.repair({ kind: "index" })).toEqual({ ok: true, version: PLUGIN_VERSION });
		rmSync(installer.paths.marker);
		expect((await installer.remove()).ok).toBe(true);
		expect(installer.state()).toBe("absent");
	}, FLOW_TIMEOUT_MS);

	it("keeps the installed sidecar when the model build fails", async () => {
		const installer = makeInstaller(join(root, "model-fails"), { ORA_STUB_FAIL_BUILD: "1" });
		const outcome = await installer.install({ kind: "index" });
		expect(outcome.ok).toBe(false);
		expect(!outcome.ok && outcome.message).toContain(`The sidecar ${PLUGIN_VERSION} is installed, but the embedding model could not be built`);
		expect(installer.state()).toBe("installed");
		const found = locateOra(MANAGED_COMMAND, installer.paths, childEnv(), process.platform);
		const answer = await runProcess(found!.command, [...SIDECAR_ENTRY, "--version"], { env: managedEnv(installer.paths, childEnv()) });
		expect(answer.stdout.trim()).toBe(`ora ${PLUGIN_VERSION}`);
	}, FLOW_TIMEOUT_MS);
});
