import { existsSync, promises as fs } from "fs";
import * as path from "path";

import { parseVersion, sidecarRequirement, versionRefusal } from "./compat";
import { managedEnv, type ManagedPaths } from "./paths";
import type { RunResult, Runner } from "./process";
import { findPython, type PythonCandidate } from "./python";

/** Where pip takes the sidecar from: the package index (pypi.org or the user's pip config), or a wheel file. */
export type PackageSource = { kind: "index" } | { kind: "wheel"; path: string };

export type SetupEvent =
	| { kind: "step"; index: number; total: number; title: string }
	| { kind: "line"; line: string };

export type SetupOutcome = { ok: true; oraCommand: string; version: string } | { ok: false; message: string };

export interface InstallerOptions {
	run: Runner;
	paths: ManagedPaths;
	platform: NodeJS.Platform;
	/** The plugin's version: the sidecar installed must be of the same release series. */
	pluginVersion: string;
	pythonCandidates: PythonCandidate[];
	/** The user's environment (process.env); children get managedEnv() of it. */
	env: NodeJS.ProcessEnv;
}

export type SetupListener = (event: SetupEvent) => void;

/** pip: quiet about its own updates, never prompting, keeping no cache in the user's home. */
const PIP_INSTALL = ["-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check", "--no-input", "--progress-bar", "off"];
const PIP_TIMEOUT_MS = 30 * 60_000;

class StepFailed extends Error {}

/**
 * Installs, upgrades and removes the plugin's own sidecar: a virtual environment in the plugin's
 * folder with `ora-vault-sidecar` installed by pip, and the embedding model built into the
 * folder's `models/`. Every step and line of output goes to the listener and, at the end, to `setup.log`.
 * Nothing is written outside the plugin's folder (pip runs without a cache).
 */
export class SidecarInstaller {
	private log: string[] = [];
	private step = 0;
	private total = 0;
	private listener: SetupListener = () => undefined;
	private busy = false;

	constructor(private readonly options: InstallerOptions) {}

	get paths(): ManagedPaths {
		return this.options.paths;
	}

	/** Whether the managed sidecar is there (its `ora` exists). */
	installed(): boolean {
		return existsSync(this.paths.ora);
	}

	/** Whether an install, upgrade or removal is under way (one at a time). */
	get running(): boolean {
		return this.busy;
	}

