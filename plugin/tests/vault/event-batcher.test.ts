import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { CALL_TIMEOUTS } from "../../src/api/timeouts";
import type { VaultEvent } from "../../src/api/types";
import { EventBatcher } from "../../src/vault/event-batcher";
import { HANG, json, ScriptedTransport } from "../builders";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("EventBatcher", () => {
	it("sends one folded batch after the vault has been quiet", async () => {
		const batches: VaultEvent[][] = [];
		const b = new EventBatcher(async (events) => batches.push(events), 500);
		b.push({ kind: "modified", path: "a.md" });
		vi.advanceTimersByTime(400);
		b.push({ kind: "modified", path: "a.md" });
		b.push({ kind: "created", path: "b.md" });
		vi.advanceTimersByTime(499);
		expect(batches).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(batches).toEqual([[{ kind: "modified", path: "a.md" }, { kind: "created", path: "b.md" }]]);
	});

	it("waits as long as the Event batching delay setting says now", async () => {
		const settings = { eventDelayMs: 500 };
		const batches: VaultEvent[][] = [];
		const b = new EventBatcher(async (events) => batches.push(events), () => settings.eventDelayMs);
		settings.eventDelayMs = 2000;
		b.push({ kind: "modified", path: "a.md" });
		await vi.advanceTimersByTimeAsync(1999);
		expect(batches).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(batches).toHaveLength(1);
	});

	it("gives up waiting for a send that does not answer, when asked to within a time (the plugin unloads)", async () => {
		const b = new EventBatcher(() => new Promise(() => undefined), 500);
		b.push({ kind: "modified", path: "a.md" });
		let done = false;
		void b.flushWithin(3000).then(() => (done = true));
		await vi.advanceTimersByTimeAsync(2999);
		expect(done).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect(done).toBe(true);
	});

	it("keeps a failed batch and sends it with the next one", async () => {
		const batches: VaultEvent[][] = [];
		const errors: unknown[] = [];
		let fail = true;
		const b = new EventBatcher(
			async (events) => {
				if (fail) throw new Error("down");
				batches.push(events);
			},
			100,
			(e) => errors.push(e),
		);
		b.push({ kind: "deleted", path: "gone.md" });
		await b.flush();
		expect(errors).toHaveLength(1);
		fail = false;
		b.push({ kind: "modified", path: "a.md" });
		await b.flush();
		expect(batches).toEqual([[{ kind: "deleted", path: "gone.md" }, { kind: "modified", path: "a.md" }]]);
	});

	it("says once that sends fail while the sidecar is down, not at every flush, and again after it recovered and failed anew", async () => {
		const errors: unknown[] = [];
		let fail = true;
		const b = new EventBatcher(
			async () => {
				if (fail) throw new Error("connect ECONNREFUSED");
			},
			100,
			(e) => errors.push(e),
		);
		for (const path of ["a.md", "b.md", "c.md"]) {
			b.push({ kind: "modified", path });
			await b.flush();
		}
		expect(errors).toHaveLength(1);
		fail = false;
		b.push({ kind: "modified", path: "d.md" });
		await b.flush();
		fail = true;
		b.push({ kind: "modified", path: "e.md" });
		await b.flush();
		expect(errors).toHaveLength(2);
	});

	it("sends nothing when nothing is queued", async () => {
		const send = vi.fn(async () => undefined);
		await new EventBatcher(send, 100).flush();
		expect(send).not.toHaveBeenCalled();
	});

	it("is not blocked for good by a send the sidecar never answers: it times out and the events go with the next batch", async () => {
		const transport = new ScriptedTransport([HANG, json(200, { accepted: 2 })]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const errors: string[] = [];
		const b = new EventBatcher((events) => client.sendEvents(events), 500, (err) => errors.push(String(err)));
		b.push({ kind: "modified", path: "a.md" });
		await vi.advanceTimersByTimeAsync(500 + CALL_TIMEOUTS.write);
		expect(errors).toEqual(["SidecarError: The sidecar did not answer in 1 min, and may still apply the change."]);
		b.push({ kind: "created", path: "b.md" });
		await vi.advanceTimersByTimeAsync(500);
		expect(transport.requests).toHaveLength(2);
		expect(JSON.parse(transport.requests[1]?.body ?? "")).toEqual({ events: [{ kind: "modified", path: "a.md" }, { kind: "created", path: "b.md" }] });
	});
});
