import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { describe, expect, it } from "vitest";

import { commandEnv, locateOra, managedEnv, managedPaths, resolveCommand } from "../../src/setup/paths";

function executable(file: string): string {
	mkdirSync(join(file, ".."), { recursive: true });
	writeFileSync(file, "#!/bin/sh\n");
	chmodSync(file, 0o755);
	return file;
}

describe("managed sidecar paths", () => {
	it("keeps the venv, the models and the log inside the plugin folder", () => {
		expect(managedPaths("/v/cfg/plugins/ora-vault", "linux")).toEqual({
			pluginDir: "/v/cfg/plugins/ora-vault",
			venv: "/v/cfg/plugins/ora-vault/venv",
			python: "/v/cfg/plugins/ora-vault/venv/bin/python",
			ora: "/v/cfg/plugins/ora-vault/venv/bin/ora",
			models: "/v/cfg/plugins/ora-vault/models",
			cache: "/v/cfg/plugins/ora-vault/cache",
			log: "/v/cfg/plugins/ora-vault/setup.log",
		});
		const win = managedPaths("C:\\v\\cfg\\plugins\\ora-vault", "win32");
		expect(win.ora).toBe("C:\\v\\cfg\\plugins\\ora-vault\\venv\\Scripts\\ora.exe");
		expect(win.python).toBe("C:\\v\\cfg\\plugins\\ora-vault\\venv\\Scripts\\python.exe");
	});

	it("runs the managed sidecar with its own models folder and without the user's Python paths", () => {
		const paths = managedPaths("/p", "linux");
		const env = managedEnv(paths, { PATH: "/bin", PYTHONPATH: "/elsewhere", VIRTUAL_ENV: "/venv", ORA_PORT: "1" });
		expect(env).toEqual({ PATH: "/bin", ORA_PORT: "1", ORA_MODELS_DIR: "/p/models", XDG_CACHE_HOME: "/p/cache", PYTHONNOUSERSITE: "1" });
		expect(commandEnv("/p/venv/bin/ora", paths, { PATH: "/bin" }).ORA_MODELS_DIR).toBe("/p/models");
		expect(commandEnv("ora", paths, { PATH: "/bin" })).toEqual({ PATH: "/bin" });
	});
});

describe("finding ora", () => {
	const root = mkdtempSync(join(tmpdir(), "ora-locate-"));
	const onPath = executable(join(root, "bin", "ora"));
	const pipx = executable(join(root, "home", ".local", "bin", "ora"));
	const managed = managedPaths(join(root, "plugin"), "linux");

	it("resolves a bare name on PATH and an absolute path as it is", () => {
		expect(resolveCommand("ora", { PATH: `/nowhere:${join(root, "bin")}` }, "linux")).toBe(onPath);
		expect(resolveCommand(onPath, {}, "linux")).toBe(onPath);
		expect(resolveCommand("ora", { PATH: "/nowhere" }, "linux")).toBeNull();
		expect(resolveCommand(join(root, "missing"), {}, "linux")).toBeNull();
	});

	it("prefers the setting, then the plugin's own install, then pipx's and uv's ~/.local/bin", () => {
		const home = join(root, "home");
		expect(locateOra("ora", managed, { PATH: join(root, "bin"), HOME: home }, "linux")).toEqual({ command: onPath, where: "setting" });
		expect(locateOra("ora", managed, { PATH: "/nowhere", HOME: home }, "linux")).toEqual({ command: pipx, where: "user" });
		executable(managed.ora);
		expect(locateOra("ora", managed, { PATH: "/nowhere", HOME: home }, "linux")).toEqual({ command: managed.ora, where: "managed" });
		expect(locateOra("ora", managedPaths(join(root, "none"), "linux"), { PATH: "/nowhere", HOME: join(root, "empty") }, "linux")).toBeNull();
	});
});
