import type { SearchDocument, SearchRequest } from "../api/types";
import { groupByNote, type NoteGroup } from "../search/group";
import { parseQuery, toFilters } from "../search/query";
import { type ResultCard, shapeResults } from "../search/shape";

/** What a chosen suggestion does, from the keys held (Obsidian's quick-switcher conventions). */
export type QuickAction = "open" | "open-new-tab" | "insert-link";

export function quickAction(evt: { ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean; button?: number }): QuickAction {
	if (evt.altKey) return "insert-link";
	if (evt.ctrlKey || evt.metaKey || evt.button === 1) return "open-new-tab";
	return "open";
}

export interface QuickSearchOptions {
	search: (request: SearchRequest) => Promise<SearchDocument>;
	k: number;
	delayMs: number;
	privateMode: () => boolean;
	/** Called when a search fails, so the modal can say why instead of showing nothing. */
	onError: (message: string) => void;
	/** Called with each answer's indexing note ("Searching by words; meaning-based search 42 %
	 * ready"), or null once the index is complete, so partial results are said to be partial. */
	onIndexing: (note: string | null) => void;
}

/**
 * Suggestions for the quick-search modal: waits for typing to pause, asks the sidecar (with the
 * same `type:`/`path:`/`tag:` prefixes as the panel), and answers a superseded keystroke with the
 * list already shown, so a slow old answer never replaces a newer one.
 */
export class QuickSearch {
	private sequence = 0;
	private shown: NoteGroup<ResultCard>[] = [];

	constructor(private readonly options: QuickSearchOptions) {}

	/** The list shown now: the answer while an input method composes, whose reading is no query. */
	get current(): NoteGroup<ResultCard>[] {
		return this.shown;
	}

	async suggestions(input: string): Promise<NoteGroup<ResultCard>[]> {
		const mine = ++this.sequence;
		const parsed = parseQuery(input);
		if (parsed.text === "") {
			this.shown = [];
			return [];
		}
		await new Promise((ok) => window.setTimeout(ok, this.options.delayMs));
		if (mine !== this.sequence) return this.shown;
		try {
			const filters = toFilters(parsed.chips);
			const doc = await this.options.search({
				query: parsed.text,
				k: this.options.k,
				private: this.options.privateMode(),
				...(filters ? { filters } : {}),
			});
			if (mine !== this.sequence) return this.shown;
			const list = shapeResults(doc, parsed.text);
			this.options.onIndexing(list.indexingNote);
			this.shown = groupByNote(list.cards);
		} catch (err) {
			if (mine !== this.sequence) return this.shown;
			this.shown = [];
			this.options.onError(err instanceof Error ? err.message : String(err));
		}
		return this.shown;
	}
}
