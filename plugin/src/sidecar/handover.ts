/**
 * Sidecars being stopped by a session of the plugin that is unloading, by vault. Disabling then
 * enabling the plugin loads its code again (a new module), so the record lives on the
 * window under a global symbol: the new session waits for the old one's sidecar to exit before looking for one, instead
 * of attaching to a sidecar that is about to go (it still answers while it shuts down).
 */
const KEY = Symbol.for("ora-vault.sidecars-stopping");

type Registry = Map<string, Promise<void>>;

function registry(host: object): Registry {
	const slot = host as { [KEY]?: Registry };
	return (slot[KEY] ??= new Map<string, Promise<void>>());
}

/** Records that the sidecar of `vault` is being stopped until `done` settles. */
export function markStopping(vault: string, done: Promise<unknown>, host: object = window): void {
	const stopping = registry(host);
	const settled: Promise<void> = done.then(
		() => undefined,
		() => undefined,
	);
	stopping.set(vault, settled);
	void settled.then(() => {
		if (stopping.get(vault) === settled) stopping.delete(vault);
	});
}

/** Resolves once no sidecar of `vault` is being stopped (at once when none is). */
export async function stoppedBefore(vault: string, host: object = window): Promise<void> {
	await registry(host).get(vault);
}
