import * as http from "http";

import { cancelledError, errorFrom, parseJson, SidecarError, timeoutError } from "./client";
import { SseParser } from "./sse";

export interface SsePostOptions {
	baseUrl: string;
	token: string | null;
	/** Gives up when nothing arrives for this long (silence, not total time); each stream has its default in CALL_TIMEOUTS. */
	timeoutMs?: number;
	/** Aborting closes the stream (the route decides what that means: a pull is cancelled). */
	signal?: AbortSignal;
}

export { CANCELLED_STATUS } from "./client";

/** Reads one event of a stream: `{ result }` for the event that completes it, undefined otherwise. */
export type SseHandler<T> = (event: string, data: unknown) => { result: T } | undefined;

/**
 * POSTs `body` as JSON to `path` and hands each server-sent event (its name and parsed data) to
 * `handle`, resolving with the first result it returns. An `error` event
 * (`{"error": {"code", "message"}}`) and an answer other than 200 (the route refused before the
 * stream began) reject with that SidecarError; a stream ending early rejects with `ended`.
 * Obsidian's requestUrl buffers whole responses and cannot stream, so this uses Node's http module
 * (the plugin is desktop only), as the event stream does. Answers and model pulls both stream here.
 * An aborted `signal` rejects with code `cancelled`; `timeoutMs` of silence rejects with code `timeout`.
 */
export function postEventStream<T>(options: SsePostOptions & { timeoutMs: number }, path: string, body: unknown, handle: SseHandler<T>, ended: string): Promise<T> {
	return new Promise((resolve, reject) => {
		const text = JSON.stringify(body);
		const headers: Record<string, string | number> = {
			Accept: "text/event-stream",
			"Content-Type": "application/json",
			"Content-Length": Buffer.byteLength(text),
		};
		if (options.token) headers.Authorization = `Bearer ${options.token}`;
		const outgoing = http.request(`${options.baseUrl}${path}`, { method: "POST", headers }, (res) => {
			res.setEncoding("utf8");
			if (res.statusCode !== 200) {
				let answer = "";
				res.on("data", (chunk: string) => (answer += chunk));
				res.on("end", () => reject(errorFrom(res.statusCode ?? 0, parseJson(answer), path)));
				return;
			}
			const parser = new SseParser();
			let settled = false;
			res.on("data", (chunk: string) => {
				for (const event of parser.feed(chunk)) {
					if (settled) return;
					if (event.event === "error") {
						settled = true;
						reject(errorFrom(500, parseJson(event.data), path));
						continue;
					}
					const done = handle(event.event, parseJson(event.data));
					if (done) {
						settled = true;
						resolve(done.result);
					}
				}
			});
			// A sidecar that dies mid-stream resets the connection: Node then emits "error" ("aborted"), not "end".
			const endedEarly = (): void => {
				if (!settled) reject(new SidecarError(0, "stream_ended", ended));
			};
			res.on("end", endedEarly);
			res.on("error", endedEarly);
		});
		// The socket's idle timer: it restarts with every chunk, so only silence ends the stream.
		outgoing.setTimeout(options.timeoutMs, () => {
			reject(timeoutError(options.timeoutMs, true));
			outgoing.destroy();
		});
		outgoing.on("error", (err) => reject(new SidecarError(0, "unreachable", `No sidecar at ${options.baseUrl} (${err.message})`)));
		const signal = options.signal;
		if (signal) {
			const abort = (): void => {
				reject(cancelledError());
				outgoing.destroy();
			};
			if (signal.aborted) abort();
			else signal.addEventListener("abort", abort, { once: true });
			outgoing.on("close", () => signal.removeEventListener("abort", abort));
		}
		outgoing.write(text);
		outgoing.end();
	});
}
