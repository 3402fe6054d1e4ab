import * as http from "http";
import type { AddressInfo } from "net";
import { afterEach, describe, expect, it } from "vitest";

import { SidecarError } from "../../src/api/client";
import { pullModel, toPullProgress } from "../../src/api/model-pull";
import type { PullProgress } from "../../src/api/types";

let server: http.Server | null = null;

afterEach(async () => {
	server?.closeAllConnections();
	await new Promise((ok) => server?.close(ok) ?? ok(null));
	server = null;
});

/** A loopback server answering POST /v1/models/pull with `write`; `closed` resolves when the client hangs up. */
async function serve(write: (res: http.ServerResponse) => void, seen: { body?: string; closed?: Promise<void> } = {}): Promise<string> {
	server = http.createServer((req, res) => {
		let body = "";
		req.on("data", (c: Buffer) => (body += c.toString()));
		seen.closed = new Promise((ok) => res.on("close", () => ok()));
		req.on("end", () => {
			seen.body = body;
			write(res);
		});
	});
	await new Promise<void>((ok) => server?.listen(0, "127.0.0.1", ok));
	return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

describe("pullModel", () => {
	it("hands on each progress event, across chunk boundaries, then resolves with the installed model", async () => {
		const seen: { body?: string } = {};
		const url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.write('event: progress\ndata: {"file": "model.onnx", "done": 10, "total": 20}\n\nevent: prog');
			setTimeout(() => {
				res.write('ress\ndata: {"file": "model.onnx", "done": 20, "total": 20}\n\n');
				res.end('event: installed\ndata: {"name": "bge-small-en-v1.5", "folder": "/m/e", "restart": true}\n\n');
			}, 20);
		}, seen);
		const progress: PullProgress[] = [];
		const model = await pullModel({ baseUrl: url, token: "t" }, "bge-small-en-v1.5", (p) => progress.push(p));
		expect(progress).toEqual([
			{ file: "model.onnx", done: 10, total: 20 },
			{ file: "model.onnx", done: 20, total: 20 },
		]);
		expect(model).toMatchObject({ name: "bge-small-en-v1.5", folder: "/m/e", restart: true });
		expect(JSON.parse(seen.body ?? "")).toEqual({ name: "bge-small-en-v1.5" });
	});

	it("rejects with the sidecar's code for a failed pull or a refused request", async () => {
		let url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.end('event: error\ndata: {"error": {"code": "checksum_mismatch", "message": "sha256 differs; the file was refused"}}\n\n');
		});
		const during = await pullModel({ baseUrl: url, token: null }, "x", () => undefined).catch((e: unknown) => e);
		expect(during).toMatchObject({ code: "checksum_mismatch" });
		server?.close();
		url = await serve((res) => {
			res.writeHead(409, { "Content-Type": "application/json" });
			res.end('{"error": {"code": "conflict", "message": "another model is being pulled"}}');
		});
		const before = await pullModel({ baseUrl: url, token: null }, "x", () => undefined).catch((e: unknown) => e);
		expect(before).toMatchObject({ status: 409, code: "conflict" });
	});

	it("says the stream ended when the sidecar dies mid-download", async () => {
		const url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.write('event: progress\ndata: {"file": "model.onnx", "done": 1, "total": 20}\n\n');
			setTimeout(() => res.socket?.destroy(), 20);
		});
		const err = await pullModel({ baseUrl: url, token: null }, "x", () => undefined).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(SidecarError);
		expect(err).toMatchObject({ code: "stream_ended", message: "The download stream ended before the model was installed." });
	});

	it("closes the stream when its signal aborts, which cancels the pull", async () => {
		const seen: { closed?: Promise<void> } = {};
		const url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.write('event: progress\ndata: {"file": "model.onnx", "done": 1, "total": 20}\n\n');
		}, seen);
		const abort = new AbortController();
		const pulled = pullModel({ baseUrl: url, token: null, signal: abort.signal }, "x", () => abort.abort());
		const err = await pulled.catch((e: unknown) => e);
		expect(err).toBeInstanceOf(SidecarError);
		expect(err).toMatchObject({ code: "cancelled", unreachable: false });
		await seen.closed; // the server saw the connection go
	});

	it("ignores progress it cannot read", () => {
		expect(toPullProgress({ file: "a", done: 1 })).toEqual({ file: "a", done: 1, total: null });
		expect(toPullProgress({ file: 3, done: 1 })).toBeNull();
		expect(toPullProgress(null)).toBeNull();
	});

	it("gives up on a download the sidecar stops sending progress for", async () => {
		const url = await serve((res) => {
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.write('event: progress\ndata: {"file": "model.onnx", "done": 10, "total": 100}\n\n');
		});
		const err = await pullModel({ baseUrl: url, token: null, timeoutMs: 300 }, "m", () => undefined).catch((e: unknown) => e);
		expect(err).toMatchObject({ code: "timeout", message: "The sidecar sent nothing for 0.3 s." });
	});
});
