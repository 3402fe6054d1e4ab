/** Pairs shown per page: a vault with hundreds of open pairs stays quick to draw and to scroll. */
export const PAGE_SIZE = 20;

/** One page of a list: which items it shows, in words, and whether there are pages around it. */
export interface Page {
	/** The page shown, 0-based, clamped to the pages there are. */
	index: number;
	pages: number;
	start: number;
	end: number;
	/** "Pairs 21–40 of 500". */
	label: string;
}

export function pageOf(total: number, wanted: number, size = PAGE_SIZE): Page {
	const pages = Math.max(1, Math.ceil(total / size));
	const index = Math.min(Math.max(0, wanted), pages - 1);
	const start = index * size;
	const end = Math.min(total, start + size);
	return { index, pages, start, end, label: total === 0 ? "No pairs" : `Pairs ${start + 1}–${end} of ${total}` };
}

/** Whether a resolution writes a note (and so is confirmed first): dismissing or flagging writes none. */
export function changesNotes(action: string): boolean {
	return action === "changed-mind" || action === "wrong";
}
