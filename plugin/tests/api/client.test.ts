import { describe, expect, it } from "vitest";

import { SidecarClient, SidecarError } from "../../src/api/client";
import { aPair, json, ScriptedTransport } from "../builders";

function client(transport: ScriptedTransport, token: string | null = "t0k3n"): SidecarClient {
	return new SidecarClient(transport, { baseUrl: "http://127.0.0.1:47113", token: () => token });
}

describe("SidecarClient", () => {
	it("sends the bearer token and a JSON body to the documented route", async () => {
		const transport = new ScriptedTransport([json(200, { query: "q", results: [] })]);
		await client(transport).search({ query: "q", k: 5, private: true });
		const [req] = transport.requests;
		expect(req?.method).toBe("POST");
		expect(req?.url).toBe("http://127.0.0.1:47113/v1/search");
		expect(req?.headers.Authorization).toBe("Bearer t0k3n");
		expect(req?.headers["Content-Type"]).toBe("application/json");
		expect(JSON.parse(req?.body ?? "")).toEqual({ query: "q", k: 5, private: true });
	});

	it("omits the Authorization header until a token is known", async () => {
		const transport = new ScriptedTransport([json(200, { status: "ok", version: "0.1.0" })]);
		const health = await client(transport, null).health();
		expect(health.version).toBe("0.1.0");
		expect(transport.requests[0]?.headers.Authorization).toBeUndefined();
		expect(transport.requests[0]?.body).toBeUndefined();
	});

	it("turns the documented error body into a SidecarError with code and message", async () => {
		const transport = new ScriptedTransport([json(401, { error: { code: "unauthorized", message: "bad token" } })]);
		const err = await client(transport).status().catch((e: unknown) => e);
		expect(err).toBeInstanceOf(SidecarError);
		expect(err).toMatchObject({ status: 401, code: "unauthorized", message: "bad token", unreachable: false });
	});

	it("reports a refused connection as unreachable", async () => {
		const transport = new ScriptedTransport([new Error("connect ECONNREFUSED")]);
		const err = await client(transport).health().catch((e: unknown) => e);
		expect(err).toMatchObject({ status: 0, unreachable: true });
		expect((err as Error).message).toContain("ECONNREFUSED");
	});

	it("reports a non-JSON error page by its status", async () => {
		const transport = new ScriptedTransport([{ status: 502, text: "<html>bad gateway</html>" }]);
		await expect(client(transport).reindex()).rejects.toMatchObject({ status: 502, code: "http_error" });
	});

	it("unwraps list answers and escapes pair ids in the resolve route", async () => {
		const pair = aPair({ id: "a/b c" });
		const transport = new ScriptedTransport([
			json(200, { pairs: [pair] }),
			json(200, { pair: { ...pair, status: "resolved" }, changed: [pair.a.path] }),
			json(200, { diagnostics: [] }),
		]);
		const c = client(transport);
		expect(await c.contradictions()).toEqual([pair]);
		const answer = await c.resolve(pair.id, { action: "wrong", note: pair.a.path });
		expect(answer.changed).toEqual([pair.a.path]);
		expect(await c.lint("N.md", "---\n---\n")).toEqual([]);
		expect(transport.requests.map((r) => `${r.method} ${r.url.replace(c.baseUrl, "")}`)).toEqual([
			"GET /v1/contradictions?status=open",
			"POST /v1/contradictions/a%2Fb%20c/resolve",
			"POST /v1/lint",
		]);
		expect(JSON.parse(transport.requests[1]?.body ?? "")).toEqual({ action: "wrong", note: pair.a.path });
	});
});
