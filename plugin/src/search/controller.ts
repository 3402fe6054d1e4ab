import type { SearchDocument, SearchRequest } from "../api/types";
import { debounce, type Debounced } from "../util/debounce";
import { shapeResults, type ResultList } from "./shape";

export interface SearchOptions {
	private: boolean;
	includeArchived: boolean;
}

/** Everything the search panel can be showing; errors are values here, not exceptions. */
export type SearchState =
	| { kind: "idle" }
	| { kind: "loading"; query: string }
	| { kind: "error"; query: string; message: string }
	| { kind: "empty"; query: string; indexingNote: string | null }
	| { kind: "results"; query: string; list: ResultList };

export interface SearchControllerOptions {
	search: (request: SearchRequest) => Promise<SearchDocument>;
	onState: (state: SearchState) => void;
	delayMs: number;
	k: number;
}

/**
 * Search-as-you-type: debounces keystrokes, drops answers that arrive after a newer query was
 * sent (so a slow old answer never replaces a fresh one), and turns failures into an error state.
 */
export class SearchController {
	private query = "";
	private options: SearchOptions = { private: false, includeArchived: false };
	private sequence = 0;
	private readonly scheduled: Debounced<[]>;

	constructor(private readonly config: SearchControllerOptions) {
		this.scheduled = debounce(() => void this.run(), config.delayMs);
	}

	setQuery(query: string): void {
		this.query = query;
		if (query.trim() === "") {
			this.scheduled.cancel();
			this.sequence++;
			this.config.onState({ kind: "idle" });
			return;
		}
		this.scheduled();
	}

	setOptions(change: Partial<SearchOptions>): void {
		this.options = { ...this.options, ...change };
		if (this.query.trim() !== "") this.scheduled();
	}

	/** Runs the pending (or current) query now, e.g. on Enter. */
	runNow(): Promise<void> {
		this.scheduled.cancel();
		return this.run();
	}

	dispose(): void {
		this.scheduled.cancel();
		this.sequence++;
	}

	private async run(): Promise<void> {
		const query = this.query.trim();
		if (query === "") return;
		const mine = ++this.sequence;
		this.config.onState({ kind: "loading", query });
		let next: SearchState;
		try {
			const doc = await this.config.search({
				query,
				k: this.config.k,
				private: this.options.private,
				include_archived: this.options.includeArchived,
			});
			const list = shapeResults(doc, query);
			next = list.cards.length
				? { kind: "results", query, list }
				: { kind: "empty", query, indexingNote: list.indexingNote };
		} catch (err) {
			next = { kind: "error", query, message: err instanceof Error ? err.message : String(err) };
		}
		if (mine === this.sequence) this.config.onState(next);
	}
}

/** Keyboard selection over `count` results: arrows move and stop at the ends; -1 is none. */
export function moveSelection(current: number, delta: number, count: number): number {
	if (count === 0) return -1;
	if (current < 0) return delta > 0 ? 0 : count - 1;
	return Math.min(count - 1, Math.max(0, current + delta));
}
