import { expect, vi } from "vitest";

import { CALL_TIMEOUTS } from "../../src/api/timeouts";

/**
 * For a view whose first call hangs: lets it time out, checks the view shows the error instead of
 * loading, then clicks Try again and checks the second call cleared the error.
 */
export async function timesOutThenRetries(el: HTMLElement, requests: () => number): Promise<void> {
	expect(el.querySelector(".ora-loading")).not.toBeNull();
	await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.interactive);
	expect(el.querySelector(".ora-loading")).toBeNull();
	expect(el.querySelector(".ora-error")?.textContent).toContain("The sidecar did not answer in 15 s.");
	(el.querySelector("button.ora-retry") as HTMLButtonElement).click();
	await vi.advanceTimersByTimeAsync(0);
	expect(requests()).toBe(2);
	expect(el.querySelector(".ora-error")).toBeNull();
}

/**
 * For a view whose first call found no sidecar: once it is ready the view asks again and shows
 * `path`; ready again (a reconnect) with results shown, nothing more is asked.
 */
export async function asksAgainWhenReady(
	view: { contentEl: HTMLElement; sidecarReady(): Promise<void> },
	requests: () => number,
	path: string,
): Promise<void> {
	expect(view.contentEl.querySelector(".ora-error")?.textContent).toContain("ECONNREFUSED");
	await view.sidecarReady();
	expect(requests()).toBe(2);
	expect(view.contentEl.querySelector(".ora-error")).toBeNull();
	expect(view.contentEl.querySelector(".ora-result-path")?.textContent).toBe(path);
	await view.sidecarReady();
	expect(requests()).toBe(2);
}
