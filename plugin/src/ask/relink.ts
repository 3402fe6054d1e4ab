import type { ConversationNote, VaultEvent } from "../api/types";

/** A note carrying a conversation: Ora's chat note, `type: chat` with `conversation` and `namespace` in its frontmatter. */
export interface CarriedConversation {
	path: string;
	conversation: string;
	namespace: string;
}

/** The conversation a note's frontmatter carries, or null when it is not a chat note (the sidecar's own test, `memory/chat_note.py`). */
export function carriedConversation(path: string, frontmatter: Readonly<Record<string, unknown>> | null | undefined): CarriedConversation | null {
	const { type, conversation, namespace } = frontmatter ?? {};
	if (type !== "chat" || typeof conversation !== "string" || typeof namespace !== "string") return null;
	return { path, conversation, namespace };
}

/**
 * The moves to report (as `renamed` events) so that each conversation whose chat note is gone from
 * where the sidecar last saw it follows the note that carries its id: moved or renamed while
 * Obsidian was closed, no rename event ever told the sidecar. A conversation whose note is still
 * there, or is carried by no note (deleted), is left alone; of several copies the first path counts,
 * as in the sidecar's own sync.
 */
export function chatNoteMoves(links: readonly ConversationNote[], exists: (path: string) => boolean, notes: readonly CarriedConversation[]): VaultEvent[] {
	const linked = new Set(links.map((l) => l.note));
	const moves: VaultEvent[] = [];
	for (const link of links) {
		if (exists(link.note)) continue;
		const found = notes
			.filter((n) => n.conversation === link.conversation && n.namespace === link.namespace && !linked.has(n.path))
			.map((n) => n.path)
			.sort()[0];
		if (found !== undefined) {
			moves.push({ kind: "renamed", path: found, old_path: link.note });
			linked.add(found);
		}
	}
	return moves;
}
