import type { VaultEvent } from "../api/types";
import { debounce, type Debounced, type Live } from "../util/debounce";
import { EventQueue } from "./event-queue";

/**
 * Queues vault events and sends them in one batch once the vault has been quiet for `waitMs`.
 * A failed send puts its events back so the next flush retries them. `onError` hears of the
 * first failure only, until a send succeeds again: a sidecar that is starting or down fails every
 * flush, and the console should say so once, not at each keystroke.
 */
export class EventBatcher {
	private readonly queue = new EventQueue();
	private readonly schedule: Debounced<[]>;
	private sending: Promise<void> = Promise.resolve();
	private failing = false;

	constructor(
		private readonly send: (events: VaultEvent[]) => Promise<unknown>,
		/** Live: the Event batching delay setting, read at each wait. */
		waitMs: Live<number>,
		private readonly onError: (err: unknown) => void = () => undefined,
	) {
		this.schedule = debounce(() => void this.flush(), waitMs);
	}

	push(event: VaultEvent): void {
		this.queue.push(event);
		this.schedule();
	}

	/** Sends whatever is queued now; resolves when that batch has been answered. */
	flush(): Promise<void> {
		this.schedule.cancel();
		this.sending = this.sending.then(async () => {
			const events = this.queue.drain();
			if (events.length === 0) return;
			try {
				await this.send(events);
				this.failing = false;
			} catch (err) {
				// Replaying into a queue that may have newer events keeps the newer state.
				const newer = this.queue.drain();
				for (const event of [...events, ...newer]) this.queue.push(event);
				if (!this.failing) this.onError(err);
				this.failing = true;
			}
		});
		return this.sending;
	}

	/**
	 * Flushes, waiting at most `ms` for the answer: on unload the sidecar is stopped after the
	 * flush, and a sidecar that does not answer (hung, busy) must not keep running because of it.
	 */
	flushWithin(ms: number): Promise<void> {
		let timer = 0;
		const late = new Promise<void>((resolve) => (timer = window.setTimeout(resolve, ms)));
		return Promise.race([this.flush(), late]).finally(() => window.clearTimeout(timer));
	}

	cancel(): void {
		this.schedule.cancel();
	}
}
