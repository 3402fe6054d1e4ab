import { existsSync, statSync } from "fs";
import * as path from "path";

/** Where the set-up keeps the sidecar: all of it inside the plugin's own folder. */
export interface ManagedPaths {
	pluginDir: string;
	venv: string;
	python: string;
	ora: string;
	/** ORA_MODELS_DIR of the managed sidecar (the fp32 embedder it builds). */
	models: string;
	/** XDG_CACHE_HOME of the managed sidecar, so libraries' caches stay in the plugin folder. */
	cache: string;
	log: string;
}

function pathsFor(platform: NodeJS.Platform): path.PlatformPath {
	return platform === "win32" ? path.win32 : path.posix;
}

export function managedPaths(pluginDir: string, platform: NodeJS.Platform): ManagedPaths {
	const p = pathsFor(platform);
	const venv = p.join(pluginDir, "venv");
	const bin = platform === "win32" ? p.join(venv, "Scripts") : p.join(venv, "bin");
	const exe = platform === "win32" ? ".exe" : "";
	return {
		pluginDir,
		venv,
		python: p.join(bin, `python${exe}`),
		ora: p.join(bin, `ora${exe}`),
		models: p.join(pluginDir, "models"),
		cache: p.join(pluginDir, "cache"),
		log: p.join(pluginDir, "setup.log"),
	};
}

/**
 * The environment for every process of the managed sidecar: the user's, minus what would make
 * Python look outside the venv, plus the models folder and a cache folder inside the plugin's
 * folder (onnxruntime writes a device id under XDG_CACHE_HOME, else ~/.cache, when it loads).
 */
export function managedEnv(paths: ManagedPaths, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...base, ORA_MODELS_DIR: paths.models, XDG_CACHE_HOME: paths.cache, PYTHONNOUSERSITE: "1" };
	for (const key of ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "CONDA_PREFIX"]) delete env[key];
	return env;
}

/** The environment to run `ora` with: managedEnv for the managed sidecar, else the user's. */
export function commandEnv(oraCommand: string, paths: ManagedPaths, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	return oraCommand === paths.ora ? managedEnv(paths, base) : base;
}

function isFile(file: string): boolean {
	try {
		return statSync(file).isFile();
	} catch {
		return false;
	}
}

/** A command as the system would find it: a path as it is, a bare name on PATH; null when absent. */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | null {
	const p = pathsFor(platform);
	if (command.includes("/") || command.includes("\\")) return isFile(command) ? command : null;
	const suffixes = platform === "win32" ? [".exe", ".cmd", ".bat", ""] : [""];
	const dirs = (env.PATH ?? env.Path ?? "").split(p.delimiter).filter((d) => d !== "");
	for (const dir of dirs) {
		for (const suffix of suffixes) {
			const file = p.join(dir, command + suffix);
			if (isFile(file)) return file;
		}
	}
	return null;
}

export type OraLocation = { command: string; where: "setting" | "managed" | "user" };

/**
 * Where an `ora` is: the command setting, else the plugin's own install, else where pipx and
 * `uv tool` put commands (~/.local/bin, often missing from a desktop app's PATH). Null: none.
 */
export function locateOra(setting: string, paths: ManagedPaths, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): OraLocation | null {
	const fromSetting = resolveCommand(setting, env, platform);
	if (fromSetting) return { command: fromSetting, where: "setting" };
	if (existsSync(paths.ora)) return { command: paths.ora, where: "managed" };
	const home = env.HOME ?? env.USERPROFILE ?? "";
	if (home) {
		const user = pathsFor(platform).join(home, ".local", "bin", platform === "win32" ? "ora.exe" : "ora");
		if (isFile(user)) return { command: user, where: "user" };
	}
	return null;
}
