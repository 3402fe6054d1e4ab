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

const DEFAULT_POLICY: RestartPolicy = { minDelayMs: 1000, maxDelayMs: 30_000, maxFailures: 5, stableMs: 60_000 };

/**
 * Keeps the plugin connected to its sidecar: starts it through the supervisor, follows its event
 * stream into the status model, and when the stream drops shows "reconnecting" at once, then
 * either reattaches (the sidecar still answers) or starts a new one with backoff; after
 * `maxFailures` failed restarts in a row it stops and says why.
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
	private readonly policy: RestartPolicy;

	constructor(private readonly options: LinkOptions) {
		this.policy = { ...DEFAULT_POLICY, ...options.restart };
	}

	get status(): StatusModel {
		return this.model;
	}

	/** Starts (or attaches to) the sidecar; resolves once it is up or has failed. */
	async start(): Promise<void> {
		this.running = true;
		this.failures = 0;
		this.set(StatusModel.initial());
		const outcome = await this.options.supervisor.ensureRunning();
		if (!this.running) {
			this.options.supervisor.stop(); // stopped meanwhile: end what that start began
			return;
		}
		if (!outcome.ok) {
			this.set(this.model.failed(outcome.reason, outcome.problem));
			return;
		}
		await this.up();
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
	 * one would refuse to start).
	 */
	async shutdown(): Promise<void> {
		this.stop();
		await this.options.supervisor.stopped();
	}

	async restart(): Promise<void> {
		await this.shutdown();
		await this.start();
	}

	/** Lets the status model take a count learnt elsewhere (the triage dialog). */
	note(event: StreamEvent): void {
		this.set(this.model.onEvent(event));
	}

	private async up(): Promise<void> {
		this.set(this.model.connected());
		try {
			this.set(this.model.fromStatus(await this.options.client.status()));
		} catch {
			// the stream's first events tell the same
		}
		this.stream?.stop();
		this.stream = this.options.openStream({
			onEvent: (event) => {
				this.set(this.model.onEvent(event));
				this.options.onEvent?.(event);
			},
			onConnection: (connected) => this.onConnection(connected),
		});
		this.stream.start();
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

	private schedule(delayMs: number): void {
		this.clearTimer();
		this.timer = window.setTimeout(() => {
			this.timer = null;
			void this.recover();
		}, delayMs);
	}

	private async recover(): Promise<void> {
		if (!this.running) return;
		// It still answers: only the stream was lost. A stream refused outright would be refused
		// again at once, so that goes the way of a failure instead: backoff, the token read again.
		const answers = (await this.options.supervisor.healthy()) !== null;
		if (answers && !this.refused) {
			await this.up();
			return;
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
		} else {
			this.set(this.model.failed(outcome.reason, outcome.problem));
			this.running = false;
		}
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
