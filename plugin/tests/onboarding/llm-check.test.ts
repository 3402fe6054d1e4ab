// "Test connection" against loopback stand-ins of OpenAI-compatible servers, through the
// requestUrl the plugin uses (the test's requestUrl is Node's http).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "http";
import type { AddressInfo } from "net";
import { requestUrl } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";

import { checkLlmEndpoint, endpointUrl } from "../../src/onboarding/llm-check";

let server: Server | null = null;
const seen: string[] = [];

async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
	server = createServer((req, res) => {
		let body = "";
		req.on("data", (c: Buffer) => (body += c.toString()));
		req.on("end", () => {
			seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`.trim());
			handle(req, res, body);
		});
	});
	await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
	seen.length = 0;
	await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
	server = null;
});

const check = (url: string, model = "", key = "") => checkLlmEndpoint((req) => requestUrl(req), url, model, key);

describe("checkLlmEndpoint", () => {
	it("builds endpoint URLs as the sidecar does, with or without /v1", () => {
		expect(endpointUrl("http://h:1/v1/", "models")).toBe("http://h:1/v1/models");
		expect(endpointUrl("http://h:1", "models")).toBe("http://h:1/v1/models");
		expect(endpointUrl("http://h:1/v1/chat/completions", "chat/completions")).toBe("http://h:1/v1/chat/completions");
	});

	it("lists the endpoint's models, sends the key, and says when the named model is not there", async () => {
		const url = await serve((_req, res) => res.end(JSON.stringify({ data: [{ id: "llama3.2" }, { id: "qwen2.5" }] })));
		expect(await check(`${url}/v1`, "llama3.2", "sk-1")).toEqual({ ok: true, message: "Connected: 2 models (llama3.2, qwen2.5)." });
		expect(seen).toEqual(["GET /v1/models Bearer sk-1"]);
		const missing = await check(url, "mistral");
		expect(missing.ok).toBe(false);
		expect(missing.message).toContain('no model "mistral". It has: llama3.2, qwen2.5.');
	});

	it("falls back to a one-token chat request where there is no model list", async () => {
		let chat = "";
		const url = await serve((req, res, body) => {
			if (req.url === "/v1/models") {
				res.statusCode = 404;
				res.end();
				return;
			}
			chat = body;
			res.end(JSON.stringify({ choices: [{ message: { content: "OK" } }] }));
		});
		expect(await check(url, "m")).toEqual({ ok: true, message: "Connected: the model answered." });
		expect(JSON.parse(chat)).toMatchObject({ model: "m", max_tokens: 1, stream: false });
	});

	it("reports a refused key, an error status and an endpoint that does not answer", async () => {
		const url = await serve((req, res) => {
			res.statusCode = req.url === "/v1/models" && req.headers.authorization ? 401 : 500;
			res.end("boom");
		});
		expect((await check(url, "m", "bad")).message).toBe("The endpoint refused the key (HTTP 401).");
		expect((await check(url, "m")).message).toBe("The endpoint answered HTTP 500 to a one-token chat request: boom.");
		await new Promise<void>((r) => server!.close(() => r()));
		server = null;
		const down = await check(url, "m");
		expect(down.ok).toBe(false);
		expect(down.message).toContain(`No answer from ${url}`);
		expect((await check("  ")).message).toBe("Give the endpoint's URL first.");
	});
});
