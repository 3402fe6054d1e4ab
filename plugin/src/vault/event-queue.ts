import type { VaultEvent } from "../api/types";

/**
 * Collects vault events between flushes and folds each file's history into the one event the
 * sidecar needs: modify×N → modified; create then modify → created; create then delete → nothing;
 * rename a→b then b→c → a→c; modify then rename → renamed + modified.
 */
export class EventQueue {
	/** Current path → pending state, in first-seen order. */
	private readonly pending = new Map<string, Pending>();

	get size(): number {
		return this.pending.size;
	}

	push(event: VaultEvent): void {
		if (event.kind === "renamed" && event.old_path !== undefined) {
			this.rename(event.old_path, event.path);
			return;
		}
		const prior = this.pending.get(event.path);
		if (event.kind === "created") {
			// A delete then a create of the same path is a change of content.
			this.pending.set(event.path, prior?.deleted ? { ...prior, deleted: false, modified: true } : { created: true });
		} else if (event.kind === "modified") {
			this.pending.set(event.path, { ...prior, modified: true });
		} else if (event.kind === "deleted") {
			if (prior?.created) this.pending.delete(event.path);
			else this.pending.set(event.path, { origin: prior?.origin, deleted: true });
		}
	}

	/** Takes every pending event, in the order the sidecar should apply them. */
	drain(): VaultEvent[] {
		const out: VaultEvent[] = [];
		for (const [path, state] of this.pending) {
			if (state.deleted) {
				out.push({ kind: "deleted", path: state.origin ?? path });
				continue;
			}
			if (state.created) {
				out.push({ kind: "created", path });
				continue;
			}
			if (state.origin !== undefined && state.origin !== path) {
				out.push({ kind: "renamed", path, old_path: state.origin });
			}
			if (state.modified) out.push({ kind: "modified", path });
		}
		this.pending.clear();
		return out;
	}

	private rename(from: string, to: string): void {
		const prior = this.pending.get(from) ?? {};
		this.pending.delete(from);
		if (prior.created) {
			this.pending.set(to, { created: true });
			return;
		}
		this.pending.set(to, { ...prior, origin: prior.origin ?? from, deleted: false });
	}
}

interface Pending {
	/** The path the sidecar knows this file by, when it was renamed since the last flush. */
	origin?: string;
	created?: boolean;
	modified?: boolean;
	deleted?: boolean;
}
