/** Where a result or citation is: lines of a note, or a page of a document kept in the vault. */
export interface Place {
	path: string;
	lineStart: number | null;
	lineEnd: number | null;
	/** A document's 1-based page (null for a format without pages, or a note). */
	page: number | null;
	/** A document's hit: what Obsidian opens at the page (`paper.pdf#page=7`). */
	link: string | null;
}

/** "PDF", "EPUB"… for a file that is not a note, else null. */
export function fileType(path: string): string | null {
	const dot = path.lastIndexOf(".");
	const ext = dot > path.lastIndexOf("/") ? path.slice(dot + 1).toLowerCase() : "";
	return ext === "" || ext === "md" ? null : ext.toUpperCase();
}

/** "PDF · page 7", "HTML", or "lines 3–9". */
export function placeLabel(place: Place): string {
	const type = fileType(place.path);
	if (type !== null) return place.page ? `${type} · page ${place.page}` : type;
	if (place.lineStart === null) return "";
	return `lines ${place.lineStart}–${place.lineEnd ?? place.lineStart}`;
}

/** The document formats "Process document into notes" offers to (`schema/documents.json`, paged or converted). */
export const PROCESSABLE = new Set(["pdf", "epub", "docx", "pptx"]);
