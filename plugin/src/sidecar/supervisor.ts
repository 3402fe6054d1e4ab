import { SidecarError, type SidecarClient } from "../api/client";
import { localProcesses, runsOraServe, type ProcessInfo, type Processes } from "./processes";
import { onWindows, sendSignal, taskkill, type TreeKill } from "./signals";

/** The bits of a child process the supervisor needs (Node's ChildProcess fits). */
export interface ChildHandle {
	readonly pid?: number;
	kill(signal?: NodeJS.Signals): boolean;
	on(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
	on(event: "error", listener: (err: Error) => void): unknown;
	stderr: { on(event: "data", listener: (chunk: Buffer | string) => void): unknown } | null;
}

/** DATA/server.json, written by `ora serve` once it listens (docs/http-api.md). */
export interface ServerRecord {
	pid: number;
	port: number;
	vault: string;
	parent_pid: number | null;
}

export interface SupervisorOptions {
	client: SidecarClient;
	autoStart: boolean;
	/** The Port setting: 0 means automatic (the sidecar picks a free port and records it). */
	port: number;
	/** This vault's absolute path; a sidecar reporting another vault is refused. */
	vault: string;
	/** Whether two vault paths name the same folder (the desktop resolves symlinks); default: equal. */
	sameVault?: (a: string, b: string) => boolean;
	/** This process's id: passed to `ora serve --parent-pid`, and how a sidecar we started is known. */
	ownPid: number;
	/** Starts `ora serve`; only called when no sidecar of this vault answers and autoStart is on. */
	spawn: () => ChildHandle;
	/** Reads DATA/server.json; null when absent or unreadable. */
	readRecord: () => Promise<ServerRecord | null>;
	/** Reads DATA/token; called once the sidecar is healthy (it writes the token on first run). */
	readToken: () => Promise<string>;
	onToken: (token: string) => void;
	/** Null when a sidecar of this version is supported, else why not (setup/compat.ts). */
	refuseVersion?: (version: string) => string | null;
	/** Ends a sidecar this plugin started before a reload (no child handle); default process.kill. */
	kill?: (pid: number) => void;
	/** Whether process `pid` still runs; default process.kill(pid, 0). */
	alive?: (pid: number) => boolean;
	/** What Ora can see of other processes (who holds a port, what it runs); default: /proc on Linux. */
	processes?: Processes;
	/** Sends a signal to a process this supervisor verified; default process.kill. */
	signal?: (pid: number, signal: NodeJS.Signals) => void;
	/** Ends a process and its children on Windows (default: taskkill /T /F). */
	treeKill?: TreeKill;
	/**
	 * Resolves once a sidecar of this vault that an earlier session of the plugin (disabled, then
	 * enabled again) is stopping has exited: awaited before looking for one to attach to.
	 */
	handover?: () => Promise<void>;
	/** How long stopped() waits for a stopped sidecar to exit (an adopted one's pid is polled no longer); default 30 s. */
	stopWaitMs?: number;
	/** How long a spawned sidecar may take to answer /v1/health (it loads models first). */
	startTimeoutMs?: number;
	pollMs?: number;
}

/** Why there is no sidecar: each points the user to a different fix ("hung": it runs but does not answer). */
export type Problem = "missing-command" | "other-vault" | "auto-start-off" | "incompatible" | "failed" | "hung";

export type Outcome =
	| { ok: true; spawned: boolean; owned: boolean; version: string; port: number }
	| { ok: false; reason: string; problem: Problem };

export type Probe = { state: "ok"; version: string } | { state: "hung" } | { state: "down" };

/** A sidecar that runs but does not answer, in words for the user, and whether a restart can end it. */
export interface Unresponsive {
	reason: string;
	canRestart: boolean;
}

/** Who holds the port: this vault's `ora serve` (verified), another process, or none Ora can see. */
type Holder = { kind: "sidecar"; info: ProcessInfo } | { kind: "other"; pid: number; info: ProcessInfo | null } | { kind: "unknown" };

const KEEPS_CHECKING = "Ora keeps checking and reconnects when it answers again.";

/** Stderr lines kept from a spawned sidecar, to explain why it stopped (and for "show log"). */
const STDERR_LINES = 20;
/** How long stopped() waits for a child it had to kill (SIGKILL is not refused). */
const KILL_WAIT_MS = 5_000;

/** How a spawned child ended: an exit code, or the signal that killed it (out of memory, a crash). */
export interface ChildExit {
	code: number | null;
	signal: NodeJS.Signals | null;
}

/** A child this supervisor spawned, and how it ended, learnt from its exit event as it happens. */
interface Spawned {
	handle: ChildHandle;
	exit: ChildExit | null;
	/** Resolves when it has exited (made at spawn: an exit before stop() is not missed). */
	exited: Promise<void>;
}

/**
 * Makes sure this vault's sidecar answers, in this order: the one DATA/server.json records (if it
 * answers and serves this vault), the one on a fixed port, else (when allowed) a new
 * `ora serve --parent-pid <ours>`, whose port is read from its record when the Port setting is 0.
 * A sidecar serving another vault is refused in plain words. `stop()` ends only a sidecar this
 * plugin started: its child, or one recorded with our pid as its parent (a plugin reload).
 */
export class SidecarSupervisor {
	private child: Spawned | null = null;
	private adoptedPid: number | null = null;
	private stderr: string[] = [];
	/** Set when the child could not be started at all (e.g. ENOENT: the command is not there). */
	private spawnError: string | null = null;
	/** Resolves once the process the last stop() ended has exited. */
	private exited: Promise<void> = Promise.resolve();
	/** Kills the child the last stop() signalled, if it outlives stopped()'s wait (null: nothing to kill). */
	private escalate: (() => void) | null = null;
	private defaultProcesses: Processes | null = null;
	private readonly exitListeners = new Set<(reason: string) => void>();

