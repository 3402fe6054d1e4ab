import { ItemView, Keymap, TFile, ToggleComponent, setIcon, type PaneType, type TAbstractFile, type ViewStateResult, type WorkspaceLeaf } from "obsidian";

import type { SidecarClient } from "../api/client";
import type { Live } from "../util/debounce";
import { composing } from "../util/ime";
import { moveSelection, SearchController, type SearchPanelState, type SearchState } from "../search/controller";
import { chipLabels, NO_CHIPS, parseQuery, withoutTyped, type ChipLabel, type FilterChips } from "../search/query";
import type { ResultCard } from "../search/shape";
import { RETRIEVABLE_TYPES } from "../search/vocabulary";
import { markSelected, renderSearchState } from "./search-render";

export const SEARCH_VIEW_TYPE = "ora-vault-search";

export interface SearchViewDeps {
	client: () => SidecarClient;
	/** Live settings: read at each search, so a change applies to an open panel. */
	delayMs: Live<number>;
	k: Live<number>;
	/** Opens a result at its lines; `newLeaf` is Obsidian's answer to "in a new tab?". */
	open: (card: ResultCard, newLeaf: PaneType | boolean) => Promise<void>;
	/** Quiet time after a listed note changed before searching again; the controller's default if unset. */
	refreshDelayMs?: number;
}

