import type { SidecarClient } from "../api/client";
import type { StreamEvent } from "../api/types";
import { StatusModel } from "./status-model";
import type { SidecarSupervisor } from "./supervisor";

/** The event stream as the link drives it (EventStream fits). */
export interface StreamHandle {
	start(): void;
	stop(): void;
}

export interface StreamHandlers {
	onEvent: (event: StreamEvent) => void;
	onConnection: (connected: boolean) => void;
}

export interface RestartPolicy {
	/** First wait before starting a sidecar again; doubles per failure up to maxDelayMs. */
	minDelayMs: number;
	maxDelayMs: number;
	/** Failed restarts in a row after which the link stops and says so. */
	maxFailures: number;
	/** A connection that lasted this long resets the failure count. */
	stableMs: number;
	/** How long a restart waits for a sidecar that was not responding to exit before killing it. */
	hungStopWaitMs: number;
	/** How often a sidecar that runs but does not answer is asked again (it may only be paused). */
	hungPollMs: number;
}

export interface LinkOptions {
	supervisor: SidecarSupervisor;
	client: SidecarClient;
	/** Opens the event stream at the client's current address. */
	openStream: (handlers: StreamHandlers) => StreamHandle;
	onStatus: (model: StatusModel) => void;
	/** The sidecar answers and its state is known (lint open editors now). */
	onReady?: () => void;
	/** Every stream event, after the status model has taken it. */
	onEvent?: (event: StreamEvent) => void;
	restart?: Partial<RestartPolicy>;
}

const DEFAULT_POLICY: RestartPolicy = { minDelayMs: 1000, maxDelayMs: 30_000, maxFailures: 5, stableMs: 60_000, hungPollMs: 5_000, hungStopWaitMs: 5_000 };

/**
 * Keeps the plugin connected to its sidecar: starts it through the supervisor, follows its event
 * stream into the status model, and when the stream drops shows "reconnecting" at once, then
 * either reattaches (the sidecar still answers) or starts a new one with backoff; after
 * `maxFailures` failed restarts in a row it stops and says why. A sidecar that runs but does not
 * answer (its health check times out) is "not responding": not restarted behind the user's back
 * (it may only be paused, and it holds the index), but asked again until it answers, with restart
 * one click away.
 */
export class SidecarLink {
	private model = StatusModel.initial();
	private stream: StreamHandle | null = null;
	private timer: number | null = null;
	private failures = 0;
	private connectedAt = 0;
	/** The last stream closed before it ever opened (refused, e.g. a token that changed). */
	private refused = false;
	private running = false;
	/** A health check is under way (recover or suspect): another would only pile up behind a stuck sidecar. */
	private probing = false;
	/** The sidecar's token and vault have been checked since start (a sidecar found hung at start has not). */
	private attached = false;
	private readonly policy: RestartPolicy;

	constructor(private readonly options: LinkOptions) {
		this.policy = { ...DEFAULT_POLICY, ...options.restart };
		options.supervisor.onExit((reason) => this.onExit(reason));
	}

	get status(): StatusModel {
		return this.model;
	}

	/** Starts (or attaches to) the sidecar; resolves once it is up or has failed. */
	async start(): Promise<void> {
		this.running = true;
		this.failures = 0;
		this.attached = false;
		this.set(StatusModel.initial());
		const outcome = await this.options.supervisor.ensureRunning();
		if (!this.running) {
			this.options.supervisor.stop(); // stopped meanwhile: end what that start began
			return;
		}
		if (outcome.ok) await this.up();
		else if (outcome.problem === "hung") await this.hung();
		else this.set(this.model.failed(outcome.reason, outcome.problem));
	}

	/** Stops following the sidecar and stops it if this plugin started it. */
	stop(): void {
		this.running = false;
		this.clearTimer();
		this.stream?.stop();
		this.stream = null;
		this.options.supervisor.stop();
		this.set(this.model.stopped());
	}

	/**
	 * Stops, and resolves once a sidecar this plugin started has exited: until then it still
	 * answers (a start would attach to it, then lose it) and holds the index's writer lock (a new
	 * one would refuse to start). One that is not responding is ended even if it was started
	 * outside Obsidian, when it is verifiably this vault's `ora serve` (a restart asked for it).
	 */
	async shutdown(): Promise<void> {
		// A stuck sidecar will not exit on its own: kill it sooner than one finishing its work.
		const hung = this.model.view.phase === "not-responding";
		this.stop();
		if (hung) await this.options.supervisor.endUnresponsive(this.policy.hungStopWaitMs);
		await this.options.supervisor.stopped(hung ? this.policy.hungStopWaitMs : undefined);
	}

	/**
	 * Stops the sidecar and starts this vault's again (with the settings as they are now). A
	 * sidecar that answers but was started elsewhere (another Obsidian window, a terminal) is left
	 * running, and the reason, in words, is returned instead (see `startedElsewhere`).
	 */
	async restart(): Promise<string | null> {
		const elsewhere = await this.startedElsewhere();
		if (elsewhere !== null) return elsewhere;
		await this.shutdown();
		await this.start();
		return null;
	}

	/**
	 * Why a restart would leave the sidecar alone: it answers, and this plugin did not start it
	 * (another Obsidian window of this vault, or `ora serve` in a terminal); it is never stopped
	 * from here, so new settings reach it only when it is restarted where it was started. Null
	 * when a restart goes ahead: the sidecar is this plugin's, none is attached, or it does not
	 * answer (a verified `ora serve` that is not responding is ended on restart, as before).
	 */
	async startedElsewhere(): Promise<string | null> {
		if (!this.running || !this.attached || this.model.view.phase === "not-responding") return null;
		return this.options.supervisor.startedElsewhere();
	}