	constructor(private readonly options: SupervisorOptions) {}

	/** Whether a sidecar this plugin started is running (and `stop()` will end it). */
	get owned(): boolean {
		return this.childRuns() !== null || this.adoptedPid !== null;
	}

	/**
	 * Calls `listener` when a child this supervisor started exits without being asked to (killed
	 * by a signal, out of memory, crashed), with why in words: the exit code or signal and the
	 * last lines of its stderr. Returns how to stop listening.
	 */
	onExit(listener: (reason: string) => void): () => void {
		this.exitListeners.add(listener);
		return () => this.exitListeners.delete(listener);
	}

	/** The last lines the spawned sidecar wrote to stderr, newest last. */
	get logTail(): string[] {
		return [...this.stderr];
	}

	async ensureRunning(): Promise<Outcome> {
		// A sidecar an unloading session is stopping still answers: attaching to it would lose it.
		await this.options.handover?.();
		const recorded = await this.recorded();
		if (recorded !== null) return recorded;
		if (this.options.port !== 0) {
			this.moveTo(this.options.port);
			const probe = await this.probe();
			if (probe.state === "ok") return this.attach(probe.version, null, false);
			// A second sidecar could not listen there anyway: say what holds the port instead.
			if (probe.state === "hung") return { ok: false, problem: "hung", reason: `The sidecar at ${this.options.client.baseUrl} is running but does not answer.` };
		}
		if (!this.options.autoStart) {
			const where = this.options.port === 0 ? "for this vault" : `at ${this.options.client.baseUrl}`;
			return { ok: false, problem: "auto-start-off", reason: `No sidecar is running ${where}, and starting one automatically is off in Ora's settings.` };
		}
		const failed = this.start();
		if (failed) return failed;
		const deadline = Date.now() + this.timeout();
		const version = await this.waitHealthy(deadline);
		if (version === null) {
			const reason = this.exitReason() ?? `ora serve did not answer within ${this.timeout() / 1000} s.`;
			const problem = this.spawnError?.includes("ENOENT") ? "missing-command" : "failed";
			const holder = this.lostIndexTo();
			this.stop();
			// Started at the same moment as another (a second window of this vault): attach to that one.
			const other = holder === undefined ? null : await this.holderOfIndex(holder, deadline);
			return other ?? { ok: false, problem, reason };
		}
		return this.attach(version, null, true);
	}

