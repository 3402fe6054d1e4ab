import * as http from "http";

import { isRecord, SidecarError } from "./client";
import { SseParser } from "./sse";
import type { AskDocument, AskRequest } from "./types";

export interface AskStreamOptions {
	baseUrl: string;
	token: string | null;
	/** Gives up when nothing arrives for this long. */
	timeoutMs?: number;
}

/**
 * POST /v1/ask/stream: hands each piece of the answer to `onDelta` as the model writes it and
 * resolves with the whole answer document (the `answer` event). Obsidian's requestUrl buffers
 * whole responses, so this uses Node's http module, as the event stream does.
 */
export function askStream(options: AskStreamOptions, request: AskRequest, onDelta: (text: string) => void): Promise<AskDocument> {
	return new Promise((resolve, reject) => {
		const body = JSON.stringify(request);
		const headers: Record<string, string | number> = {
			Accept: "text/event-stream",
			"Content-Type": "application/json",
			"Content-Length": Buffer.byteLength(body),
		};
		if (options.token) headers.Authorization = `Bearer ${options.token}`;
		const outgoing = http.request(`${options.baseUrl}/v1/ask/stream`, { method: "POST", headers }, (res) => {
			res.setEncoding("utf8");
			if (res.statusCode !== 200) {
				let text = "";
				res.on("data", (chunk: string) => (text += chunk));
				res.on("end", () => reject(errorOf(res.statusCode ?? 0, text)));
				return;
			}
			const parser = new SseParser();
			let settled = false;
			res.on("data", (chunk: string) => {
				for (const event of parser.feed(chunk)) {
					const data = parse(event.data);
					if (event.event === "delta" && isRecord(data) && typeof data.text === "string") onDelta(data.text);
					else if (event.event === "answer" && isRecord(data)) {
						settled = true;
						resolve(data as unknown as AskDocument);
					} else if (event.event === "error") {
						settled = true;
						reject(errorOf(500, event.data));
					}
				}
			});
			res.on("end", () => {
				if (!settled) reject(new SidecarError(0, "stream_ended", "The answer stream ended before the answer arrived."));
			});
			res.on("error", reject);
		});
		outgoing.setTimeout(options.timeoutMs ?? 300_000, () => outgoing.destroy(new Error("timed out")));
		outgoing.on("error", (err) => reject(new SidecarError(0, "unreachable", `No sidecar at ${options.baseUrl} (${err.message})`)));
		outgoing.write(body);
		outgoing.end();
	});
}

function parse(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

function errorOf(status: number, text: string): SidecarError {
	const body = parse(text);
	if (isRecord(body) && isRecord(body.error)) {
		const code = typeof body.error.code === "string" ? body.error.code : "error";
		const message = typeof body.error.message === "string" ? body.error.message : code;
		return new SidecarError(status, code, message);
	}
	return new SidecarError(status, "http_error", `/v1/ask/stream answered HTTP ${status}`);
}
