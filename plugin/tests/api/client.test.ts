import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";

import { mayStillApply, SidecarClient, SidecarError } from "../../src/api/client";
import { NodeHttpTransport } from "../../src/api/node-transport";
import { CALL_TIMEOUTS } from "../../src/api/timeouts";
import { aPair, aSearchDocument, HANG, json, ScriptedTransport } from "../builders";

afterEach(() => vi.useRealTimers());

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

	it("reports a write whose connection broke after sending as unsure, a refused one as unreachable", async () => {
		// A sidecar that reads the whole request (and may have written the notes), then dies.
		const server = http.createServer((req) => {
			req.resume();
			req.on("end", () => req.socket.destroy());
		});
		await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
		const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		const c = new SidecarClient(new NodeHttpTransport(), { baseUrl, token: () => "t" });
		try {
			const resolve = await c.resolve("p1", { action: "dismiss" }).catch((e: unknown) => e);
			expect(resolve).toMatchObject({ status: 0, code: "write_interrupted", unsure: true, timedOut: false });
			expect((resolve as Error).message).toMatch(/^The connection to the sidecar at http:\/\/127\.0\.0\.1:\d+ broke before it answered \(.+\), so it may have applied the change\.$/);
			expect(mayStillApply(resolve)).toBe(true);
			// A read that breaks off changed nothing: the sidecar is gone, as far as the caller can tell.
			expect(await c.status().catch((e: unknown) => e)).toMatchObject({ code: "unreachable", unsure: false });
		} finally {
			await new Promise((closed) => server.close(closed));
		}
		// Nothing listens now: the write was never sent.
		const refused = await c.adoptApply([]).catch((e: unknown) => e);
		expect(refused).toMatchObject({ status: 0, code: "unreachable", unsure: false });
		expect((refused as Error).message).toContain(`No sidecar at ${baseUrl}`);
		expect((refused as Error).message).toContain("ECONNREFUSED");
	});

	it("treats Obsidian's refused connection as never sent, and its reset as a write that may be applied", async () => {
		const transport = new ScriptedTransport([new Error("net::ERR_CONNECTION_REFUSED"), new Error("net::ERR_CONNECTION_RESET")]);
		const c = client(transport);
		expect(await c.undoResolution().catch((e: unknown) => e)).toMatchObject({ code: "unreachable", unsure: false });
		expect(await c.undoResolution().catch((e: unknown) => e)).toMatchObject({ code: "write_interrupted", unsure: true });
	});

	it("treats a write that never left (a connection attempt timed out, a header Node refuses) as never sent", async () => {
		const nodeError = (message: string, code: string) => Object.assign(new Error(message), { code });
		const transport = new ScriptedTransport([
			nodeError("connect ETIMEDOUT 127.0.0.1:47113", "ETIMEDOUT"),
			Object.assign(new AggregateError([nodeError("connect ETIMEDOUT 127.0.0.1:47113", "ETIMEDOUT")], ""), { code: "ETIMEDOUT" }),
			new Error("net::ERR_CONNECTION_TIMED_OUT"),
			nodeError("Request path contains unescaped characters", "ERR_UNESCAPED_CHARACTERS"),
			// On a connection already open, a timeout may come after the request went out.
			nodeError("read ETIMEDOUT", "ETIMEDOUT"),
		]);
		const c = client(transport);
		for (let i = 0; i < 4; i++) expect(await c.undoResolution().catch((e: unknown) => e)).toMatchObject({ code: "unreachable", unsure: false });
		expect(await c.undoResolution().catch((e: unknown) => e)).toMatchObject({ code: "write_interrupted", unsure: true });
		// Node refuses a header holding a line break before it sends anything.
		const refused = new SidecarClient(new NodeHttpTransport(), { baseUrl: "http://127.0.0.1:1", token: () => "t0k\n3n" });
		const header = await refused.reindex().catch((e: unknown) => e);
		expect(header).toMatchObject({ code: "unreachable", unsure: false });
		expect((header as Error).message).toContain("Invalid character in header");
	});

	it("reports a non-JSON error page by its status", async () => {
		const transport = new ScriptedTransport([{ status: 502, text: "<html>bad gateway</html>" }]);
		await expect(client(transport).reindex()).rejects.toMatchObject({ status: 502, code: "http_error" });
	});

	it("sends the extraction's selector and mode to /v1/extract, its accept and its undo", async () => {
		const transport = new ScriptedTransport([
			json(200, { extractor: "rules", proposals: [], dropped: [] }),
			json(200, { written: ["Engrams/A.md"], queued_contradictions: 0 }),
			json(200, { restored: [] }),
			json(200, { restored: [] }),
		]);
		const c = client(transport);
		await c.extract({ conversation: "ask-1" }, true);
		await c.extractAccept({ note: "Chats/Ora/ask-1.md" }, { accept: ["x1"], edits: { x1: { title: "T", text: "X." } } });
		await c.extractUndo();
		await c.extractUndo(true);
		expect(transport.requests.map((r) => `${r.method} ${r.url.replace("http://127.0.0.1:47113", "")} ${r.body ?? ""}`)).toEqual([
			'POST /v1/extract {"conversation":"ask-1","private":true}',
			'POST /v1/extract/accept {"note":"Chats/Ora/ask-1.md","accept":["x1"],"edits":{"x1":{"title":"T","text":"X."}},"private":false}',
			"POST /v1/extract/undo {}",
			'POST /v1/extract/undo {"private":true}',
		]);
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
		// The owner's editor lints in private mode: links to private notes resolve.
		expect(JSON.parse(transport.requests[2]?.body ?? "")).toEqual({ path: "N.md", text: "---\n---\n", private: true });
	});

	describe("against a sidecar that takes the call and never answers", () => {
		it("fails a search after the interactive limit with a timeout error in plain words", async () => {
			vi.useFakeTimers();
			const call = client(new ScriptedTransport([HANG])).search({ query: "q", k: 5 });
			const outcome = call.catch((e: unknown) => e);
			await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.interactive - 1);
			expect(vi.getTimerCount()).toBe(1); // still waiting
			await vi.advanceTimersByTimeAsync(1);
			const err = await outcome;
			expect(err).toBeInstanceOf(SidecarError);
			expect(err).toMatchObject({ status: 0, code: "timeout", timedOut: true, message: "The sidecar did not answer in 15 s." });
		});

		it("fails a write that times out as unsure: still a timeout, but one the sidecar may yet apply", async () => {
			vi.useFakeTimers();
			const c = client(new ScriptedTransport([HANG, HANG, HANG]));
			const adopt = c.adoptApply([]).catch((e: unknown) => e);
			const ingest = c.ingestApply("Inbox/Paper.pdf").catch((e: unknown) => e);
			const plan = c.ingestPlan("Inbox/Paper.pdf").catch((e: unknown) => e);
			await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.write);
			expect(await adopt).toMatchObject({
				status: 0,
				code: "write_timeout",
				timedOut: true,
				unsure: true,
				message: "The sidecar did not answer in 1 min, and may still apply the change.",
			});
			expect(mayStillApply(await adopt)).toBe(true);
			await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.long - CALL_TIMEOUTS.write);
			expect(await ingest).toMatchObject({ code: "write_timeout", unsure: true }); // an ingest that writes runs long
			expect(await plan).toMatchObject({ code: "timeout", unsure: false, message: "The sidecar did not answer in 5 min." }); // a dry run writes nothing
		});

		it("gives each kind of call its own limit: health checks short, answers long", async () => {
			vi.useFakeTimers();
			const c = client(new ScriptedTransport([HANG, HANG]));
			const health = c.health().catch((e: unknown) => e);
			const ask = c.ask({ question: "why?" }).catch((e: unknown) => e);
			await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.health);
			expect(await health).toMatchObject({ code: "timeout", message: "The sidecar did not answer in 5 s." });
			await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.long - CALL_TIMEOUTS.health - 1);
			expect(vi.getTimerCount()).toBe(1); // the answer may still come
			await vi.advanceTimersByTimeAsync(1);
			expect(await ask).toMatchObject({ code: "timeout", message: "The sidecar did not answer in 5 min." });
		});

		it("takes shorter limits from its options", async () => {
			vi.useFakeTimers();
			const c = new SidecarClient(new ScriptedTransport([HANG]), { baseUrl: "http://127.0.0.1:1", token: () => null, timeouts: { interactive: 1500 } });
			expect(c.timeout("interactive")).toBe(1500);
			expect(c.timeout("health")).toBe(CALL_TIMEOUTS.health);
			const call = c.status().catch((e: unknown) => e);
			await vi.advanceTimersByTimeAsync(1500);
			expect(await call).toMatchObject({ message: "The sidecar did not answer in 1.5 s." });
		});

		it("drops an answer that arrives after the timeout, aborts the request and says it timed out", async () => {
			vi.useFakeTimers();
			const transport = new ScriptedTransport([HANG]);
			const timeouts: string[] = [];
			const c = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => null, onTimeout: (e) => timeouts.push(e.message) });
			const settled: string[] = [];
			const call = c.search({ query: "q", k: 5 }).then(
				() => settled.push("answered"),
				(e: SidecarError) => settled.push(e.code),
			);
			await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.interactive);
			transport.late(0, json(200, aSearchDocument([])));
			await call;
			await vi.advanceTimersByTimeAsync(0);
			expect(settled).toEqual(["timeout"]);
			expect(transport.requests[0]?.signal?.aborted).toBe(true);
			expect(timeouts).toEqual(["The sidecar did not answer in 15 s."]);
		});

		it("clears its timer when the answer comes in time", async () => {
			vi.useFakeTimers();
			const transport = new ScriptedTransport([HANG]);
			const call = client(transport).health();
			transport.late(0, json(200, { status: "ok", version: "0.1.0" }));
			expect((await call).version).toBe("0.1.0");
			expect(vi.getTimerCount()).toBe(0);
		});

		it("cancels every call in flight on dispose, leaving no timer behind", async () => {
			vi.useFakeTimers();
			const c = client(new ScriptedTransport([HANG, HANG]));
			const calls = [c.search({ query: "q", k: 5 }), c.related({ path: "A.md", k: 5 })].map((p) => p.catch((e: unknown) => e));
			expect(vi.getTimerCount()).toBe(2);
			c.dispose();
			expect(vi.getTimerCount()).toBe(0);
			for (const err of await Promise.all(calls)) expect(err).toMatchObject({ code: "cancelled" });
		});
	});
});