	async install(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome> {
		return this.operation(5, listener, async () => {
			if (existsSync(this.paths.venv)) {
				throw new StepFailed(`${this.paths.venv} already exists: upgrade or remove the sidecar instead.`);
			}
			this.checkWheel(source);
			this.begin("Finding Python 3.11 or newer");
			const python = await findPython(this.options.run, this.options.pythonCandidates, this.options.platform, this.options.env);
			if (!python.ok) throw new StepFailed(python.message);
			this.line(`Using Python ${python.version} (${python.executable})`);
			try {
				this.begin(`Creating a virtual environment in ${this.paths.venv}`);
				await this.must(python.executable, ["-m", "venv", this.paths.venv], 10 * 60_000);
				this.begin("Installing the sidecar with pip (this downloads a few hundred MB the first time)");
				await this.must(this.paths.python, [...PIP_INSTALL, this.spec(source)], PIP_TIMEOUT_MS);
				return await this.finish();
			} catch (err) {
				// A half-made environment would look installed; start clean next time.
				await fs.rm(this.paths.venv, { recursive: true, force: true });
				this.line(`Removed the unfinished ${this.paths.venv}`);
				throw err;
			}
		});
	}

	async upgrade(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome> {
		return this.operation(3, listener, async () => {
			if (!this.installed()) throw new StepFailed("The sidecar is not installed here yet: set it up first.");
			this.checkWheel(source);
			this.begin("Upgrading the sidecar with pip");
			await this.must(this.paths.python, [...PIP_INSTALL, "--upgrade", this.spec(source)], PIP_TIMEOUT_MS);
			return await this.finish();
		});
	}

	/** Deletes the virtual environment, the models and the cache (the caller stops the sidecar first). */
	async remove(listener?: SetupListener): Promise<SetupOutcome> {
		return this.operation(1, listener, async () => {
			this.begin("Removing the sidecar's virtual environment and models");
			for (const dir of [this.paths.venv, this.paths.models, this.paths.cache]) {
				if (!isInside(dir, this.paths.pluginDir)) throw new StepFailed(`${dir} is not inside ${this.paths.pluginDir}`);
				await fs.rm(dir, { recursive: true, force: true });
				this.line(`Removed ${dir}`);
			}
			return { ok: true, oraCommand: "", version: "" };
		});
	}

	/** The last steps of install and upgrade: check the version, then build the model. */
	private async finish(): Promise<SetupOutcome> {
		this.begin("Checking the installed sidecar");
		const answer = await this.must(this.paths.ora, ["--version"], 120_000);
		const version = answer.stdout.trim().replace(/^ora\s+/, "");
		this.line(`ora ${version}`);
		const refusal = versionRefusal(version, this.options.pluginVersion);
		if (refusal) throw new StepFailed(refusal);
		this.begin("Building the embedding model");
		await this.must(this.paths.ora, ["models", "build"], 30 * 60_000);
		return { ok: true, oraCommand: this.paths.ora, version };
	}

	private spec(source: PackageSource): string {
		return source.kind === "wheel" ? source.path : sidecarRequirement(this.options.pluginVersion);
	}

	/** Refuses a wheel of another release series before pip touches anything. */
	private checkWheel(source: PackageSource): void {
		if (source.kind !== "wheel") return;
		const name = path.basename(source.path);
		if (!name.endsWith(".whl") || !existsSync(source.path)) {
			throw new StepFailed(`${source.path} is not a wheel file (ora_vault_sidecar-VERSION-py3-none-any.whl).`);
		}
		const version = name.split("-")[1] ?? "";
		const refusal = parseVersion(version) ? versionRefusal(version, this.options.pluginVersion) : null;
		if (refusal) throw new StepFailed(refusal);
	}

	private async operation(total: number, listener: SetupListener | undefined, body: () => Promise<SetupOutcome>): Promise<SetupOutcome> {
		if (this.busy) return { ok: false, message: "Another set-up step is still running." };
		this.busy = true;
		this.listener = listener ?? (() => undefined);
		this.log = [];
		this.step = 0;
		this.total = total;
		let outcome: SetupOutcome;
		try {
			outcome = await body();
			this.line(outcome.ok && outcome.version ? `Done: ora ${outcome.version} at ${outcome.oraCommand}` : "Done.");
		} catch (err) {
			const message = err instanceof Error ? err.message : String(err);
			this.line(`Failed: ${message}`);
			outcome = { ok: false, message };
		}
		await this.saveLog();
		this.busy = false;
		return outcome;
	}

	private begin(title: string): void {
		this.step += 1;
		this.log.push(`== ${this.step}/${this.total} ${title}`);
		this.listener({ kind: "step", index: this.step, total: this.total, title });
	}

	private line(line: string): void {
		this.log.push(line);
		this.listener({ kind: "line", line });
	}

	/** Runs a step's program; a non-zero exit fails the step with the last lines of its output. */
	private async must(command: string, args: string[], timeoutMs: number): Promise<RunResult> {
		this.line(`$ ${[command, ...args].join(" ")}`);
		const result = await this.options.run(command, args, {
			env: managedEnv(this.paths, this.options.env),
			cwd: this.paths.pluginDir,
			onLine: (line) => this.line(line),
			timeoutMs,
		});
		if (result.code === 0) return result;
		const why = result.error ?? `exit ${result.code}`;
		const tail = (result.stderr || result.stdout).trim().split("\n").slice(-3).join(" ");
		throw new StepFailed(`${path.basename(command)} ${args.slice(0, 3).join(" ")} failed (${why})${tail ? `: ${tail}` : ""}. The full log is in ${this.paths.log}.`);
	}

	private async saveLog(): Promise<void> {
		try {
			await fs.mkdir(this.paths.pluginDir, { recursive: true });
			await fs.writeFile(this.paths.log, this.log.join("\n") + "\n", "utf8");
		} catch {
			// the log on screen is the one that matters; a read-only plugin folder is reported by the steps
		}
	}
}

function isInside(child: string, parent: string): boolean {
	const rel = path.relative(parent, child);
	return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}