	/**
	 * Checks again that the sidecar at the client's address is this vault's, as when it was first
	 * attached (its token accepted, its status naming this vault): after the event stream dropped,
	 * the port may be another vault's sidecar's now (ours was killed and the port given again).
	 * `version`: what a health probe just answered, so it is not asked again.
	 */
	async recheck(version?: string): Promise<Outcome> {
		if (version !== undefined) return this.attach(version, null, false);
		const probe = await this.probe();
		if (probe.state === "hung") return { ok: false, problem: "hung", reason: `The sidecar at ${this.options.client.baseUrl} is running but does not answer.` };
		if (probe.state === "down") return { ok: false, problem: "failed", reason: `No sidecar answers at ${this.options.client.baseUrl}.` };
		return this.attach(probe.version, null, false);
	}

	/**
	 * When the sidecar at the client's address answers but this plugin did not start it (another
	 * Obsidian window of this vault did, or someone ran `ora serve` in a terminal): why a restart
	 * leaves it running, in words, naming its pid. Null when it is ours, or nothing answers.
	 */
	async startedElsewhere(): Promise<string | null> {
		if (this.owned) return null;
		let pid: number;
		try {
			pid = (await this.options.client.status()).pid;
		} catch {
			return null; // nothing to leave alone: a restart starts this vault's sidecar
		}
		const record = await this.readRecord();
		const recorded = record !== null && record.pid === pid && this.same(record.vault) ? record : null;
		const left = `The sidecar of this vault (pid ${pid})`;
		if (recorded === null) return `${left} was started elsewhere, so Ora did not restart it. New settings apply when it is restarted where it was started.`;
		// The record names the process that started it with --parent-pid: an Obsidian window's plugin.
		if (recorded.parent_pid !== null) {
			return `${left} was started by another Obsidian window, so Ora did not restart it. New settings apply when it is restarted there, or once that window is closed.`;
		}
		return `${left} was started outside Obsidian (ora serve in a terminal, perhaps), so Ora did not restart it. New settings apply when you restart it there.`;
	}

	/**
	 * The pid of the process holding the index when the child stopped because another process
	 * writes it (its last words say so): null when they do not name it; undefined when the child
	 * did not stop for that.
	 */
	private lostIndexTo(): number | null | undefined {
		if (this.child?.exit === null || this.child?.exit === undefined) return undefined;
		const said = /is being written by (?:process (\d+)|another process)/.exec(this.stderr.join("\n"));
		if (said === null) return undefined;
		return said[1] === undefined ? null : Number(said[1]);
	}

	/**
	 * Our sidecar could not take the index: another process of this vault writes it. A sidecar
	 * started at the same moment (another Obsidian window's, or `ora serve` in a terminal) records
	 * itself once it listens: then it is attached to like any recorded one. Null when none answers
	 * before `deadline`, when `holder` is gone, or when it is no server (`ora watch`, `ora index`:
	 * their writer lock is the error to show).
	 */
	private async holderOfIndex(holder: number | null, deadline: number): Promise<Outcome | null> {
		const alive = this.options.alive ?? isAlive;
		if (holder !== null) {
			const info = await this.processes().info(holder);
			const serves = info === null || runsOraServe(info);
			if (!serves) return null;
		}
		for (;;) {
			const found = await this.recorded();
			// A recorded sidecar that did not report its status yet is asked again.
			if (found !== null && (found.ok || found.problem !== "failed")) return found;
			if ((holder !== null && !alive(holder)) || Date.now() >= deadline) return null;
			await new Promise((resolve) => window.setTimeout(resolve, this.options.pollMs ?? 250));
		}
	}

