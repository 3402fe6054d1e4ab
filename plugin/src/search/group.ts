/** One row of the panel: a note, its best passage, and its other passages folded under it. */
export interface NoteGroup<Card extends { path: string }> {
	path: string;
	best: Card;
	others: Card[];
}

/**
 * Groups cards by note in the order of each note's best card (the sidecar returns them best
 * first), so a note found through several chunks shows once, at the rank of its best chunk.
 */
export function groupByNote<Card extends { path: string }>(cards: readonly Card[]): NoteGroup<Card>[] {
	const groups = new Map<string, NoteGroup<Card>>();
	for (const card of cards) {
		const group = groups.get(card.path);
		if (group) group.others.push(card);
		else groups.set(card.path, { path: card.path, best: card, others: [] });
	}
	return [...groups.values()];
}
