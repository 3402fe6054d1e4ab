import documents from "../../../schema/documents.json";

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

/** File extensions (no dot) of the documents the sidecar indexes, `schema/documents.json`. */
export const DOCUMENT_EXTENSIONS: ReadonlySet<string> = new Set(Object.keys(documents.formats).map((e) => e.slice(1)));

/** The formats "Process document into notes" offers to: those with pages or read by the converter. */
export const PROCESSABLE: ReadonlySet<string> = new Set(
	Object.entries(documents.formats)
		.filter(([, format]) => documents.paged.includes(format) || documents.needs_converter.includes(format))
		.map(([ext]) => ext.slice(1)),
);

/** Whether a vault file is one the sidecar indexes (a note or a document): its changes are sent. */
export function isIndexed(extension: string): boolean {
	const ext = extension.toLowerCase();
	return ext === "md" || DOCUMENT_EXTENSIONS.has(ext);
}
