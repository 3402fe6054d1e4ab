import { ItemView, type WorkspaceLeaf } from "obsidian";

import type { SidecarClient } from "../api/client";
import { moveSelection, SearchController, type SearchState } from "../search/controller";
import type { ResultCard } from "../search/shape";
import { renderSearchState } from "./search-render";

export const SEARCH_VIEW_TYPE = "ora-vault-search";

export interface SearchViewDeps {
	client: () => SidecarClient;
	delayMs: number;
	k: number;
	open: (card: ResultCard) => Promise<void>;
}

/** The right-sidebar search panel. State lives in SearchController; this only draws and listens. */
export class SearchView extends ItemView {
	private controller: SearchController | null = null;
	private input: HTMLInputElement | null = null;
	private resultsEl: HTMLElement | null = null;
	private items: HTMLElement[] = [];
	private cards: ResultCard[] = [];
	private selected = -1;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly deps: SearchViewDeps,
	) {
		super(leaf);
	}

	getViewType(): string {
		return SEARCH_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Ora search";
	}

	override getIcon(): string {
		return "search";
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("ora-search-view");
		const bar = root.createDiv({ cls: "ora-search-bar" });
		this.input = bar.createEl("input", {
			cls: "ora-search-input",
			attr: { type: "search", placeholder: "Search your vault…", "aria-label": "Search query" },
		});
		const toggles = root.createDiv({ cls: "ora-search-toggles" });
		const privateToggle = checkbox(toggles, "Private mode");
		const archivedToggle = checkbox(toggles, "Include archived");
		this.resultsEl = root.createDiv({ cls: "ora-search-results" });

		const controller = new SearchController({
			search: (request) => this.deps.client().search(request),
			onState: (state) => this.show(state),
			delayMs: this.deps.delayMs,
			k: this.deps.k,
		});
		this.controller = controller;
		this.registerDomEvent(this.input, "input", () => controller.setQuery(this.input?.value ?? ""));
		this.registerDomEvent(this.input, "keydown", (evt) => this.onKey(evt));
		this.registerDomEvent(privateToggle, "change", () => controller.setOptions({ private: privateToggle.checked }));
		this.registerDomEvent(archivedToggle, "change", () =>
			controller.setOptions({ includeArchived: archivedToggle.checked }),
		);
		this.show({ kind: "idle" });
		this.input.focus();
	}

	override async onClose(): Promise<void> {
		this.controller?.dispose();
		this.controller = null;
	}

	/** Puts `query` in the box and searches at once (used by the command with a selection). */
	async searchFor(query: string): Promise<void> {
		if (!this.input || !this.controller) return;
		this.input.value = query;
		this.controller.setQuery(query);
		await this.controller.runNow();
	}

	focusInput(): void {
		this.input?.focus();
	}

	private show(state: SearchState): void {
		if (!this.resultsEl) return;
		this.cards = state.kind === "results" ? state.list.cards : [];
		this.items = renderSearchState(this.resultsEl, state, (card) => void this.deps.open(card));
		this.select(-1);
	}

	private onKey(evt: KeyboardEvent): void {
		if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
			evt.preventDefault();
			this.select(moveSelection(this.selected, evt.key === "ArrowDown" ? 1 : -1, this.items.length));
		} else if (evt.key === "Enter") {
			evt.preventDefault();
			const card = this.cards[this.selected];
			if (card) void this.deps.open(card);
			else void this.controller?.runNow();
		}
	}

	private select(index: number): void {
		this.items[this.selected]?.removeClass("is-selected");
		this.selected = index;
		const item = this.items[index];
		if (!item) return;
		item.addClass("is-selected");
		item.scrollIntoView({ block: "nearest" });
	}
}

function checkbox(parent: HTMLElement, label: string): HTMLInputElement {
	const wrap = parent.createEl("label", { cls: "ora-toggle" });
	const input = wrap.createEl("input", { attr: { type: "checkbox" } });
	wrap.appendText(label);
	return input;
}
