import type { SidecarClient } from "../api/client";

/** The bits of a child process the supervisor needs (Node's ChildProcess fits). */
export interface ChildHandle {
	readonly exitCode: number | null;
	kill(signal?: NodeJS.Signals): boolean;
	on(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
	on(event: "error", listener: (err: Error) => void): unknown;
	stderr: { on(event: "data", listener: (chunk: Buffer | string) => void): unknown } | null;
}

export interface SupervisorOptions {
	client: SidecarClient;
	autoStart: boolean;
	/** Starts `ora serve`; only called when nothing answers and autoStart is on. */
	spawn: () => ChildHandle;
	/** Reads DATA/token; called once the sidecar is healthy (it writes the token on first run). */
	readToken: () => Promise<string>;
	onToken: (token: string) => void;
	/** How long a spawned sidecar may take to answer /v1/health (it loads models first). */
	startTimeoutMs?: number;
	pollMs?: number;
}

export type Outcome =
	| { ok: true; spawned: boolean; version: string }
	| { ok: false; reason: string };

/** Stderr lines kept from a spawned sidecar, to explain why it stopped. */
const STDERR_LINES = 20;

/**
 * Makes sure a sidecar answers: uses one already running on the port, else (when allowed) starts
 * `ora serve`, waits for its health check, then loads the token. `stop()` ends only a child it
 * started itself.
 */
export class SidecarSupervisor {
	private child: ChildHandle | null = null;
	private stderr: string[] = [];
	/** Set when the child could not be started at all (e.g. ENOENT: the command is not there). */
	private spawnError: string | null = null;

	constructor(private readonly options: SupervisorOptions) {}

	get spawned(): boolean {
		return this.child !== null && this.child.exitCode === null;
	}

	async ensureRunning(): Promise<Outcome> {
		let version = await this.healthy();
		let spawned = false;
		if (version === null) {
			if (!this.options.autoStart) {
				return { ok: false, reason: `No sidecar answers at ${this.options.client.baseUrl} and auto-start is off.` };
			}
			const started = this.start();
			if (started) return started;
			spawned = true;
			version = await this.waitHealthy();
			if (version === null) {
				const reason = this.exitReason() ?? `ora serve did not answer within ${this.timeout() / 1000} s.`;
				this.stop();
				return { ok: false, reason };
			}
		}
		try {
			this.options.onToken((await this.options.readToken()).trim());
		} catch (err) {
			return { ok: false, reason: `Cannot read the sidecar token: ${message(err)}` };
		}
		return { ok: true, spawned, version };
	}

	stop(): void {
		if (this.child && this.child.exitCode === null) this.child.kill("SIGTERM");
		this.child = null;
	}

	/** Spawns the child; returns a failed outcome if it could not even be started. */
	private start(): Outcome | null {
		this.stderr = [];
		this.spawnError = null;
		try {
			const child = this.options.spawn();
			child.stderr?.on("data", (chunk) => this.keepStderr(String(chunk)));
			child.on("error", (err) => (this.spawnError = err.message));
			this.child = child;
			return null;
		} catch (err) {
			return { ok: false, reason: `Cannot start ora: ${message(err)}` };
		}
	}

	private async waitHealthy(): Promise<string | null> {
		const deadline = Date.now() + this.timeout();
		const poll = this.options.pollMs ?? 250;
		while (Date.now() < deadline) {
			const version = await this.healthy();
			if (version !== null) return version;
			if (this.exitReason() !== null) return null;
			await new Promise((resolve) => window.setTimeout(resolve, poll));
		}
		return null;
	}

	private async healthy(): Promise<string | null> {
		try {
			const health = await this.options.client.health();
			return health.status === "ok" ? health.version : null;
		} catch {
			return null;
		}
	}

	/** Why the child is gone, or null while it runs. */
	private exitReason(): string | null {
		const child = this.child;
		if (this.spawnError !== null) return `Cannot start ora: ${this.spawnError}`;
		if (child === null || child.exitCode === null) return null;
		const tail = this.stderr.join("\n").trim();
		const code = child.exitCode === null ? "" : ` (exit ${child.exitCode})`;
		return `ora serve stopped${code}${tail ? `: ${tail}` : ""}`;
	}

	private keepStderr(text: string): void {
		this.stderr.push(...text.split("\n").filter((l) => l.trim() !== ""));
		this.stderr = this.stderr.slice(-STDERR_LINES);
	}

	private timeout(): number {
		return this.options.startTimeoutMs ?? 120_000;
	}
}

function message(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
