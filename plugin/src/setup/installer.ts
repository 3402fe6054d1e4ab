import { existsSync, promises as fs } from "fs";
import * as path from "path";

import installer from "../../../schema/installer.json";
import { parseVersion, sidecarRequirement, versionRefusal, SIDECAR_PACKAGE } from "./compat";
import { describeUrl, DownloadError, downloadVerified, indexWheel, redactUrl } from "./download";
import { anythingInstalled, managedEnv, readInstall, SIDECAR_ENTRY, type ManagedPaths } from "./paths";
import type { RunResult, Runner } from "./process";
import { readZipMember } from "./zip";

/** Where the sidecar comes from: the package index, or a wheel file. */
export type PackageSource = { kind: "index" } | { kind: "wheel"; path: string };

export type SetupEvent =
	| { kind: "step"; index: number; total: number; title: string }
	| { kind: "line"; line: string }
	| { kind: "progress"; received: number; total: number };

export type SetupOutcome = { ok: true; version: string } | { ok: false; message: string; cancelled?: boolean };

/** absent: nothing there; partial: an interrupted or failed set-up left something; installed: finished. */
export type InstallState = "absent" | "partial" | "installed";

export interface InstallerOptions {
	run: Runner;
	paths: ManagedPaths;
	platform: NodeJS.Platform;
	/** process.arch; with `musl`, picks uv's wheel (schema/installer.json `uv.wheels`). */
	arch: string;
	musl?: boolean;
	/** The plugin's version: the sidecar installed must be of the same release series. */
	pluginVersion: string;
	/** The user's environment (process.env); children get managedEnv() of it. */
	env: NodeJS.ProcessEnv;
	/** The package index (its JSON API and its /simple); schema/installer.json `index` by default. */
	index?: string;
	/** The CPython uv installs; schema/installer.json `python` by default. */
	python?: string;
	/** A python-build-standalone mirror's metadata (uv's --python-downloads-json-url), or uv's own. */
	pythonDownloads?: string;
	/** A download fails when no byte arrives for this long (download.ts DOWNLOAD_IDLE_MS by default). */
	downloadIdleMs?: number;
}

export type SetupListener = (event: SetupEvent) => void;

const UV_TIMEOUT_MS = 30 * 60_000;

class StepFailed extends Error {}

const BUSY = "Another set-up step is still running.";

const HELD_LOCKS = Symbol.for("ora-vault.setup-locks");

/**
 * The lock files this process's set-up operations hold, kept on `process` so that every installer
 * and every copy of this module in the process (a reloaded plugin whose operation still winds
 * down) sees the same set. A lock file that names this process's pid is live while its path is
 * here, and stale (left by an earlier run) otherwise.
 */
function heldLocks(): Set<string> {
	const store = process as unknown as Record<symbol, Set<string> | undefined>;
	return (store[HELD_LOCKS] ??= new Set<string>());
}

/**
 * Installs, repairs, upgrades and removes the machine's one sidecar, with no Python needed first:
 * uv (fetched from the package index, checked against the sha256 the index states) installs a
 * managed CPython (checked by uv against its download metadata), the sidecar goes into that
 * interpreter with `uv pip install`, and the embedding model is built into the models folder.
 * Every step is safe to run again, so an interrupted set-up is finished by Install or Repair.
 */
export class SidecarInstaller {
	private log: string[] = [];
	private step = 0;
	private total = 0;
	/** The running step's title, for a failure's message. */
	private title = "";
	private listener: SetupListener = () => undefined;
	private busy = false;
	private abort: AbortController | null = null;

	constructor(private readonly options: InstallerOptions) {}

	get paths(): ManagedPaths {
		return this.options.paths;
	}

	state(): InstallState {
		if (readInstall(this.paths)) return "installed";
		return anythingInstalled(this.paths) ? "partial" : "absent";
	}

	/** Whether the managed sidecar is installed and finished. */
	installed(): boolean {
		return this.state() === "installed";
	}

	/** Whether an install, upgrade or removal is under way (one at a time). */
	get running(): boolean {
		return this.busy;
	}

	/** Stops the running operation: its child processes (and theirs) are killed, partial files removed. */
	cancel(): void {
		this.abort?.abort();
	}