	/** The version the sidecar at the client's address reports, or null when nothing answers. */
	async healthy(): Promise<string | null> {
		const probe = await this.probe();
		return probe.state === "ok" ? probe.version : null;
	}

	/**
	 * Asks the sidecar at the client's address for its health: "ok" with its version; "hung" when
	 * something took the connection but did not answer within the health timeout (a process alive
	 * but stuck: stopped, deadlocked, in a long pause); "down" when nothing answered at all.
	 */
	async probe(): Promise<Probe> {
		try {
			const health = await this.options.client.health();
			return health.status === "ok" ? { state: "ok", version: health.version } : { state: "down" };
		} catch (err) {
			return { state: err instanceof SidecarError && err.timedOut ? "hung" : "down" };
		}
	}

	/**
	 * Why the sidecar at the client's address does not answer, for the status bar: one this plugin
	 * started can always be restarted; one started elsewhere only when it is verifiably this vault's
	 * `ora serve` (see endUnresponsive), otherwise the user is told which process holds the port.
	 */
	async unresponsive(): Promise<Unresponsive> {
		const own = this.childRuns()?.pid ?? this.adoptedPid;
		if (own !== null && own !== undefined) {
			return { reason: `The sidecar Ora started (pid ${own}) is running but does not answer (it may be stuck). ${KEEPS_CHECKING}`, canRestart: true };
		}
		const port = Number(new URL(this.options.client.baseUrl).port);
		const record = await this.readRecord();
		const holder = await this.identify(port, record);
		switch (holder.kind) {
			case "sidecar": {
				const why = holder.info.state === "stopped" ? ": it is stopped (suspended, for example with Ctrl+Z in its terminal)" : " (it may be stuck)";
				return {
					reason: `This vault's sidecar (ora serve, pid ${holder.info.pid}, started outside Obsidian) is running but does not answer${why}. ${KEEPS_CHECKING} Restarting stops it and starts Ora's own.`,
					canRestart: true,
				};
			}
			case "other": {
				const what = holder.info ? ` (${holder.info.command})` : "";
				return {
					reason: `Port ${port} is held by process ${holder.pid}${what}, which takes connections but does not answer. Ora cannot verify that it is this vault's sidecar, so it will not stop it: stop it yourself (for example: kill ${holder.pid}). ${KEEPS_CHECKING}`,
					canRestart: false,
				};
			}
			case "unknown": {
				const named = record !== null && this.same(record.vault) ? ` (the sidecar record names process ${record.pid})` : "";
				return {
					reason: `Something on port ${port} takes connections but does not answer${named}, and Ora cannot see which process it is. Find it with "lsof -nP -iTCP:${port} -sTCP:LISTEN" (macOS, Linux) or "netstat -ano | findstr :${port}" (Windows), and stop it. ${KEEPS_CHECKING}`,
					canRestart: false,
				};
			}
		}
	}

	/**
	 * Ends the sidecar that does not answer when it is verifiably this vault's `ora serve` (DATA/
	 * server.json names it, it listens on the recorded port, its command is `ora serve`), even one
	 * started outside Obsidian: only ever on the user's restart. A stopped one is continued first so
	 * that SIGTERM lands; one still running after `waitMs` (the same process: a reused pid is not)
	 * is killed. Whether it was ended; a process Ora cannot verify is left alone.
	 */
	async endUnresponsive(waitMs: number): Promise<boolean> {
		const record = await this.readRecord();
		if (record === null) return false;
		const holder = await this.identify(record.port, record);
		if (holder.kind !== "sidecar") return false;
		const { pid, startedAt, state } = holder.info;
		const send = this.options.signal ?? ((p: number, s: NodeJS.Signals) => sendSignal(p, s, this.treeKill()));
		try {
			if (state === "stopped") send(pid, "SIGCONT");
			send(pid, "SIGTERM");
			if (await this.endsWithin(pid, startedAt, waitMs)) return true;
			send(pid, "SIGKILL"); // still the process verified above: endsWithin compared its start time
		} catch {
			return true; // it was gone before the signal
		}
		return this.endsWithin(pid, startedAt, KILL_WAIT_MS);
	}

