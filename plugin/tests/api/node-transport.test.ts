import * as http from "http";
import type { AddressInfo } from "net";

import { describe, expect, it } from "vitest";

import { NodeHttpTransport } from "../../src/api/node-transport";

describe("NodeHttpTransport", () => {
	it("sends method, headers and UTF-8 body, and resolves with any status", async () => {
		const seen: { method?: string; type?: string; length?: string; body: string }[] = [];
		const server = http.createServer((req, res) => {
			let body = "";
			req.setEncoding("utf8");
			req.on("data", (c: string) => (body += c));
			req.on("end", () => {
				seen.push({ method: req.method, type: req.headers["content-type"], length: req.headers["content-length"], body });
				res.writeHead(418, { "Content-Type": "application/json" });
				res.end('{"error": {"code": "teapot", "message": "é"}}');
			});
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		const body = JSON.stringify({ query: "café" });
		const answer = await new NodeHttpTransport().request({
			method: "POST",
			url: `http://127.0.0.1:${port}/v1/search`,
			headers: { "Content-Type": "application/json" },
			body,
		});
		await new Promise((resolve) => server.close(resolve));
		expect(answer.status).toBe(418);
		expect(answer.text).toContain("é");
		expect(seen).toEqual([{ method: "POST", type: "application/json", length: String(Buffer.byteLength(body)), body }]);
	});

	it("rejects when nothing listens", async () => {
		const server = http.createServer();
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		await new Promise((resolve) => server.close(resolve));
		await expect(
			new NodeHttpTransport().request({ method: "GET", url: `http://127.0.0.1:${port}/v1/health`, headers: {} }),
		).rejects.toThrow(/ECONNREFUSED/);
	});
});
