import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { debounce } from "../../src/util/debounce";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("debounce", () => {
	it("calls once, with the last arguments, after the wait", () => {
		const calls: number[] = [];
		const d = debounce((n: number) => calls.push(n), 100);
		d(1);
		d(2);
		vi.advanceTimersByTime(99);
		expect(calls).toEqual([]);
		expect(d.pending).toBe(true);
		vi.advanceTimersByTime(1);
		expect(calls).toEqual([2]);
		expect(d.pending).toBe(false);
	});

	it("flush runs a pending call now; cancel drops it", () => {
		const calls: string[] = [];
		const d = debounce((s: string) => calls.push(s), 100);
		d("now");
		d.flush();
		d("never");
		d.cancel();
		vi.advanceTimersByTime(200);
		d.flush();
		expect(calls).toEqual(["now"]);
	});
});
