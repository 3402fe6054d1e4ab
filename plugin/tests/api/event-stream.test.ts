import * as http from "http";
import type { AddressInfo } from "net";

import { afterEach, describe, expect, it } from "vitest";

import { EventStream } from "../../src/api/event-stream";
import type { StreamEvent } from "../../src/api/types";

/** A real loopback SSE server: each connection gets `script(n)` written, then is closed. */
async function sseServer(script: (connection: number) => string): Promise<{ url: string; auth: string[]; close: () => Promise<void> }> {
	const auth: string[] = [];
	let connection = 0;
	const server = http.createServer((req, res) => {
		auth.push(req.headers.authorization ?? "");
		res.writeHead(200, { "Content-Type": "text/event-stream" });
		res.end(script(++connection));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1/events/stream`,
		auth,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

function waitFor(check: () => boolean, ms = 5000): Promise<void> {
	const deadline = Date.now() + ms;
	return new Promise((resolve, reject) => {
		const tick = (): void => {
			if (check()) resolve();
			else if (Date.now() > deadline) reject(new Error("condition not met in time"));
			else setTimeout(tick, 10);
		};
		tick();
	});
}

let stream: EventStream | null = null;
afterEach(() => stream?.stop());

describe("EventStream", () => {
	it("delivers typed events and reconnects after the server closes the stream", async () => {
		const server = await sseServer((n) => `: ping\n\nevent: contradictions\ndata: {"open": ${n}}\n\n`);
		const events: StreamEvent[] = [];
		const connections: boolean[] = [];
		stream = new EventStream({
			url: server.url,
			token: () => "secret",
			onEvent: (e) => events.push(e),
			onConnection: (up) => connections.push(up),
			minDelayMs: 10,
		});
		stream.start();
		await waitFor(() => events.length >= 3);
		stream.stop();
		await server.close();
		expect(events.slice(0, 3)).toEqual([
			{ type: "contradictions", open: 1 },
			{ type: "contradictions", open: 2 },
			{ type: "contradictions", open: 3 },
		]);
		expect(server.auth.slice(0, 3)).toEqual(["Bearer secret", "Bearer secret", "Bearer secret"]);
		expect(connections.slice(0, 4)).toEqual([true, false, true, false]);
	});

	it("keeps retrying while nothing listens, and stops when told", async () => {
		const server = await sseServer(() => "");
		const url = server.url;
		await server.close();
		const connections: boolean[] = [];
		stream = new EventStream({ url, token: () => null, onEvent: () => undefined, onConnection: (up) => connections.push(up), minDelayMs: 5, maxDelayMs: 10 });
		stream.start();
		await waitFor(() => connections.length >= 3);
		stream.stop();
		const seen = connections.length;
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(connections.every((up) => !up)).toBe(true);
		expect(connections.length).toBeLessThanOrEqual(seen + 1);
	});

	it("counts a stream silent for longer than the sidecar's pings as lost (a hung sidecar), and reconnects", async () => {
		const sockets: import("net").Socket[] = [];
		let connections = 0;
		const server = http.createServer((req, res) => {
			connections++;
			sockets.push(req.socket);
			// Headers and one ping, then nothing: the process hangs (stopped, deadlocked).
			res.writeHead(200, { "Content-Type": "text/event-stream" });
			res.write(": ping\n\n");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const changes: boolean[] = [];
		stream = new EventStream({
			url: `http://127.0.0.1:${port}/v1/events/stream`,
			token: () => "t",
			onEvent: () => undefined,
			onConnection: (c) => changes.push(c),
			minDelayMs: 20,
			silenceMs: 200,
		});
		stream.start();
		await waitFor(() => changes.includes(false) && connections >= 2, 3000);
		expect(changes.slice(0, 2)).toEqual([true, false]);
		stream.stop();
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => server.close(() => resolve(undefined)));
	});
});
