import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { describe, expect, it } from "vitest";

import { anythingInstalled, locateOra, machineDataDir, managedEnv, managedInterpreter, managedPaths, MANAGED_COMMAND, resolveCommand, SIDECAR_ENTRY } from "../../src/setup/paths";

function executable(file: string): string {
	mkdirSync(join(file, ".."), { recursive: true });
	writeFileSync(file, "#!/bin/sh\n");
	chmodSync(file, 0o755);
	return file;
}

describe("the machine's one install", () => {
	it("lives in the OS's per-user data folder, never in a vault", () => {
		expect(machineDataDir("linux", {}, "/home/u")).toBe("/home/u/.local/share/ora-vault");
		expect(machineDataDir("linux", { XDG_DATA_HOME: "/data" }, "/home/u")).toBe("/data/ora-vault");
		expect(machineDataDir("linux", { XDG_DATA_HOME: "relative" }, "/home/u")).toBe("/home/u/.local/share/ora-vault");
		expect(machineDataDir("darwin", {}, "/Users/u")).toBe("/Users/u/Library/Application Support/ora-vault");
		expect(machineDataDir("win32", { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "C:\\Users\\u")).toBe("C:\\Users\\u\\AppData\\Local\\ora-vault");
		expect(machineDataDir("win32", {}, "C:\\Users\\u")).toBe("C:\\Users\\u\\AppData\\Local\\ora-vault");
	});

	it("keeps uv, Python, the models, the caches and the log under one root", () => {
		expect(managedPaths("/d/ora-vault", "linux")).toEqual({
			root: "/d/ora-vault",
			uv: "/d/ora-vault/bin/uv",
			python: "/d/ora-vault/python",
			models: "/d/ora-vault/models",
			cache: "/d/ora-vault/cache",
			downloads: "/d/ora-vault/downloads",
			marker: "/d/ora-vault/install.json",
			log: "/d/ora-vault/setup.log",
		});
		expect(managedPaths("C:\\d\\ora-vault", "win32").uv).toBe("C:\\d\\ora-vault\\bin\\uv.exe");
	});

	it("runs uv and the sidecar with the install's folders and without the user's Python paths", () => {
		const paths = managedPaths("/p", "linux");
		const env = managedEnv(paths, { PATH: "/bin", PYTHONPATH: "/elsewhere", VIRTUAL_ENV: "/venv", ORA_PORT: "1" });
		expect(env).toEqual({
			PATH: "/bin",
			ORA_PORT: "1",
			ORA_MODELS_DIR: "/p/models",
			XDG_CACHE_HOME: "/p/cache",
			PYTHONNOUSERSITE: "1",
			UV_CACHE_DIR: "/p/cache/uv",
			UV_PYTHON_INSTALL_DIR: "/p/python",
			UV_MANAGED_PYTHON: "1",
			UV_PYTHON_BIN_DIR: "/p/bin",
		});
	});
});

describe("finding ora", () => {
	const root = mkdtempSync(join(tmpdir(), "ora-locate-"));
	const onPath = executable(join(root, "bin", "ora"));
	const pipx = executable(join(root, "home", ".local", "bin", "ora"));
	const managed = managedPaths(join(root, "data"), "linux");

	it("resolves a bare name on PATH and an absolute path as it is", () => {
		expect(resolveCommand("ora", { PATH: `/nowhere:${join(root, "bin")}` }, "linux")).toBe(onPath);
		expect(resolveCommand(onPath, {}, "linux")).toBe(onPath);
		expect(resolveCommand("ora", { PATH: "/nowhere" }, "linux")).toBeNull();
		expect(resolveCommand(join(root, "missing"), {}, "linux")).toBeNull();
	});

	it("passes over a file on PATH that cannot be run, as a shell does", () => {
		const plain = join(root, "plain", "ora");
		mkdirSync(join(plain, ".."), { recursive: true });
		writeFileSync(plain, "#!/bin/sh\n");
		chmodSync(plain, 0o644);
		expect(resolveCommand("ora", { PATH: `${join(root, "plain")}:${join(root, "bin")}` }, "linux")).toBe(onPath);
		expect(resolveCommand(plain, {}, "linux")).toBeNull();
		expect(locateOra("ora", managed, { PATH: join(root, "plain"), HOME: join(root, "home") }, "linux")).toEqual({ command: pipx, prefix: [], where: "user" });
	});

	it("prefers the setting, then the plugin's own install (through its interpreter), then ~/.local/bin", () => {
		const home = join(root, "home");
		expect(anythingInstalled(managed)).toBe(false);
		expect(locateOra("ora", managed, { PATH: join(root, "bin"), HOME: home }, "linux")).toEqual({ command: onPath, prefix: [], where: "setting" });
		expect(locateOra("ora", managed, { PATH: "/nowhere", HOME: home }, "linux")).toEqual({ command: pipx, prefix: [], where: "user" });
		expect(locateOra(MANAGED_COMMAND, managed, { PATH: join(root, "bin"), HOME: home }, "linux")).toBeNull();
		// An interrupted install (an interpreter, no record) is not used; a finished one is.
		const python = executable(join(managed.python, "cpython-3.12.9-linux-x86_64-gnu", "bin", "python3.12"));
		expect(anythingInstalled(managed)).toBe(true);
		expect(managedInterpreter(managed, "linux")).toBeNull();
		writeFileSync(managed.marker, JSON.stringify({ python: "python/cpython-3.12.9-linux-x86_64-gnu/bin/python3.12", version: "0.1.0" }));
		const own = { command: python, prefix: SIDECAR_ENTRY, where: "managed" };
		expect(locateOra("ora", managed, { PATH: "/nowhere", HOME: home }, "linux")).toEqual(own);
		expect(locateOra(MANAGED_COMMAND, managed, { PATH: join(root, "bin"), HOME: home }, "linux")).toEqual(own);
		expect(locateOra("ora", managed, { PATH: join(root, "bin"), HOME: home }, "linux")?.where).toBe("setting");
	});
});