/** The right-sidebar search panel. State lives in SearchController; this only draws and listens. */
export class SearchView extends ItemView {
	private controller: SearchController | null = null;
	private input: HTMLInputElement | null = null;
	private chipsEl: HTMLElement | null = null;
	private resultsEl: HTMLElement | null = null;
	private listEl: HTMLElement | null = null;
	private archivedToggle: ToggleComponent | null = null;
	private items: HTMLElement[] = [];
	private cards: ResultCard[] = [];
	private selected = -1;
	private chips: FilterChips = { ...NO_CHIPS };
	private restored: SearchPanelState | null = null;

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
			attr: {
				type: "search",
				placeholder: "Search your vault… (type: path: tag: filter)",
				"aria-label": "Search query",
			},
		});
		const toggles = root.createDiv({ cls: "ora-search-toggles" });
		toggle(toggles, "Private mode", (on) => this.setOption({ private: on }));
		this.archivedToggle = toggle(toggles, "Include archived", (on) => this.setOption({ includeArchived: on }));
		this.chipsEl = root.createDiv({ cls: "ora-chips", attr: { role: "group", "aria-label": "Filters" } });
		this.resultsEl = root.createDiv({ cls: "ora-search-results" });

		const controller = new SearchController({
			search: (request) => this.deps.client().search(request),
			onState: (state) => this.show(state),
			delayMs: this.deps.delayMs,
			k: this.deps.k,
			...(this.deps.refreshDelayMs !== undefined ? { refreshDelayMs: this.deps.refreshDelayMs } : {}),
		});
		this.controller = controller;
		this.watchVault(controller);
		const input = this.input;
		const edited = () => {
			controller.setQuery(input.value);
			this.drawChips();
			this.app.workspace.requestSaveLayout();
		};
		// An input method's reading ("nihon") is searched only once it becomes the word picked.
		this.registerDomEvent(input, "input", (evt) => {
			if (!composing(evt)) edited();
		});
		this.registerDomEvent(input, "compositionend", edited);
		this.registerDomEvent(input, "keydown", (evt) => this.onKey(evt));
		this.registerDomEvent(this.resultsEl, "keydown", (evt) => this.onKey(evt));
		this.drawChips();
		this.show({ kind: "idle" });
		// No focus here: Obsidian opens the panel when it restores the layout too, and taking the
		// focus then would pull it from the note being edited. "Open search panel" focuses it.
		if (this.restored) await this.apply(this.restored);
	}

	override async onClose(): Promise<void> {
		this.controller?.dispose();
		this.controller = null;
	}

	override getState(): Record<string, unknown> {
		const saved = this.controller?.snapshot() ?? this.restored;
		return saved ? { ...saved } : {};
	}

	override async setState(state: unknown, result: ViewStateResult): Promise<void> {
		const saved = panelState(state);
		if (saved) {
			this.restored = saved;
			if (this.controller) await this.apply(saved);
		}
		await super.setState(state, result);
	}

	/** Puts `query` in the box and searches at once (the command with a selection, quick search's Tab). */
	async searchFor(query: string): Promise<void> {
		if (!this.input || !this.controller) return;
		this.input.value = query;
		this.controller.setQuery(query);
		this.drawChips();
		await this.controller.runNow();
	}

	/** The sidecar answers now: a search that failed before it did runs again. */
	async sidecarReady(): Promise<void> {
		await this.controller?.retry();
	}

	focusInput(): void {
		this.input?.focus();
	}

	/**
	 * Rows follow the vault between searches: a deleted (or moved) note's row goes at once, and a
	 * listed note that changes (edited, tagged private) has the search run again.
	 */
	private watchVault(controller: SearchController): void {
		const { vault } = this.app;
		const file = (handle: (path: string) => void) => (f: TAbstractFile) => {
			if (f instanceof TFile) handle(f.path);
		};
		this.registerEvent(vault.on("modify", file((path) => controller.changed(path))));
		this.registerEvent(vault.on("delete", file((path) => controller.removed(path))));
		this.registerEvent(vault.on("create", file((path) => controller.created(path))));
		this.registerEvent(vault.on("rename", (f: TAbstractFile, oldPath: string) => controller.renamed(oldPath, f.path)));
	}

	private async apply(saved: SearchPanelState): Promise<void> {
		if (!this.controller || !this.input) return;
		this.controller.restore(saved);
		this.chips = saved.chips;
		this.input.value = saved.query;
		this.archivedToggle?.setValue(saved.includeArchived);
		this.drawChips();
		if (saved.query.trim() !== "") await this.controller.runNow();
	}

	private setOption(change: { private?: boolean; includeArchived?: boolean }): void {
		this.controller?.setOptions(change);
		this.app.workspace.requestSaveLayout();
	}

	private setChips(chips: FilterChips): void {
		this.chips = chips;
		this.controller?.setChips(chips);
		this.drawChips();
		this.app.workspace.requestSaveLayout();
	}

	/** Type chips to switch on and off, then the folder and tag filters typed in the box. */
	private drawChips(): void {
		const el = this.chipsEl;
		if (!el) return;
		el.empty();
		for (const type of RETRIEVABLE_TYPES) {
			const on = this.chips.types.includes(type);
			const chip = el.createEl("button", {
				cls: `ora-chip ora-type-${type}${on ? " is-active" : ""}`,
				text: type,
				attr: { "aria-pressed": on ? "true" : "false" },
			});
			chip.addEventListener("click", () => {
				const types = on ? this.chips.types.filter((t) => t !== type) : [...this.chips.types, type];
				this.setChips({ ...this.chips, types });
			});
		}
		const typed = parseQuery(this.input?.value ?? "").chips;
		for (const label of chipLabels({ ...typed, types: typed.types.filter((t) => !this.chips.types.includes(t)) })) {
			const chip = el.createSpan({ cls: "ora-chip is-active is-typed", text: label.label });
			const remove = chip.createSpan({ cls: "ora-chip-remove", attr: { role: "button", "aria-label": `Remove ${label.label}` } });
			setIcon(remove, "x");
			remove.addEventListener("click", () => this.removeTyped(label));
		}
	}

	/** Removes a typed prefix (`type:`, `path:`, `tag:`…) from the query box. */
	private removeTyped(chip: ChipLabel): void {
		if (!this.input) return;
		this.input.value = withoutTyped(this.input.value, chip.kind, chip.value);
		this.input.dispatchEvent(new Event("input"));
	}

	private show(state: SearchState): void {
		if (!this.resultsEl) return;
		const selected = this.cards[this.selected]?.path;
		this.cards = state.kind === "results" ? state.list.groups.map((g) => g.best) : [];
		this.items = renderSearchState(this.resultsEl, state, {
			open: (card, evt) => void this.deps.open(card, Keymap.isModEvent(evt)),
			retry: () => void this.controller?.runNow(),
		});
		this.listEl = this.resultsEl.querySelector<HTMLElement>(".ora-results");
		// The same search's list again (a saved note, a deleted one's row gone): the keyboard stays on
		// its row, wherever it now is, so Enter opens it rather than searching again.
		const kept = state.kind === "results" && state.refreshed && selected !== undefined ? this.cards.findIndex((c) => c.path === selected) : -1;
		this.select(kept);
	}

	private onKey(evt: KeyboardEvent): void {
		if (composing(evt)) return;
		if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
			evt.preventDefault();
			this.select(moveSelection(this.selected, evt.key === "ArrowDown" ? 1 : -1, this.items.length));
		} else if (evt.key === "Enter") {
			evt.preventDefault();
			const card = this.cards[this.selected];
			if (card) void this.deps.open(card, Keymap.isModEvent(evt));
			else void this.controller?.runNow();
		}
	}

	private select(index: number): void {
		this.selected = index;
		markSelected(this.listEl, this.items, index);
	}
}

function toggle(parent: HTMLElement, label: string, onChange: (on: boolean) => void): ToggleComponent {
	const wrap = parent.createDiv({ cls: "ora-toggle" });
	wrap.createSpan({ text: label });
	const component = new ToggleComponent(wrap);
	component.toggleEl.setAttr("aria-label", label);
	component.onChange(onChange);
	return component;
}

/**
 * A saved panel state, checked field by field (saved layouts can be old or hand-edited); a
 * `private` saved by an older version is ignored, and dropped with the next layout save.
 */
function panelState(state: unknown): SearchPanelState | null {
	if (typeof state !== "object" || state === null) return null;
	const s = state as Record<string, unknown>;
	if (typeof s.query !== "string") return null;
	const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);
	const chips = (typeof s.chips === "object" && s.chips !== null ? s.chips : {}) as Record<string, unknown>;
	return {
		query: s.query,
		includeArchived: s.includeArchived === true,
		chips: {
			types: list(chips.types),
			folders: list(chips.folders),
			tags: list(chips.tags),
			clusters: list(chips.clusters),
			conversations: list(chips.conversations),
		},
	};
}
