import { isRecord } from "./client";
import type { StreamEvent } from "./types";

/** One raw server-sent event: the `event:` name (default "message") and its joined `data:` lines. */
export interface RawSseEvent {
	event: string;
	data: string;
}

/**
 * Incremental text/event-stream parser (WHATWG HTML §9.2.6): feed it chunks as they arrive, in any
 * split, and it returns the events completed so far. Comments (`: ping`) are dropped.
 */
export class SseParser {
	private buffer = "";
	private event = "";
	private data: string[] = [];

	feed(chunk: string): RawSseEvent[] {
		this.buffer += chunk;
		const out: RawSseEvent[] = [];
		let newline: number;
		while ((newline = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
			const line = this.buffer.slice(0, newline);
			const width = this.buffer.startsWith("\r\n", newline) ? 2 : 1;
			// A lone trailing \r may be the first half of \r\n: wait for the next chunk.
			if (width === 1 && this.buffer[newline] === "\r" && newline === this.buffer.length - 1) break;
			this.buffer = this.buffer.slice(newline + width);
			const done = this.line(line);
			if (done) out.push(done);
		}
		return out;
	}

	private line(line: string): RawSseEvent | null {
		if (line === "") {
			const finished = this.data.length ? { event: this.event || "message", data: this.data.join("\n") } : null;
			this.event = "";
			this.data = [];
			return finished;
		}
		if (line.startsWith(":")) return null;
		const colon = line.indexOf(":");
		const field = colon < 0 ? line : line.slice(0, colon);
		let value = colon < 0 ? "" : line.slice(colon + 1);
		if (value.startsWith(" ")) value = value.slice(1);
		if (field === "event") this.event = value;
		else if (field === "data") this.data.push(value);
		return null;
	}
}

/** The typed stream event for a raw one, or null when its name or payload is not in the contract. */
export function toStreamEvent(raw: RawSseEvent): StreamEvent | null {
	let data: unknown;
	try {
		data = JSON.parse(raw.data) as unknown;
	} catch {
		return null;
	}
	if (!isRecord(data)) return null;
	const num = (key: string): number => (typeof data[key] === "number" ? data[key] : 0);
	switch (raw.event) {
		case "progress":
			return {
				type: "progress",
				phase: typeof data.phase === "string" ? data.phase : "scan",
				done: num("done"),
				total: num("total"),
			};
		case "index":
			return { type: "index", files: num("files"), chunks: num("chunks") };
		case "contradictions":
			return { type: "contradictions", open: num("open") };
		case "cleaning":
			return {
				type: "cleaning",
				running: data.running === true,
				phase: typeof data.phase === "string" ? data.phase : "idle",
				done: num("done"),
				total: num("total"),
				scans: num("scans"),
				last_finished: typeof data.last_finished === "string" ? data.last_finished : null,
				fallbacks: num("fallbacks"),
			};
		default:
			return null;
	}
}
