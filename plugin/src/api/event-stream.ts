import * as http from "http";

import { SseParser, toStreamEvent } from "./sse";
import type { StreamEvent } from "./types";

export interface EventStreamOptions {
	url: string;
	token: () => string | null;
	onEvent: (event: StreamEvent) => void;
	/** Called with true when the stream opens and false when it drops. */
	onConnection?: (connected: boolean) => void;
	/** First reconnect delay; doubles on each failure up to maxDelayMs. */
	minDelayMs?: number;
	maxDelayMs?: number;
	/**
	 * Silence after which the stream counts as lost: the sidecar writes a ping every 15 s, so a
	 * stream quiet for longer comes from a hung process (the status would say "ready" forever).
	 */
	silenceMs?: number;
}

const SILENCE_MS = 45_000;

/**
 * Follows GET /v1/events/stream with reconnects. Obsidian's requestUrl buffers whole responses and
 * cannot stream, so this uses Node's http module (the plugin is desktop only).
 */
export class EventStream {
	private request: http.ClientRequest | null = null;
	private retry: number | null = null;
	private delay: number;
	private stopped = true;

	constructor(private readonly options: EventStreamOptions) {
		this.delay = options.minDelayMs ?? 1000;
	}

	start(): void {
		if (!this.stopped) return;
		this.stopped = false;
		this.connect();
	}

	stop(): void {
		this.stopped = true;
		if (this.retry) window.clearTimeout(this.retry);
		this.retry = null;
		this.request?.destroy();
		this.request = null;
	}

	private connect(): void {
		const headers: Record<string, string> = { Accept: "text/event-stream" };
		const token = this.options.token();
		if (token) headers.Authorization = `Bearer ${token}`;
		const parser = new SseParser();
		let closed = false;
		const drop = (): void => {
			if (closed) return;
			closed = true;
			this.dropped();
		};
		const req = http.get(this.options.url, { headers }, (res) => {
			if (res.statusCode !== 200) {
				res.resume();
				drop();
				return;
			}
			this.delay = this.options.minDelayMs ?? 1000;
			this.options.onConnection?.(true);
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => {
				for (const raw of parser.feed(chunk)) {
					const event = toStreamEvent(raw);
					if (event) this.options.onEvent(event);
				}
			});
			res.on("end", drop);
			res.on("error", drop);
		});
		req.on("error", drop);
		req.setTimeout(this.options.silenceMs ?? SILENCE_MS, () => req.destroy(new Error("the sidecar went silent")));
		this.request = req;
	}

	private dropped(): void {
		this.request = null;
		this.options.onConnection?.(false);
		if (this.stopped || this.retry) return;
		this.retry = window.setTimeout(() => {
			this.retry = null;
			if (!this.stopped) this.connect();
		}, this.delay);
		this.delay = Math.min(this.delay * 2, this.options.maxDelayMs ?? 30_000);
	}
}
