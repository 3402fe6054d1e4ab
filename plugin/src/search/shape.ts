import type { SearchDocument, SearchResult, Why } from "../api/types";
import { groupByNote, type NoteGroup } from "./group";
import { highlight, queryTerms, snippet, type Segment } from "./highlight";
import { markdownToPlain } from "./plain";

export type BadgeKind = "incubating" | "private" | "archived";

/** One search result, ready to draw: every string the view shows is decided here. */
export interface ResultCard {
	path: string;
	title: string;
	type: string;
	/** The type came from the vault's folder rules, not from the note itself. */
	typeInferred: boolean;
	headingPath: string;
	snippet: Segment[];
	score: string;
	badges: BadgeKind[];
	/** Lines of the "why" tooltip: ranks, weights and decay. */
	why: string[];
	lineStart: number | null;
	lineEnd: number | null;
	/** A document's page and the link that opens it there (`search/place.ts`). */
	page: number | null;
	link: string | null;
}

export interface ResultList {
	cards: ResultCard[];
	/** The cards by note, one row each, best note first. */
	groups: NoteGroup<ResultCard>[];
	/** e.g. "Re-ranked by onnx:ms-marco-MiniLM-L-6-v2" or "Not re-ranked: no model". */
	rerankNote: string;
	/** "Indexing 42 %…" while the vault is still being indexed, else null. */
	indexingNote: string | null;
}

const BADGE_FLAGS: readonly BadgeKind[] = ["incubating", "archived"];

export function shapeResults(doc: SearchDocument, query: string = doc.query): ResultList {
	const terms = queryTerms(query);
	const cards = doc.results.map((r) => shapeResult(r, terms));
	return { cards, groups: groupByNote(cards), rerankNote: rerankNote(doc), indexingNote: indexingNote(doc) };
}

/** The list without the cards of private notes (private mode was just switched off). */
export function withoutPrivate(list: ResultList): ResultList {
	const cards = list.cards.filter((c) => !c.badges.includes("private"));
	return { ...list, cards, groups: groupByNote(cards) };
}

/** "Indexing 42 %: results come from the notes indexed so far" while notes are read; once every
 * note is findable by its words and embedding follows, "Searching by words; meaning-based search
 * 42 % ready". */
export function indexingNote(doc: SearchDocument): string | null {
	if (!doc.indexing) return null;
	if (doc.indexing.phase === "meaning") return `Searching by words; meaning-based search ${doc.indexing.percent} % ready`;
	return `Indexing ${doc.indexing.percent} %: results come from the notes indexed so far`;
}

export function shapeResult(result: SearchResult, terms: string[]): ResultCard {
	const badges: BadgeKind[] = BADGE_FLAGS.filter((flag) => result.flags.includes(flag));
	if (result.private || result.flags.includes("private")) badges.push("private");
	return {
		path: result.path,
		title: result.title?.trim() || titleFromPath(result.path),
		type: result.type,
		typeInferred: result.type_inferred === true,
		headingPath: (result.heading_path ?? []).join(" › "),
		snippet: highlight(snippet(markdownToPlain(result.text), terms), terms),
		score: result.score.toFixed(2),
		badges,
		why: [...whyLines(result.why), ...copiesLines(result.duplicates ?? [])],
		lineStart: result.line_start,
		lineEnd: result.line_end,
		page: result.page ?? null,
		link: result.link ?? null,
	};
}

/** The note's file name without folders or extension. */
export function titleFromPath(path: string): string {
	const name = path.split("/").pop() ?? path;
	return name.replace(/\.md$/i, "");
}

export function whyLines(why: Partial<Why>): string[] {
	const lines = [
		`Dense rank: ${rank(why.dense_rank)}`,
		`Keyword rank: ${rank(why.bm25_rank)}`,
		`Fused score: ${num(why.fused, 4)}`,
		`Re-rank: ${num(why.rerank, 3)}`,
		`Similarity: ${num(why.similarity, 3)}`,
		`Type weight: ${num(why.type_weight, 2)}`,
		`Decay: ${num(why.decay, 2)}${newer(why.newer_in_cluster)}`,
	];
	if (why.cluster) lines.push(`Cluster: ${why.cluster}`);
	if (why.linked) lines.push("Linked with this note");
	if (why.phrase) lines.push("Holds your words as you wrote them");
	return lines;
}

/** Copies named by note in the tooltip (the search document lists them all). */
const COPIES_NAMED = 3;

/** "Same text in 6 other notes: 2024-04-22, 2024-04-23, 2024-04-24 and 3 more", or nothing. */
export function copiesLines(paths: string[]): string[] {
	if (paths.length === 0) return [];
	const named = paths.slice(0, COPIES_NAMED).map(titleFromPath).join(", ");
	const more = paths.length > COPIES_NAMED ? ` and ${paths.length - COPIES_NAMED} more` : "";
	const notes = paths.length === 1 ? "1 other note" : `${paths.length} other notes`;
	return [`Same text in ${notes}: ${named}${more}`];
}

function rerankNote(doc: SearchDocument): string {
	if (!doc.rerank || doc.rerank === "none") {
		return doc.rerank_reason ? `Not re-ranked: ${doc.rerank_reason}` : "Not re-ranked";
	}
	return `Re-ranked by ${doc.rerank}`;
}

function rank(value: number | null | undefined): string {
	return typeof value === "number" ? `#${value}` : "not in list";
}

function num(value: number | null | undefined, digits: number): string {
	return typeof value === "number" ? value.toFixed(digits) : "–";
}

function newer(count: number | undefined): string {
	if (!count) return "";
	return count === 1 ? " (1 newer note in cluster)" : ` (${count} newer notes in cluster)`;
}