	/** Installs, or finishes what an interrupted install left; what is there and sound is kept. */
	async install(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome> {
		return this.operation(5, listener, () => this.setUp(source, false));
	}

	/** Installs again over whatever is there: uv fetched anew, Python and the sidecar reinstalled. */
	async repair(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome> {
		return this.operation(5, listener, () => this.setUp(source, true));
	}

	/** Upgrades the sidecar of every vault at once (they share this install). */
	async upgrade(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome> {
		return this.operation(3, listener, async () => {
			const record = readInstall(this.paths);
			if (!record) throw new StepFailed("The set-up did not finish: use Repair (or Install) instead.");
			this.checkWheel(source);
			const python = path.join(this.paths.root, record.python);
			this.begin("Upgrading the sidecar");
			await this.must(this.paths.uv, [...this.pipInstall(python, source), "--upgrade"]);
			return await this.finish(python);
		});
	}

	/** Deletes uv, Python with the sidecar, the models and the caches (the caller stops the sidecar first). */
	async remove(listener?: SetupListener): Promise<SetupOutcome> {
		return this.operation(1, listener, async () => {
			this.begin("Removing the sidecar, its Python and its models");
			const { paths } = this;
			for (const item of [paths.marker, path.dirname(paths.uv), paths.python, paths.models, paths.cache, paths.downloads]) {
				await fs.rm(item, { recursive: true, force: true });
				this.line(`Removed ${item}`);
			}
			return { ok: true, version: "" };
		});
	}

	private async setUp(source: PackageSource, repair: boolean): Promise<SetupOutcome> {
		this.checkWheel(source);
		if (repair) await fs.rm(this.paths.marker, { force: true });
		await this.fetchUv(repair);
		const python = await this.installPython(repair);
		this.begin("Installing the sidecar (a few hundred MB the first time)");
		await this.must(this.paths.uv, [...this.pipInstall(python, source), ...(repair ? ["--reinstall"] : [])]);
		return await this.finish(python);
	}

	/** Step 1: uv's wheel for this platform from the index, its sha256 checked, the binary taken out. */
	private async fetchUv(refetch: boolean): Promise<void> {
		const version = installer.uv.version;
		this.begin(`Fetching uv ${version}`);
		if (!refetch && existsSync(this.paths.uv)) {
			const answer = await this.options.run(this.paths.uv, ["--version"], { env: this.env(), timeoutMs: 30_000, signal: this.signal() });
			if (answer.code === 0 && answer.stdout.trim().split(/\s+/)[1] === version) {
				this.line(`uv ${version} is already here (${this.paths.uv})`);
				return;
			}
		}
		const tag = this.wheelTag();
		const file = await indexWheel(this.index(), "uv", version, tag, { signal: this.signal(), idleMs: this.options.downloadIdleMs });
		this.line(`${redactUrl(file.url)} (${file.size} bytes, sha256 ${file.sha256})`);
		await fs.mkdir(this.paths.downloads, { recursive: true });
		const wheel = path.join(this.paths.downloads, file.filename);
		await downloadVerified(file.url, wheel, file.sha256, {
			signal: this.signal(),
			idleMs: this.options.downloadIdleMs,
			what: `uv ${version} (${describeUrl(file.url)})`,
			onProgress: (received, total) => this.listener({ kind: "progress", received, total: total || file.size }),
		});
		this.line(`sha256 checked: ${file.sha256}`);
		const exe = this.options.platform === "win32" ? "uv.exe" : "uv";
		const binary = await readZipMember(wheel, `uv-${version}.data/scripts/${exe}`);
		await fs.mkdir(path.dirname(this.paths.uv), { recursive: true });
		await fs.writeFile(`${this.paths.uv}.part`, binary, { mode: 0o755 });
		await fs.rename(`${this.paths.uv}.part`, this.paths.uv);
		await fs.rm(wheel, { force: true });
		this.line(`uv ${version} is at ${this.paths.uv}`);
	}

	/** Step 2: a managed CPython (uv checks its archive's sha256), and where it is, relative to the install. */
	private async installPython(reinstall: boolean): Promise<string> {
		const request = this.options.python ?? installer.python;
		this.begin(`Installing Python ${request}`);
		const downloads = this.options.pythonDownloads ? ["--python-downloads-json-url", this.options.pythonDownloads] : [];
		const registry = this.options.platform === "win32" ? ["--no-registry"] : [];
		await this.must(this.paths.uv, ["python", "install", request, "--no-bin", ...registry, ...downloads, ...(reinstall ? ["--reinstall"] : [])]);
		const found = await this.must(this.paths.uv, ["python", "find", "--managed-python", "--no-python-downloads", request]);
		// uv names the minor version's link, which points at an absolute path; keep the real folder.
		const python = await fs.realpath(found.stdout.trim().split("\n").pop() ?? "");
		const relative = path.relative(this.paths.root, python);
		if (relative.startsWith("..") || path.isAbsolute(relative)) throw new StepFailed(`uv installed Python at ${python}, outside ${this.paths.root}.`);
		return python;
	}

	/** The last steps of install, repair and upgrade: check the version, record the install, build the model. */
	private async finish(python: string): Promise<SetupOutcome> {
		this.begin("Checking the installed sidecar");
		const answer = await this.must(python, [...SIDECAR_ENTRY, "--version"], 120_000);
		const version = answer.stdout.trim().replace(/^ora\s+/, "");
		this.line(`ora ${version}`);
		const refusal = versionRefusal(version, this.options.pluginVersion);
		if (refusal) throw new StepFailed(refusal);
		// Recorded before the model build: a failed build keeps the installed sidecar usable.
		await fs.writeFile(this.paths.marker, JSON.stringify({ python: path.relative(this.paths.root, python), version }, null, 2) + "\n", "utf8");
		this.begin("Building the embedding model");
		try {
			await this.must(python, [...SIDECAR_ENTRY, "models", "build"], 30 * 60_000);
		} catch (err) {
			if (this.signal().aborted) throw err;
			const why = err instanceof Error ? err.message : String(err);
			throw new StepFailed(`The sidecar ${version} is installed, but the embedding model could not be built: ${why} Repair builds it again.`);
		}
		return { ok: true, version };
	}

	private pipInstall(python: string, source: PackageSource): string[] {
		const spec = source.kind === "wheel" ? source.path : sidecarRequirement(this.options.pluginVersion);
		// The managed Python is marked externally managed by uv; it is this install's own, so it is ours to change.
		return ["pip", "install", "--python", python, "--break-system-packages", "--index-url", `${this.index()}/simple`, spec];
	}

	private index(): string {
		return (this.options.index ?? installer.index).replace(/\/+$/, "");
	}

	private wheelTag(): string {
		const key = `${this.options.platform}-${this.options.arch}${this.options.musl ? "-musl" : ""}`;
		const tag = (installer.uv.wheels as Record<string, string>)[key];
		if (!tag) throw new StepFailed(`No uv build is known for ${key}: install the sidecar yourself (docs/install.md) and set the ora command.`);
		return tag;
	}

	/** Refuses a wheel of another release series before anything is changed. */
	private checkWheel(source: PackageSource): void {
		if (source.kind !== "wheel") return;
		const name = path.basename(source.path);
		if (!name.endsWith(".whl") || !name.startsWith(SIDECAR_PACKAGE.replace(/-/g, "_")) || !existsSync(source.path)) {
			throw new StepFailed(`${source.path} is not a wheel file (ora_vault_sidecar-VERSION-py3-none-any.whl).`);
		}
		const version = name.split("-")[1] ?? "";
		const refusal = parseVersion(version) ? versionRefusal(version, this.options.pluginVersion) : null;
		if (refusal) throw new StepFailed(refusal);
	}

	private signal(): AbortSignal {
		return (this.abort ??= new AbortController()).signal;
	}

	private env(): NodeJS.ProcessEnv {
		return managedEnv(this.paths, this.options.env);
	}

	private async operation(total: number, listener: SetupListener | undefined, body: () => Promise<SetupOutcome>): Promise<SetupOutcome> {
		// Checked and claimed before the first await: a second call, from this installer or another
		// of this process on the same folder, finds it taken whatever the timing.
		const lockFile = this.lockFile();
		if (this.busy || heldLocks().has(lockFile)) return { ok: false, message: BUSY };
		this.busy = true;
		heldLocks().add(lockFile);
		this.abort = new AbortController();
		try {
			let holder: number | null;
			try {
				holder = await this.lock();
			} catch (err) {
				const why = err instanceof Error ? err.message : String(err);
				return { ok: false, message: `The set-up could not start: ${this.paths.root} could not be written (${why}). Check the folder's permissions and free disk space, then try again.` };
			}
			if (holder !== null) return { ok: false, message: `Obsidian (process ${holder}) is setting up the sidecar of this computer for another vault: wait for it to finish, then try again.` };
			const outcome = await this.locked(total, listener, body);
			// Removed while the lock is still ours in this process: no one can have taken it over.
			await fs.rm(lockFile, { force: true });
			return outcome;
		} finally {
			heldLocks().delete(lockFile);
			this.abort = null;
			this.busy = false;
		}
	}

	/** An operation's body, the lock held: its outcome and its log. */
	private async locked(total: number, listener: SetupListener | undefined, body: () => Promise<SetupOutcome>): Promise<SetupOutcome> {
		const signal = this.signal();
		this.listener = listener ?? (() => undefined);
		this.log = [];
		this.step = 0;
		this.title = "";
		this.total = total;
		let outcome: SetupOutcome;
		try {
			outcome = await body();
			this.line(outcome.ok && outcome.version ? `Done: ora ${outcome.version} in ${this.paths.root}` : "Done.");
		} catch (err) {
			if (signal.aborted) {
				await this.removePartials();
				outcome = { ok: false, cancelled: true, message: `Cancelled. What was finished is kept; Install, Repair or Remove go on from here.` };
			} else if (err instanceof StepFailed || err instanceof DownloadError) {
				outcome = { ok: false, message: err.message };
			} else {
				// A bare error (a file that cannot be written, a damaged archive): said with its step.
				const why = (err instanceof Error ? err.message : String(err)).replace(/\.$/, "");
				const where = this.title ? `${this.title} failed` : "The set-up failed";
				outcome = { ok: false, message: `${where}: ${why}. Try again; if it fails the same way, the full log is in ${this.paths.log}.` };
			}
			this.line(`Failed: ${outcome.message}`);
		}
		await this.saveLog();
		return outcome;
	}

	private lockFile(): string {
		return path.resolve(this.paths.root, "setup.lock");
	}

	/**
	 * Takes the install's lock: every vault's plugin shares it, and two set-ups at once would
	 * write the same files. Null when taken, else the live process that holds it. A lock left by
	 * a process that is gone (Obsidian quit mid-install) is taken over, and so is one that names
	 * this process: operation() has just checked that no operation of this process holds it.
	 */
	private async lock(): Promise<number | null> {
		await fs.mkdir(this.paths.root, { recursive: true });
		for (let attempt = 0; attempt < 2; attempt++) {
			try {
				await fs.writeFile(this.lockFile(), String(process.pid), { flag: "wx" });
				return null;
			} catch {
				const holder = Number((await fs.readFile(this.lockFile(), "utf8").catch(() => "")).trim());
				if (holder > 0 && holder !== process.pid && alive(holder)) return holder;
				await fs.rm(this.lockFile(), { force: true });
			}
		}
		return null; // taken over twice in a row: another set-up races for it; go on rather than block
	}

	/** After a cancel: downloads in progress and uv's half-extracted Python. */
	private async removePartials(): Promise<void> {
		for (const item of [this.paths.downloads, `${this.paths.uv}.part`, path.join(this.paths.python, ".temp")]) {
			await fs.rm(item, { recursive: true, force: true });
		}
		this.line("Removed the partial downloads");
	}

	private begin(title: string): void {
		if (this.signal().aborted) throw new StepFailed("cancelled");
		this.step += 1;
		this.title = title;
		this.log.push(`== ${this.step}/${this.total} ${title}`);
		this.listener({ kind: "step", index: this.step, total: this.total, title });
	}

	private line(line: string): void {
		this.log.push(line);
		this.listener({ kind: "line", line });
	}

	/** Runs a step's program; a non-zero exit fails the step with the last lines of its output. */
	private async must(command: string, args: string[], timeoutMs = UV_TIMEOUT_MS): Promise<RunResult> {
		this.line(`$ ${[command, ...args.map((arg) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) ? redactUrl(arg) : arg))].join(" ")}`);
		const result = await this.options.run(command, args, {
			env: this.env(),
			cwd: this.paths.root,
			onLine: (line) => this.line(line),
			timeoutMs,
			signal: this.signal(),
		});
		if (result.code === 0) return result;
		const why = result.error ?? `exit ${result.code}`;
		const tail = (result.stderr || result.stdout).trim().split("\n").slice(-3).join(" ");
		const shown = command === this.paths.uv ? ["uv", ...args.slice(0, 2)] : [path.basename(command), ...args.slice(0, 1)];
		throw new StepFailed(`${shown.join(" ")} failed (${why})${tail ? `: ${tail}` : ""}. The full log is in ${this.paths.log}.`);
	}

	private async saveLog(): Promise<void> {
		try {
			await fs.mkdir(this.paths.root, { recursive: true });
			await fs.writeFile(this.paths.log, this.log.join("\n") + "\n", "utf8");
		} catch {
			// the log on screen is the one that matters; an unwritable folder is reported by the steps
		}
	}
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === "EPERM"; // there, but another user's
	}
}
