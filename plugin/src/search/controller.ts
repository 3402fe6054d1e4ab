import type { SearchDocument, SearchRequest } from "../api/types";
import { debounce, live, type Debounced, type Live } from "../util/debounce";
import { groupByNote } from "./group";
import { mergeChips, NO_CHIPS, parseQuery, toFilters, type FilterChips } from "./query";
import { shapeResults, withoutPrivate, type ResultList } from "./shape";

export interface SearchOptions {
	private: boolean;
	includeArchived: boolean;
}

/**
 * What the panel saves across restarts (the view's getState/setState, in workspace.json). Never
 * private mode: a restart (perhaps with someone looking at the screen) starts with it off.
 */
export interface SearchPanelState {
	query: string;
	includeArchived: boolean;
	chips: FilterChips;
}

/**
 * Everything the search panel can be showing; errors are values here, not exceptions. While a
 * new query runs, shown results stay on screen marked `pending` instead of being wiped.
 * `refreshed`: the same search's list again (run again for a changed note, a deleted note's row
 * dropped), so the panel keeps the row the keyboard is on.
 */
export type SearchState =
	| { kind: "idle" }
	| { kind: "loading"; query: string }
	| { kind: "error"; query: string; message: string }
	| { kind: "empty"; query: string; indexingNote: string | null }
	| { kind: "results"; query: string; list: ResultList; pending?: boolean; refreshed?: boolean };

export interface SearchControllerOptions {
	search: (request: SearchRequest) => Promise<SearchDocument>;
	onState: (state: SearchState) => void;
	/** Live: the settings may change while the panel is open. */
	delayMs: Live<number>;
	k: Live<number>;
	/** Quiet time after a listed note changed before searching again (the sidecar re-reads it first); 2000 if unset. */
	refreshDelayMs?: Live<number>;
}

/**
 * Search-as-you-type: debounces keystrokes, drops answers that arrive after a newer query was
 * sent (so a slow old answer never replaces a fresh one), and turns failures into an error state.
 */
export class SearchController {
	private query = "";
	private options: SearchOptions = { private: false, includeArchived: false };
	private chips: FilterChips = { ...NO_CHIPS };
	private sequence = 0;
	/** The box holds words typed in private mode: never saved, even once private mode is off, until it is emptied. */
	private typedInPrivate = false;
	private shown: SearchState = { kind: "idle" };
	private readonly scheduled: Debounced<[]>;
	/** Searches again after a listed note changed; a search the user's typing schedules does it anyway. */
	private readonly refreshSoon: Debounced<[]>;
	private readonly gone = new GoneNotes();

	constructor(private readonly config: SearchControllerOptions) {
		this.scheduled = debounce(() => void this.run(), config.delayMs);
		this.refreshSoon = debounce(() => {
			if (!this.scheduled.pending) void this.run(true);
		}, config.refreshDelayMs ?? 2000);
	}

	/**
	 * A listed note changed (edited, or tagged private): the search runs again once the sidecar
	 * has re-read it, the list kept meanwhile, so a passage no longer there or a note now private
	 * does not stay shown until the next search.
	 */
	changed(path: string): void {
		const shown = this.shown;
		if (shown.kind === "results" && listsNote(shown.list, path)) this.refreshSoon();
	}

	/** A note was deleted: its rows go at once (an answer asked before leaves it out too), and the search runs again. */
	removed(path: string): void {
		this.gone.add(path);
		const shown = this.shown;
		if (shown.kind !== "results" || !listsNote(shown.list, path)) return;
		const list = this.gone.filter(shown.list);
		this.emit(list.cards.length ? { ...shown, list, refreshed: true } : { kind: "loading", query: shown.query });
		this.refreshSoon();
	}

	/** A note was created: a path deleted before may be a note again. */
	created(path: string): void {
		this.gone.delete(path);
	}

	/** A note was renamed or moved: its row goes from the old path, and the search finds it under the new one. */
	renamed(oldPath: string, path: string): void {
		this.created(path);
		this.removed(oldPath);
	}

	setQuery(query: string): void {
		this.query = query;
		if (this.options.private) this.typedInPrivate = true;
		if (query.trim() === "") {
			this.typedInPrivate = false;
			this.scheduled.cancel();
			this.refreshSoon.cancel();
			this.sequence++;
			this.emit({ kind: "idle" });
			return;
		}
		this.scheduled();
	}

	setOptions(change: Partial<SearchOptions>): void {
		const leavingPrivate = this.options.private && change.private === false;
		this.options = { ...this.options, ...change };
		if (leavingPrivate) this.hidePrivate();
		if (this.query.trim() !== "") this.scheduled();
	}

	/** Private mode is off: no answer asked in it may still land, and no private note stays shown. */
	private hidePrivate(): void {
		this.sequence++;
		const shown = this.shown;
		if (shown.kind !== "results") return;
		const list = withoutPrivate(shown.list);
		this.emit(list.cards.length ? { ...shown, list, pending: true } : { kind: "loading", query: shown.query });
	}

