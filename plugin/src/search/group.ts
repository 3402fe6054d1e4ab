import type { ResultCard } from "./shape";

/** One row of the panel: a note, its best passage, and its other passages folded under it. */
export interface NoteGroup {
	path: string;
	best: ResultCard;
	others: ResultCard[];
}

/**
 * Groups cards by note in the order of each note's best card (the sidecar returns them best
 * first), so a note found through several chunks shows once, at the rank of its best chunk.
 */
export function groupByNote(cards: readonly ResultCard[]): NoteGroup[] {
	const groups = new Map<string, NoteGroup>();
	for (const card of cards) {
		const group = groups.get(card.path);
		if (group) group.others.push(card);
		else groups.set(card.path, { path: card.path, best: card, others: [] });
	}
	return [...groups.values()];
}
