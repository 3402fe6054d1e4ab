import { SuggestModal, type App } from "obsidian";

import type { SidecarClient } from "../api/client";
import { quickAction, QuickSearch, type QuickAction } from "../quick/suggest";
import type { NoteGroup } from "../search/group";
import { placeLabel } from "../search/place";
import type { ResultCard } from "../search/shape";
import { watchComposition } from "../util/ime";

export interface QuickSearchDeps {
	client: () => SidecarClient;
	k: number;
	delayMs: number;
	privateMode: () => boolean;
	/** Opens, opens in a new tab, or inserts a link to the chosen note. */
	choose: (card: ResultCard, action: QuickAction) => Promise<void>;
	/** Tab: continue in the search panel with the same query. */
	toPanel: (query: string) => Promise<void>;
}

const FLAG_TEXT: Record<string, string> = { incubating: "Incubating", private: "Private", archived: "Archived" };

/** Keyboard-first search as you type: one row per note with its type, flags and cited lines. */
export class QuickSearchModal extends SuggestModal<NoteGroup<ResultCard>> {
	private readonly quick: QuickSearch;
	/** Above the suggestions while the sidecar indexes: how far, and what search covers so far. */
	private indexingEl: HTMLElement | null = null;
	/** An input method's composition under way: its reading ("nihon") is not searched. */
	private readonly ime: { readonly active: boolean };

	constructor(
		app: App,
		private readonly deps: QuickSearchDeps,
	) {
		super(app);
		this.quick = new QuickSearch({
			search: (request) => deps.client().search(request),
			k: deps.k,
			delayMs: deps.delayMs,
			privateMode: deps.privateMode,
			onError: (message) => (this.emptyStateText = `${message} Edit the query to try again.`),
			onIndexing: (note) => this.showIndexing(note),
		});
		this.limit = deps.k;
		// The picked word is searched as if typed: the modal updates on input events.
		this.ime = watchComposition(
			(type, handler) => this.inputEl.addEventListener(type, handler),
			() => this.inputEl.dispatchEvent(new Event("input")),
		);
		this.emptyStateText = "No results.";
		this.setPlaceholder("Search your vault by meaning… (type: path: tag: filter)");
		this.setInstructions([
			{ command: "↵", purpose: "to open at the cited lines" },
			{ command: "Ctrl ↵", purpose: "to open in a new tab" },
			{ command: "Alt ↵", purpose: "to insert a link" },
			{ command: "Tab", purpose: "to continue in the search panel" },
		]);
		const choose = (evt: KeyboardEvent) => {
			this.selectActiveSuggestion(evt);
			return false;
		};
		this.scope.register(["Mod"], "Enter", choose);
		this.scope.register(["Alt"], "Enter", choose);
		this.scope.register([], "Tab", () => {
			const query = this.inputEl.value;
			this.close();
			void deps.toPanel(query);
			return false;
		});
	}

	getSuggestions(query: string): Promise<NoteGroup<ResultCard>[]> {
		if (this.ime.active) return Promise.resolve(this.quick.current);
		this.emptyStateText = query.trim() === "" ? "Type to search your vault." : "No results.";
		return this.quick.suggestions(query);
	}

	private showIndexing(note: string | null): void {
		this.indexingEl?.remove();
		this.indexingEl = null;
		if (note === null) return;
		this.indexingEl = this.modalEl.createDiv({ cls: "ora-indexing-note ora-quick-indexing", text: note });
		this.resultContainerEl.before(this.indexingEl);
	}

	renderSuggestion(group: NoteGroup<ResultCard>, el: HTMLElement): void {
		const card = group.best;
		el.addClass("ora-quick-item");
		const head = el.createDiv({ cls: "ora-result-head" });
		head.createSpan({ cls: "ora-result-title", text: card.title });
		head.createSpan({ cls: `ora-badge ora-type ora-type-${card.type}`, text: card.type });
		for (const badge of card.badges) head.createSpan({ cls: `ora-badge ora-flag ora-flag-${badge}`, text: FLAG_TEXT[badge] ?? badge });
		const where = el.createDiv({ cls: "ora-result-where" });
		where.createSpan({ cls: "ora-result-path", text: card.path });
		where.createSpan({ cls: "ora-result-lines", text: ` · ${placeLabel(card)}` });
		if (group.others.length) where.createSpan({ cls: "ora-result-more", text: ` · +${group.others.length} more` });
		const text = el.createDiv({ cls: "ora-snippet" });
		for (const segment of card.snippet) {
			if (segment.hit) text.createEl("mark", { cls: "ora-hit", text: segment.text });
			else text.appendText(segment.text);
		}
	}

	onChooseSuggestion(group: NoteGroup<ResultCard>, evt: MouseEvent | KeyboardEvent): void {
		void this.deps.choose(group.best, quickAction(evt));
	}
}