	/** Replaces the filter chips (the panel's, not the query box's prefixes). */
	setChips(chips: FilterChips): void {
		this.chips = chips;
		if (this.query.trim() !== "") this.scheduled();
	}

	/**
	 * The panel to save. A query typed in private mode is not saved (like private conversations'
	 * titles), nor, once private mode is off, is it or an edit of it until the box is emptied.
	 */
	snapshot(): SearchPanelState {
		const unsaved = this.options.private || this.typedInPrivate;
		return { query: unsaved ? "" : this.query, includeArchived: this.options.includeArchived, chips: this.chips };
	}

	/** Restores a saved panel without searching; the caller decides when to run. Private mode stays as it is. */
	restore(state: SearchPanelState): void {
		this.query = state.query;
		this.typedInPrivate = false;
		this.options = { ...this.options, includeArchived: state.includeArchived };
		this.chips = state.chips;
	}

	/**
	 * The sidecar has become ready (at start-up, after a reconnect): a query that failed because
	 * it was not there yet runs again; shown results are left alone.
	 */
	retry(): Promise<void> {
		if (this.shown.kind !== "error" || this.scheduled.pending) return Promise.resolve();
		return this.runNow();
	}

	/** Runs the pending (or current) query now, e.g. on Enter. */
	runNow(): Promise<void> {
		this.scheduled.cancel();
		this.refreshSoon.cancel();
		return this.run();
	}

	dispose(): void {
		this.scheduled.cancel();
		this.refreshSoon.cancel();
		this.sequence++;
	}

	private emit(state: SearchState): void {
		this.shown = state;
		this.config.onState(state);
	}

	/**
	 * Searches for the query. A `refresh` (the same search again, for a changed note) leaves the
	 * list as it is until the answer, and then only when the answer differs, so nothing redraws
	 * under the user (their selection kept) for an edit that changed no result.
	 */
	private async run(refresh = false): Promise<void> {
		const query = this.query.trim();
		if (query === "") return;
		const parsed = parseQuery(query);
		const mine = ++this.sequence;
		if (parsed.text === "") {
			this.emit({ kind: "error", query, message: "Add words to search for after the filters." });
			return;
		}
		const shown = this.shown;
		if (!refresh) this.emit(shown.kind === "results" ? { ...shown, pending: true, refreshed: false } : { kind: "loading", query });
		let next: SearchState;
		try {
			const filters = toFilters(mergeChips(this.chips, parsed.chips));
			const doc = await this.config.search({
				query: parsed.text,
				k: live(this.config.k),
				private: this.options.private,
				include_archived: this.options.includeArchived,
				...(filters ? { filters } : {}),
			});
			const list = this.gone.filter(shapeResults(doc, parsed.text));
			next = list.cards.length
				? { kind: "results", query, list, refreshed: refresh }
				: { kind: "empty", query, indexingNote: list.indexingNote };
		} catch (err) {
			next = { kind: "error", query, message: err instanceof Error ? err.message : String(err) };
		}
		if (mine !== this.sequence || (refresh && sameResults(this.shown, next))) return;
		this.emit(next);
	}
}

/** Whether `next` shows what `shown` does, as it is (not pending): nothing to redraw. */
function sameResults(shown: SearchState, next: SearchState): boolean {
	return shown.kind === "results" && next.kind === "results" && !shown.pending && shown.query === next.query && JSON.stringify(shown.list) === JSON.stringify(next.list);
}

/** Keyboard selection over `count` results: arrows move and stop at the ends; -1 is none. */
export function moveSelection(current: number, delta: number, count: number): number {
	if (count === 0) return -1;
	if (current < 0) return delta > 0 ? 0 : count - 1;
	return Math.min(count - 1, Math.max(0, current + delta));
}

/** Obsidian spells paths NFC; the sidecar reports names as they are on disk (often decomposed on macOS). */
function samePath(path: string): string {
	return path.normalize("NFC");
}

/** Whether `list` shows a passage of the note at `path`. */
export function listsNote(list: ResultList, path: string): boolean {
	const wanted = samePath(path);
	return list.cards.some((card) => samePath(card.path) === wanted);
}

/**
 * Notes deleted (or moved away) while a panel was open. An answer can name one after the
 * deletion: it was asked before, or the sidecar had not yet heard of it (vault events are
 * batched); such rows are left out, until a note is created at that path again.
 */
export class GoneNotes {
	private readonly paths = new Set<string>();

	add(path: string): void {
		this.paths.add(samePath(path));
	}

	delete(path: string): void {
		this.paths.delete(samePath(path));
	}

	/** The list without the rows of gone notes (the same list when it has none). */
	filter(list: ResultList): ResultList {
		if (!list.cards.some((card) => this.paths.has(samePath(card.path)))) return list;
		const cards = list.cards.filter((card) => !this.paths.has(samePath(card.path)));
		return { ...list, cards, groups: groupByNote(cards) };
	}
}