	/**
	 * A call timed out: when the sidecar does not answer its health check either, say "not
	 * responding" now rather than after the event stream's silence limit.
	 */
	async suspect(): Promise<void> {
		// Before attaching (start-up, recovery) the health checks under way already decide.
		if (!this.running || !this.attached || this.probing || this.timer !== null || this.model.view.phase === "not-responding") return;
		this.probing = true;
		const probe = await this.options.supervisor.probe().finally(() => (this.probing = false));
		if (!this.running || probe.state !== "hung" || this.timer !== null) return;
		this.stream?.stop();
		this.stream = null;
		this.connectedAt = 0;
		await this.hung();
	}

	/** Lets the status model take a count learnt elsewhere (the triage dialog). */
	note(event: StreamEvent): void {
		this.set(this.model.onEvent(event));
	}

	private async up(): Promise<void> {
		this.attached = true;
		this.set(this.model.connected());
		try {
			this.set(this.model.fromStatus(await this.options.client.status()));
		} catch {
			// the stream's first events tell the same
		}
		this.stream?.stop();
		const stream = this.options.openStream({
			onEvent: (event) => {
				this.set(this.model.onEvent(event));
				this.options.onEvent?.(event);
			},
			// A stream this link has let go of (stopped as stuck, or replaced) no longer speaks for the sidecar.
			onConnection: (connected) => {
				if (this.stream === stream) this.onConnection(connected);
			},
		});
		this.stream = stream;
		stream.start();
		this.options.onReady?.();
	}

	private onConnection(connected: boolean): void {
		if (!this.running) return;
		if (connected) {
			this.connectedAt = Date.now();
			return;
		}
		if (this.connectedAt && Date.now() - this.connectedAt >= this.policy.stableMs) this.failures = 0;
		this.refused = this.connectedAt === 0;
		this.connectedAt = 0;
		this.stream?.stop();
		this.stream = null;
		this.set(this.model.reconnecting());
		this.schedule(0);
	}

	/**
	 * The sidecar this plugin started exited on its own (a signal: out of memory, a crash): say so
	 * with its last words at once, and recover as from a dropped stream (which may have come first).
	 */
	private onExit(reason: string): void {
		if (!this.running || !this.attached) return; // while starting, the start itself reports it
		const dropped = this.model.view.phase === "reconnecting";
		this.set(this.model.reconnecting(reason));
		if (dropped) return; // the dropped stream already set recovery going
		this.connectedAt = 0;
		this.stream?.stop();
		this.stream = null;
		this.schedule(0);
	}

	private schedule(delayMs: number): void {
		this.clearTimer();
		this.timer = window.setTimeout(() => {
			this.timer = null;
			void this.recover();
		}, delayMs);
	}

	private async recover(): Promise<void> {
		if (!this.running || this.probing) return;
		// It still answers: only the stream was lost. A stream refused outright would be refused
		// again at once, so that goes the way of a failure instead: backoff, the token read again.
		this.probing = true;
		const probe = await this.options.supervisor.probe().finally(() => (this.probing = false));
		if (!this.running) return;
		if (probe.state === "hung") {
			await this.hung();
			return;
		}
		const answers = probe.state === "ok";
		if (probe.state === "ok" && !this.refused && this.attached) {
			// Only if it is still this vault's: another vault's sidecar may have the port of ours now.
			const again = await this.options.supervisor.recheck(probe.version);
			if (!this.running) return;
			if (again.ok) {
				await this.up();
				return;
			}
		}
		if (this.failures >= this.policy.maxFailures) {
			const tail = this.options.supervisor.logTail.slice(-3).join("\n");
			this.options.supervisor.stop();
			this.running = false;
			const what = answers
				? `The sidecar answers but refused its event stream ${this.failures} times in a row, so Ora stopped reconnecting. Restart the sidecar.`
				: `The sidecar stopped ${this.failures} times in a row, so Ora stopped restarting it.`;
			this.set(this.model.stopped(`${what}${tail ? `\nIts last words: ${tail}` : ""}`));
			return;
		}
		const delay = Math.min(this.policy.minDelayMs * 2 ** this.failures, this.policy.maxDelayMs);
		this.failures += 1;
		await new Promise((resolve) => window.setTimeout(resolve, delay));
		if (!this.running) return;
		const outcome = await this.options.supervisor.ensureRunning();
		if (!this.running) {
			this.options.supervisor.stop();
			return;
		}
		if (outcome.ok) {
			await this.up();
		} else if (outcome.problem === "failed") {
			this.schedule(0);
		} else if (outcome.problem === "hung") {
			await this.hung();
		} else {
			this.set(this.model.failed(outcome.reason, outcome.problem));
			this.running = false;
		}
	}

	/**
	 * Alive but silent: keep asking (a paused sidecar comes back on its own). On the way in, the
	 * supervisor says which process it is and whether a click can restart it.
	 */
	private async hung(): Promise<void> {
		if (this.model.view.phase !== "not-responding") {
			const why = await this.options.supervisor.unresponsive();
			if (!this.running) return;
			this.set(this.model.notResponding(why));
		}
		this.schedule(this.policy.hungPollMs);
	}

	private clearTimer(): void {
		if (this.timer !== null) window.clearTimeout(this.timer);
		this.timer = null;
	}

	private set(next: StatusModel): void {
		this.model = next;
		this.options.onStatus(next);
	}
}
