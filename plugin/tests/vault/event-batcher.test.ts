import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { VaultEvent } from "../../src/api/types";
import { EventBatcher } from "../../src/vault/event-batcher";

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

	it("sends nothing when nothing is queued", async () => {
		const send = vi.fn(async () => undefined);
		await new EventBatcher(send, 100).flush();
		expect(send).not.toHaveBeenCalled();
	});
});