	/** Polls until process `pid` (started at `startedAt`) is gone; false if it still runs after `ms`. */
	private async endsWithin(pid: number, startedAt: string, ms: number): Promise<boolean> {
		const until = Date.now() + ms;
		for (;;) {
			const info = await this.processes().info(pid);
			if (info === null || info.state === "zombie" || info.startedAt !== startedAt) return true;
			if (Date.now() >= until) return false;
			await new Promise((resolve) => window.setTimeout(resolve, this.options.pollMs ?? 100));
		}
	}

	/** Which process listens on `port`, verified as this vault's `ora serve` only through `record`. */
	private async identify(port: number, record: ServerRecord | null): Promise<Holder> {
		const pid = await this.processes().listener(port, record?.pid);
		if (pid === null) return { kind: "unknown" };
		const info = await this.processes().info(pid);
		const verified = info !== null && record !== null && record.pid === pid && record.port === port && this.same(record.vault) && runsOraServe(info);
		return verified ? { kind: "sidecar", info } : { kind: "other", pid, info };
	}

	private processes(): Processes {
		return this.options.processes ?? (this.defaultProcesses ??= localProcesses());
	}

	stop(): void {
		this.escalate = null;
		const child = this.childRuns();
		if (child !== null && this.child !== null) {
			this.exited = this.child.exited;
			this.end(child, "SIGTERM");
			// Our own child only: an adopted pid may have been reused by another process since.
			this.escalate = () => this.end(child, "SIGKILL");
		} else if (this.adoptedPid !== null) {
			const pid = this.adoptedPid;
			try {
				(this.options.kill ?? ((p) => sendSignal(p, "SIGTERM", this.treeKill())))(pid);
				this.exited = this.gone(pid);
			} catch {
				// already gone
			}
		}
		this.child = null;
		this.adoptedPid = null;
	}

	/**
	 * Ends our own child: on POSIX by signal (a stopped (SIGSTOP) child would hold SIGTERM pending
	 * until continued, so it is continued), on Windows with its whole tree (the ora.exe launcher's
	 * Python child holds the index; Node throws for SIGCONT there).
	 */
	private end(child: ChildHandle, signal: "SIGTERM" | "SIGKILL"): void {
		if (onWindows()) {
			if (child.pid !== undefined) this.treeKill()(child.pid);
			return;
		}
		try {
			child.kill(signal);
			if (signal === "SIGTERM") child.kill("SIGCONT");
		} catch {
			// gone meanwhile
		}
	}

	private treeKill(): TreeKill {
		return this.options.treeKill ?? taskkill;
	}

	/** The child this supervisor started, while it runs. */
	private childRuns(): ChildHandle | null {
		return this.child !== null && this.child.exit === null ? this.child.handle : null;
	}

	/**
	 * Resolves once the sidecar the last stop() ended has exited (and so released the index's
	 * writer lock, which a sidecar started next needs), or after `timeoutMs`; a child of ours still
	 * running then is killed (SIGKILL) and waited for a few seconds more.
	 */
	async stopped(timeoutMs = this.stopWaitMs()): Promise<void> {
		if (await this.exitsWithin(timeoutMs)) return;
		// A child that ignores SIGTERM this long would hold the index's writer lock, and the next
		// start would adopt it instead of starting anew: kill it (the index is crash-safe).
		const escalate = this.escalate;
		this.escalate = null;
		if (escalate === null) return;
		escalate();
		await this.exitsWithin(KILL_WAIT_MS);
	}

	private exitsWithin(ms: number): Promise<boolean> {
		let timer = 0;
		const late = new Promise<boolean>((resolve) => (timer = window.setTimeout(() => resolve(false), ms)));
		return Promise.race([this.exited.then(() => true), late]).finally(() => window.clearTimeout(timer));
	}

