// The set-up flow end to end: a real Python found on this machine, a real `python -m venv` in a
// plugin folder, a real pip installing a local wheel, the installed `ora` run. The wheel is the
// tiny stand-in of stub-wheel.ts unless ORA_SETUP_WHEEL names a real one (from `make dist`):
//   ORA_SETUP_WHEEL=$PWD/dist/ora_vault_sidecar-0.1.0-py3-none-any.whl npx vitest run plugin/tests/setup
// Children run with HOME set to an empty folder, which must still be empty at the end: nothing is
// written outside the plugin's folder.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { homedir, tmpdir } from "os";
import { join, resolve } from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SidecarInstaller, type SetupEvent } from "../../src/setup/installer";
import { managedEnv, managedPaths } from "../../src/setup/paths";
import { runProcess } from "../../src/setup/process";
import { findPython, pythonCandidates } from "../../src/setup/python";
import { buildStubWheel } from "./stub-wheel";

const PLUGIN_VERSION = (JSON.parse(readFileSync(resolve(__dirname, "../../../manifest.json"), "utf8")) as { version: string }).version;
const REAL_WHEEL = process.env.ORA_SETUP_WHEEL ?? null;
const FLOW_TIMEOUT_MS = REAL_WHEEL ? 1_800_000 : 300_000;

let root = "";
let home = "";
let python: string | null = null;

function childEnv(): NodeJS.ProcessEnv {
	// Tools found through HOME keep their real folders: pyenv's shims (PYENV_ROOT), and rustup's
	// proxies, which pip runs (`rustc --version`, for its user agent) and which would otherwise
	// create HOME/.rustup: that is the test machine's tooling, not something the set-up writes.
	const real = (name: string, folder: string) => {
		const dir = process.env[name] ?? join(homedir(), folder);
		return existsSync(dir) ? { [name]: dir } : {};
	};
	return { ...process.env, HOME: home, USERPROFILE: home, XDG_CACHE_HOME: join(home, ".cache"), ...real("PYENV_ROOT", ".pyenv"), ...real("RUSTUP_HOME", ".rustup"), ...real("CARGO_HOME", ".cargo") };
}

function makeInstaller(pluginDir: string): SidecarInstaller {
	return new SidecarInstaller({
		run: runProcess,
		paths: managedPaths(pluginDir, process.platform),
		platform: process.platform,
		pluginVersion: PLUGIN_VERSION,
		pythonCandidates: pythonCandidates(process.platform, homedir()),
		env: childEnv(),
	});
}

function pluginFolder(name: string): string {
	const dir = join(root, name, "config", "plugins", "ora-vault"); // any config folder name works
	mkdirSync(dir, { recursive: true });
	return dir;
}

function nextPatch(version: string): string {
	const [major, minor, patch] = version.split(".");
	return `${major}.${minor}.${Number(patch) + 1}`;
}

beforeAll(async () => {
	root = mkdtempSync(join(tmpdir(), "ora-setup-e2e-"));
	home = join(root, "home");
	mkdirSync(home);
	const found = await findPython(runProcess, pythonCandidates(process.platform, homedir()), process.platform);
	python = found.ok ? found.executable : null;
});

afterAll(() => {
	if (root) rmSync(root, { recursive: true, force: true });
});

describe("sidecar set-up against a real venv and pip", () => {
	it("installs from a wheel, upgrades, removes, and writes nothing outside the plugin folder", async (ctx) => {
		if (!python) return ctx.skip();
		const pluginDir = pluginFolder("vault");
		const installer = makeInstaller(pluginDir);
		const paths = installer.paths;
		const wheel = REAL_WHEEL ?? buildStubWheel(python, root, PLUGIN_VERSION);
		const version = /ora_vault_sidecar-([^-]+)-/.exec(wheel)?.[1] ?? "";
		expect(installer.installed()).toBe(false);

		const events: SetupEvent[] = [];
		const installed = await installer.install({ kind: "wheel", path: wheel }, (e) => events.push(e));
		expect(installed).toEqual({ ok: true, oraCommand: paths.ora, version });
		const steps = events.filter((e) => e.kind === "step");
		expect(steps.map((s) => s.index)).toEqual([1, 2, 3, 4, 5]);
		expect(steps.every((s) => s.total === 5)).toBe(true);
		const lines = events.flatMap((e) => (e.kind === "line" ? [e.line] : []));
		expect(lines).toContain(`$ ${paths.python} -m pip install --no-cache-dir --disable-pip-version-check --no-input --progress-bar off ${wheel}`);
		expect(lines.some((l) => /Successfully installed .*ora-vault-sidecar/.test(l))).toBe(true);
		expect(installer.installed()).toBe(true);
		expect(existsSync(join(paths.models, "all-MiniLM-L6-v2-fp32", "model.onnx"))).toBe(true);
		expect(readFileSync(paths.log, "utf8")).toContain(`Done: ora ${version} at ${paths.ora}`);

		const alone = await runProcess(paths.ora, ["--version"], { env: managedEnv(paths, childEnv()) });
		expect(alone.stdout.trim()).toBe(`ora ${version}`);

		if (!REAL_WHEEL) {
			const newer = nextPatch(PLUGIN_VERSION);
			const upgraded = await installer.upgrade({ kind: "wheel", path: buildStubWheel(python, root, newer) });
			expect(upgraded).toEqual({ ok: true, oraCommand: paths.ora, version: newer });
		}

		const removed = await installer.remove();
		expect(removed.ok).toBe(true);
		expect(existsSync(paths.venv) || existsSync(paths.models)).toBe(false);
		expect(installer.installed()).toBe(false);
		expect(readdirSync(pluginDir)).toEqual(["setup.log"]);
		expect(readdirSync(home)).toEqual([]);
	}, FLOW_TIMEOUT_MS);

	it("refuses a wheel of another release series before creating anything", async (ctx) => {
		if (!python) return ctx.skip();
		const installer = makeInstaller(pluginFolder("vault-major"));
		const wheel = buildStubWheel(python, mkdtempSync(join(root, "w-")), "9.0.0");
		const outcome = await installer.install({ kind: "wheel", path: wheel });
		expect(outcome.ok).toBe(false);
		expect(!outcome.ok && outcome.message).toContain("Update the plugin");
		expect(existsSync(installer.paths.venv)).toBe(false);
	});

	it("removes the half-made environment when pip fails, and says where the log is", async (ctx) => {
		if (!python) return ctx.skip();
		const installer = makeInstaller(pluginFolder("vault-broken"));
		const wheel = join(mkdtempSync(join(root, "w-")), `ora_vault_sidecar-${PLUGIN_VERSION}-py3-none-any.whl`);
		writeFileSync(wheel, "not a zip file");
		const lines: string[] = [];
		const outcome = await installer.install({ kind: "wheel", path: wheel }, (e) => e.kind === "line" && lines.push(e.line));
		expect(outcome.ok).toBe(false);
		expect(!outcome.ok && outcome.message).toMatch(/python -m pip install failed \(exit \d+\).*setup\.log/s);
		expect(existsSync(installer.paths.venv)).toBe(false);
		expect(lines).toContain(`Removed the unfinished ${installer.paths.venv}`);
		expect(readFileSync(installer.paths.log, "utf8")).toContain("Failed: ");
	}, 180_000);
});
