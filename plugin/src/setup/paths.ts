import { accessSync, constants, existsSync, readFileSync, statSync } from "fs";
import * as path from "path";

/**
 * Where the set-up keeps the sidecar: one install per machine and user, shared by every vault, in
 * the OS's per-user data folder. Each vault keeps only its `.ora/`. Nothing in here records an
 * absolute path, so the folder (and any vault) can be moved or renamed.
 */
export interface ManagedPaths {
	root: string;
	/** The uv binary the set-up fetched. */
	uv: string;
	/** UV_PYTHON_INSTALL_DIR: the CPython uv installs, with the sidecar installed into it. */
	python: string;
	/** ORA_MODELS_DIR of the managed sidecar (the fp32 embedder it builds, the models it pulls). */
	models: string;
	/** XDG_CACHE_HOME (onnxruntime's device id) and uv's cache. */
	cache: string;
	/** Partial downloads (`*.part`), removed on cancel. */
	downloads: string;
	/** Written last by a finished install: the interpreter, relative to root, and the version. */
	marker: string;
	log: string;
}

/** What a finished install records in its marker file. */
export interface InstallRecord {
	/** The interpreter, relative to the root (move-proof). */
	python: string;
	version: string;
}

function pathsFor(platform: NodeJS.Platform): path.PlatformPath {
	return platform === "win32" ? path.win32 : path.posix;
}

/** The OS's per-user data folder for Ora: XDG data home on Linux, Application Support, LOCALAPPDATA. */
export function machineDataDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
	const p = pathsFor(platform);
	if (platform === "win32") return p.join(env.LOCALAPPDATA || p.join(home, "AppData", "Local"), "ora-vault");
	if (platform === "darwin") return p.join(home, "Library", "Application Support", "ora-vault");
	const xdg = env.XDG_DATA_HOME ?? "";
	return p.join(p.isAbsolute(xdg) ? xdg : p.join(home, ".local", "share"), "ora-vault");
}

export function managedPaths(root: string, platform: NodeJS.Platform): ManagedPaths {
	const p = pathsFor(platform);
	return {
		root,
		uv: p.join(root, "bin", platform === "win32" ? "uv.exe" : "uv"),
		python: p.join(root, "python"),
		models: p.join(root, "models"),
		cache: p.join(root, "cache"),
		downloads: p.join(root, "downloads"),
		marker: p.join(root, "install.json"),
		log: p.join(root, "setup.log"),
	};
}

/**
 * The environment for every process of the managed sidecar and of uv: the user's, minus what would
 * make Python look elsewhere, plus the models, cache and Python folders of the install.
 */
export function managedEnv(paths: ManagedPaths, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {
		...base,
		ORA_MODELS_DIR: paths.models,
		XDG_CACHE_HOME: paths.cache,
		PYTHONNOUSERSITE: "1",
		UV_CACHE_DIR: path.join(paths.cache, "uv"),
		UV_PYTHON_INSTALL_DIR: paths.python,
		// uv never picks a Python of the system, nor writes a `python3.x` into ~/.local/bin.
		UV_MANAGED_PYTHON: "1",
		UV_PYTHON_BIN_DIR: path.join(paths.root, "bin"),
	};
	for (const key of ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "CONDA_PREFIX"]) delete env[key];
	return env;
}

/** The finished install's record, or null (absent, unfinished, or unreadable). */
export function readInstall(paths: ManagedPaths): InstallRecord | null {
	try {
		const value = JSON.parse(readFileSync(paths.marker, "utf8")) as Partial<InstallRecord>;
		if (typeof value.python === "string" && typeof value.version === "string") return { python: value.python, version: value.version };
	} catch {
		// no marker: not installed, or interrupted before the end
	}
	return null;
}

/** The managed interpreter, found from the record (relative to where the install is now), or null. */
export function managedInterpreter(paths: ManagedPaths, platform: NodeJS.Platform): string | null {
	const record = readInstall(paths);
	if (!record) return null;
	const file = pathsFor(platform).join(paths.root, record.python);
	return isRunnable(file, platform) ? file : null;
}

/**
 * The sidecar's entry through the interpreter (the `ora` console script's, pyproject.toml
 * [project.scripts]): a script's absolute shebang breaks when its folder moves, `python -c` does not.
 * `-P` (3.11+) keeps the working folder off sys.path, where a `sidecar` folder would shadow ours.
 */
export const SIDECAR_ENTRY = ["-P", "-c", "import sys; from sidecar.cli import main; sys.exit(main())"] as const;

/** The command setting's value that means "the plugin's own install". */
export const MANAGED_COMMAND = "managed";

function isFile(file: string): boolean {
	try {
		return statSync(file).isFile();
	} catch {
		return false;
	}
}

/** A file the system would run: on POSIX one with an execute bit for this user (a shell passes over the others on PATH). */
function isRunnable(file: string, platform: NodeJS.Platform): boolean {
	if (!isFile(file)) return false;
	if (platform === "win32") return true;
	try {
		accessSync(file, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** A command as the system would find it: a path as it is, a bare name on PATH; null when absent. */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | null {
	const p = pathsFor(platform);
	if (command.includes("/") || command.includes("\\")) return isRunnable(command, platform) ? command : null;
	const suffixes = platform === "win32" ? [".exe", ".cmd", ".bat", ""] : [""];
	const dirs = (env.PATH ?? env.Path ?? "").split(p.delimiter).filter((d) => d !== "");
	for (const dir of dirs) {
		for (const suffix of suffixes) {
			const file = p.join(dir, command + suffix);
			if (isRunnable(file, platform)) return file;
		}
	}
	return null;
}

/** How to start `ora ARGS`: a program, the arguments before ARGS, and whether it is the managed install. */
export type OraLocation = { command: string; prefix: readonly string[]; where: "setting" | "managed" | "user" };

/**
 * Where an `ora` is. The setting "managed" means the plugin's install and nothing else; another
 * setting is tried first, then the plugin's install, then where pipx and `uv tool` put commands
 * (~/.local/bin, often missing from a desktop app's PATH). Null: none.
 */
export function locateOra(setting: string, paths: ManagedPaths, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): OraLocation | null {
	const managed = managedInterpreter(paths, platform);
	const ownInstall = managed ? { command: managed, prefix: SIDECAR_ENTRY, where: "managed" as const } : null;
	if (setting === MANAGED_COMMAND) return ownInstall;
	const fromSetting = resolveCommand(setting, env, platform);
	if (fromSetting) return { command: fromSetting, prefix: [], where: "setting" };
	if (ownInstall) return ownInstall;
	const home = env.HOME ?? env.USERPROFILE ?? "";
	if (home) {
		const user = pathsFor(platform).join(home, ".local", "bin", platform === "win32" ? "ora.exe" : "ora");
		if (isRunnable(user, platform)) return { command: user, prefix: [], where: "user" };
	}
	return null;
}

/** Whether anything of an install is there (a finished one, or what an interrupted one left). */
export function anythingInstalled(paths: ManagedPaths): boolean {
	return [paths.uv, paths.python, paths.marker, paths.models].some((p) => existsSync(p));
}
