/** A debounced function: calls land `wait` ms after the last one, with the last arguments. */
export interface Debounced<A extends unknown[]> {
	(...args: A): void;
	/** Runs a pending call now. */
	flush(): void;
	/** Drops a pending call. */
	cancel(): void;
	readonly pending: boolean;
}

/** A setting read when it is used: a number, or a function giving its current value. */
export type Live<T> = T | (() => T);

export function live<T extends number | string | boolean>(value: Live<T>): T {
	return typeof value === "function" ? value() : value;
}

/** `wait` may be live (a setting): each call waits as long as it says then. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, wait: Live<number>): Debounced<A> {
	let timer: number | null = null;
	let last: A | null = null;

	const run = (): void => {
		timer = null;
		const args = last;
		last = null;
		if (args) fn(...args);
	};

	const debounced = (...args: A): void => {
		last = args;
		if (timer !== null) window.clearTimeout(timer);
		timer = window.setTimeout(run, live(wait));
	};
	debounced.flush = (): void => {
		if (timer !== null) window.clearTimeout(timer);
		run();
	};
	debounced.cancel = (): void => {
		if (timer !== null) window.clearTimeout(timer);
		timer = null;
		last = null;
	};
	Object.defineProperty(debounced, "pending", { get: () => timer !== null });
	return debounced as Debounced<A>;
}
