import * as http from "http";
import type { AddressInfo } from "net";
import { afterEach, describe, expect, it } from "vitest";

import { askStream } from "../../src/api/ask-stream";
import { SidecarError } from "../../src/api/client";

let server: http.Server | null = null;

afterEach(async () => {
	await new Promise((ok) => server?.close(ok) ?? ok(null));
	server = null;
});

/** A loopback server answering POST /v1/ask/stream with `write`, recording the request. */
async function serve(write: (res: http.ServerResponse) => void, seen: { body?: string; auth?: string } = {}): Promise<string> {
	server = http.createServer((req, res) => {
		let body = "";
		req.on("data", (c: Buffer) => (body += c.toString()));
		req.on("end", () => {
			seen.body = body;
			seen.auth = req.headers.authorization;
			write(res);
		});
	});
	await new Promise<void>((ok) => server?.listen(0, "127.0.0.1", ok));
	return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

const DOC = { question: "q", answer: "Wild yeast [1].", generator: "llm:m", conversation: null, citations: [] };

describe("askStream", () => {
	it("hands on each delta as it arrives, across chunk boundaries, then resolves with the answer", async () => {
		const seen: { body?: string; auth?: string } = {};
		const url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.write('event: delta\ndata: {"text": "Wild "}\n\nevent: del');
			setTimeout(() => {
				res.write('ta\ndata: {"text": "yeast [1]."}\n\n');
				res.end(`event: answer\ndata: ${JSON.stringify(DOC)}\n\n`);
			}, 20);
		}, seen);
		const pieces: string[] = [];
		const doc = await askStream({ baseUrl: url, token: "tok" }, { question: "q", conversation: "c1" }, (t) => pieces.push(t));
		expect(pieces).toEqual(["Wild ", "yeast [1]."]);
		expect(doc).toEqual(DOC);
		expect(JSON.parse(seen.body ?? "")).toEqual({ question: "q", conversation: "c1" });
		expect(seen.auth).toBe("Bearer tok");
	});

	it("rejects with the sidecar's error, before or during the stream", async () => {
		let url = await serve((res) => {
			res.writeHead(400, { "Content-Type": "application/json" });
			res.end(JSON.stringify({ error: { code: "bad_request", message: "question: too short" } }));
		});
		const before = await askStream({ baseUrl: url, token: null }, { question: "" }, () => undefined).catch((e: unknown) => e);
		expect(before).toBeInstanceOf(SidecarError);
		expect((before as SidecarError).code).toBe("bad_request");
		await new Promise((ok) => server?.close(ok));
		url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.end('event: error\ndata: {"error": {"code": "internal", "message": "internal error: see the server log"}}\n\n');
		});
		const during = await askStream({ baseUrl: url, token: null }, { question: "q" }, () => undefined).catch((e: unknown) => e);
		expect((during as SidecarError).code).toBe("internal");
	});

	it("rejects when the stream ends without an answer, or nothing listens", async () => {
		const url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.end('event: delta\ndata: {"text": "half"}\n\n');
		});
		const cut = await askStream({ baseUrl: url, token: null }, { question: "q" }, () => undefined).catch((e: unknown) => e);
		expect((cut as SidecarError).code).toBe("stream_ended");
		const none = await askStream({ baseUrl: "http://127.0.0.1:9", token: null }, { question: "q" }, () => undefined).catch((e: unknown) => e);
		expect((none as SidecarError).unreachable).toBe(true);
	});

	it("times out on silence between events, not on the answer's total time", async () => {
		// Fifteen pieces 100 ms apart: 1.5 s in all, never 1 s of silence.
		let url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			let sent = 0;
			const tick = setInterval(() => {
				if (++sent <= 15) res.write('event: delta\ndata: {"text": "."}\n\n');
				else {
					clearInterval(tick);
					res.end(`event: answer\ndata: ${JSON.stringify(DOC)}\n\n`);
				}
			}, 100);
		});
		const pieces: string[] = [];
		expect(await askStream({ baseUrl: url, token: null, timeoutMs: 1000 }, { question: "q" }, (t) => pieces.push(t))).toEqual(DOC);
		expect(pieces).toHaveLength(15);
		await new Promise((ok) => server?.close(ok));
		// One piece, then nothing: a sidecar stuck mid-answer.
		url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.write('event: delta\ndata: {"text": "Wild "}\n\n');
		});
		const err = await askStream({ baseUrl: url, token: null, timeoutMs: 300 }, { question: "q" }, () => undefined).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(SidecarError);
		expect(err).toMatchObject({ code: "timeout", message: "The sidecar sent nothing for 0.3 s." });
	});
});