	/** Polls until `pid` is gone, or for as long as stopped() waits: a process that ignores SIGTERM (or a reused pid) is not polled forever. */
	private async gone(pid: number): Promise<void> {
		const alive = this.options.alive ?? isAlive;
		const until = Date.now() + this.stopWaitMs();
		while (Date.now() < until && alive(pid)) await new Promise((resolve) => window.setTimeout(resolve, this.options.pollMs ?? 250));
	}

	private stopWaitMs(): number {
		return this.options.stopWaitMs ?? 30_000;
	}

	/** The recorded sidecar of this vault, when it answers and checks out; else null (go on). */
	private async recorded(): Promise<Outcome | null> {
		const record = await this.readRecord();
		if (record === null || !this.same(record.vault)) return null;
		if (this.options.port !== 0 && record.port !== this.options.port) return null;
		this.moveTo(record.port);
		const probe = await this.probe();
		if (probe.state === "hung") return this.hungRecorded(record);
		if (probe.state === "down") return null; // a record left by a sidecar that was killed
		const version = probe.version;
		const ours = record.parent_pid === this.options.ownPid ? record.pid : null;
		const outcome = await this.attach(version, ours, false);
		return outcome.ok || outcome.problem !== "other-vault" ? outcome : null;
	}

	/**
	 * The recorded sidecar takes connections but does not answer: starting another would only fail
	 * on its index lock, so say so. One this Obsidian started (a plugin reload) is adopted while it
	 * runs, so that a restart ends it.
	 */
	private hungRecorded(record: ServerRecord): Outcome {
		if (record.parent_pid === this.options.ownPid && (this.options.alive ?? isAlive)(record.pid)) this.adoptedPid = record.pid;
		return { ok: false, problem: "hung", reason: `The sidecar of this vault (pid ${record.pid}) is running but does not answer.` };
	}

	/** Checks the sidecar's version, loads the token and checks that the sidecar serves this vault. */
	private async attach(version: string, adopted: number | null, spawned: boolean): Promise<Outcome> {
		const refusal = this.options.refuseVersion?.(version) ?? null;
		if (refusal !== null) {
			if (spawned) this.stop();
			return { ok: false, problem: "incompatible", reason: refusal };
		}
		const where = this.options.client.baseUrl;
		const fix = this.options.port === 0 ? "" : " Set Port to 0 (automatic) in Ora's settings so that each vault gets its own sidecar.";
		try {
			this.options.onToken((await this.options.readToken()).trim());
		} catch (err) {
			if (!spawned) {
				// Something answers, yet this vault's sidecar never wrote its token.
				return { ok: false, problem: "other-vault", reason: `An Ora sidecar answers at ${where}, but this vault has no sidecar token yet: that sidecar belongs to another vault.${fix}` };
			}
			return { ok: false, problem: "failed", reason: `Cannot read the sidecar token: ${message(err)}` };
		}
		let served: { vault: string; pid: number };
		try {
			served = await this.options.client.status();
		} catch (err) {
			if (err instanceof SidecarError && err.status === 401) {
				return { ok: false, problem: "other-vault", reason: `The Ora sidecar at ${where} belongs to another vault (it does not accept this vault's token).${fix}` };
			}
			return { ok: false, problem: "failed", reason: `The sidecar at ${where} did not report its status: ${message(err)}` };
		}
		if (!this.same(served.vault)) {
			return { ok: false, problem: "other-vault", reason: `The Ora sidecar at ${where} serves another vault (${served.vault}), not this one.${fix}` };
		}
		if (adopted !== null && served.pid === adopted) this.adoptedPid = adopted;
		const port = Number(new URL(where).port);
		return { ok: true, spawned, owned: spawned || this.adoptedPid !== null, version, port };
	}

	/** Spawns the child; returns a failed outcome if it could not even be started. */
	private start(): Outcome | null {
		this.stderr = [];
		this.spawnError = null;
		try {
			const handle = this.options.spawn();
			let exited = (): void => undefined;
			const spawned: Spawned = { handle, exit: null, exited: new Promise((resolve) => (exited = resolve)) };
			handle.stderr?.on("data", (chunk) => this.keepStderr(String(chunk)));
			handle.on("error", (err) => (this.spawnError = err.message));
			handle.on("exit", (code, signal) => {
				spawned.exit = { code, signal };
				exited();
				// Not asked to stop (stop() lets go of it first): say so now, not at the next health check.
				if (this.child === spawned) {
					const reason = this.exitReason();
					if (reason !== null) for (const listener of this.exitListeners) listener(reason);
				}
			});
			this.child = spawned;
			return null;
		} catch (err) {
			const reason = message(err);
			return { ok: false, problem: reason.includes("ENOENT") ? "missing-command" : "failed", reason: `Cannot start ora: ${reason}` };
		}
	}

	private async waitHealthy(deadline: number): Promise<string | null> {
		const poll = this.options.pollMs ?? 250;
		while (Date.now() < deadline) {
			if (this.exitReason() !== null) return null;
			if (await this.childListens()) {
				const version = await this.healthy();
				if (version !== null) return version;
			}
			await new Promise((resolve) => window.setTimeout(resolve, poll));
		}
		return null;
	}

	/** With a fixed port, always; with port 0, once the child's record names its port. */
	private async childListens(): Promise<boolean> {
		if (this.options.port !== 0) {
			this.moveTo(this.options.port);
			return true;
		}
		const record = await this.readRecord();
		if (record === null || record.pid !== this.child?.handle.pid) return false;
		this.moveTo(record.port);
		return true;
	}

	private async readRecord(): Promise<ServerRecord | null> {
		try {
			return await this.options.readRecord();
		} catch {
			return null;
		}
	}

	private moveTo(port: number): void {
		this.options.client.moveTo(`http://127.0.0.1:${port}`);
	}

	private same(vault: string): boolean {
		const same = this.options.sameVault ?? ((a, b) => trimSlash(a) === trimSlash(b));
		return same(vault, this.options.vault);
	}

	/** Why the child is gone, or null while it runs. */
	private exitReason(): string | null {
		if (this.spawnError !== null) return `Cannot start ora: ${this.spawnError}`;
		const exit = this.child?.exit ?? null;
		if (exit === null) return null;
		const tail = this.stderr.join("\n").trim();
		return `ora serve stopped (${exitText(exit)})${tail ? `: ${tail}` : ""}`;
	}

	private keepStderr(text: string): void {
		this.stderr.push(...text.split("\n").filter((l) => l.trim() !== ""));
		this.stderr = this.stderr.slice(-STDERR_LINES);
	}

	private timeout(): number {
		return this.options.startTimeoutMs ?? 120_000;
	}
}

/** DATA/server.json's text as a record, or null when it is not one. */
export function parseRecord(text: string): ServerRecord | null {
	let doc: unknown;
	try {
		doc = JSON.parse(text) as unknown;
	} catch {
		return null;
	}
	if (typeof doc !== "object" || doc === null) return null;
	const r = doc as Record<string, unknown>;
	if (typeof r.pid !== "number" || typeof r.port !== "number" || typeof r.vault !== "string") return null;
	return { pid: r.pid, port: r.port, vault: r.vault, parent_pid: typeof r.parent_pid === "number" ? r.parent_pid : null };
}

/** "exit 2", or "killed by SIGKILL" with what that signal usually means. */
export function exitText(exit: ChildExit): string {
	if (exit.signal === null) return `exit ${exit.code ?? "unknown"}`;
	const why: Partial<Record<NodeJS.Signals, string>> = {
		SIGKILL: ", often the system ending it for lack of memory",
		SIGSEGV: ", a crash",
		SIGABRT: ", a crash",
		SIGBUS: ", a crash",
	};
	return `killed by ${exit.signal}${why[exit.signal] ?? ""}`;
}

function trimSlash(path: string): string {
	return path.replace(/[\\/]+$/, "");
}

function message(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}

/** Whether process `pid` exists (signal 0 probes without sending anything). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}
