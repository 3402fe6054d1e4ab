import {
	ItemView,
	Keymap,
	TFile,
	ToggleComponent,
	setIcon,
	type PaneType,
	type TAbstractFile,
	type WorkspaceLeaf,
} from "obsidian";

import type { SidecarClient } from "../api/client";
import type { Live } from "../util/debounce";
import { RelatedController, type RelatedState } from "../related/controller";
import { moveSelection } from "../search/controller";
import type { ResultCard } from "../search/shape";
import { markSelected, message, renderGroups, retryButton } from "./search-render";

export const RELATED_VIEW_TYPE = "ora-vault-related";

export interface RelatedViewDeps {
	client: () => SidecarClient;
	/** Live: read at each request, so a change of the setting applies to the open panel. */
	k: Live<number>;
	open: (card: ResultCard, newLeaf: PaneType | boolean) => Promise<void>;
	/** The Markdown link to `path` as it should be written in `sourcePath` (the user's link style). */
	linkText: (path: string, sourcePath: string) => string | null;
	openDelayMs?: number;
	editDelayMs?: number;
}

/**
 * Notes related to the active note, in the right sidebar: follows file-open and edits,
 * previews on hover (Obsidian's page preview), drags out as a link, opens at the cited lines.
 */
export class RelatedView extends ItemView {
	private controller: RelatedController | null = null;
	private headerEl: HTMLElement | null = null;
	private bodyEl: HTMLElement | null = null;
	private listEl: HTMLElement | null = null;
	private items: HTMLElement[] = [];
	private cards: ResultCard[] = [];
	private selected = -1;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly deps: RelatedViewDeps,
	) {
		super(leaf);
	}

	getViewType(): string {
		return RELATED_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Related notes";
	}

	override getIcon(): string {
		return "git-fork";
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("ora-related-view");
		const top = root.createDiv({ cls: "ora-related-top" });
		this.headerEl = top.createDiv({ cls: "ora-related-title" });
		const refresh = top.createDiv({ cls: "clickable-icon", attr: { role: "button", "aria-label": "Refresh" } });
		setIcon(refresh, "refresh-cw"); // "loader" looks like a spinner: as if it were always loading
		const toggles = root.createDiv({ cls: "ora-search-toggles" });
		const wrap = toggles.createDiv({ cls: "ora-toggle" });
		wrap.createSpan({ text: "Private mode" });
		const privateToggle = new ToggleComponent(wrap);
		privateToggle.toggleEl.setAttr("aria-label", "Private mode");
		this.bodyEl = root.createDiv({ cls: "ora-search-results" });

		const controller = new RelatedController({
			related: (request) => this.deps.client().related(request),
			onState: (state) => this.show(state),
			k: this.deps.k,
			openDelayMs: this.deps.openDelayMs ?? 150,
			editDelayMs: this.deps.editDelayMs ?? 2000,
		});
		this.controller = controller;
		privateToggle.onChange((on) => controller.setPrivate(on));
		this.registerDomEvent(refresh, "click", () => void controller.refresh());
		this.registerDomEvent(this.bodyEl, "keydown", (evt) => this.onKey(evt));
		this.registerEvent(
			this.app.workspace.on("file-open", (file: TFile | null) => controller.follow(notePath(file))),
		);
		// The active note edited, or a listed one (tagged private, say): the list is asked again.
		this.registerEvent(
			this.app.vault.on("modify", (file: TAbstractFile) => {
				if (isVaultSettings(file)) controller.settingsChanged();
				if (file instanceof TFile) controller.edited(file.path);
			}),
		);
		// ora.yaml written (by hand, or by the excluded-folders picker through the sidecar), created or removed:
		// a note listed may have become private or excluded.
		this.registerEvent(
			this.app.vault.on("create", (file: TAbstractFile) => {
				if (isVaultSettings(file)) controller.settingsChanged();
				if (file instanceof TFile) controller.created(file.path);
			}),
		);
		this.registerEvent(
			this.app.vault.on("delete", (file: TAbstractFile) => {
				if (isVaultSettings(file)) controller.settingsChanged();
				if (file instanceof TFile) controller.removed(file.path);
			}),
		);
		this.registerEvent(
			this.app.vault.on("rename", (file: TAbstractFile, oldPath: string) => {
				controller.moved(oldPath, file.path);
				controller.renamed(oldPath, notePath(file));
			}),
		);
		this.show({ kind: "none" });
		controller.follow(notePath(this.app.workspace.getActiveFile()));
	}

	override async onClose(): Promise<void> {
		this.controller?.dispose();
		this.controller = null;
	}

	/** The sidecar answers now: a note that could not be asked before it did is asked again. */
	async sidecarReady(): Promise<void> {
		await this.controller?.retry();
	}

	/** The note being followed (for tests and the command that reveals the view). */
	get followedPath(): string | null {
		return this.controller?.activePath ?? null;
	}

	private show(state: RelatedState): void {
		const body = this.bodyEl;
		if (!body || !this.headerEl) return;
		this.headerEl.setText(state.kind === "none" ? "Related notes" : `Related to ${state.title}`);
		body.empty();
		body.toggleClass("is-pending", state.kind === "results" && state.pending === true);
		this.cards = [];
		this.items = [];
		this.listEl = null;
		switch (state.kind) {
			case "none":
				message(body, "git-fork", "Open a note to see the notes related to it.");
				break;
			case "loading":
				message(body, "loader", "Finding related notes…", "ora-loading");
				break;
			case "empty":
				message(body, "search-x", "No related notes found.");
				break;
			case "message": {
				const box = message(body, state.error ? "alert-triangle" : "info", state.message, state.error ? "ora-error" : "");
				const controller = this.controller;
				if (state.error && controller) retryButton(box, () => void controller.refresh());
				break;
			}
			case "results": {
				const source = state.path;
				this.cards = state.list.groups.map((g) => g.best);
				this.items = renderGroups(body, state.list.groups, {
					open: (card, evt) => void this.deps.open(card, Keymap.isModEvent(evt)),
					hover: (card, evt, el) => this.preview(card, evt, el),
					drag: (card, evt) => this.dragLink(card, evt, source),
				});
				this.listEl = body.querySelector<HTMLElement>(".ora-results");
				break;
			}
		}
		this.select(-1);
	}

	/** Obsidian's page preview for the hovered note (the `hover-link` source registered by the plugin). */
	private preview(card: ResultCard, evt: MouseEvent, el: HTMLElement): void {
		this.app.workspace.trigger("hover-link", {
			event: evt,
			source: RELATED_VIEW_TYPE,
			hoverParent: this,
			targetEl: el,
			linktext: card.path,
			state: { scroll: (card.lineStart ?? 1) - 1 },
		});
	}

	/** Dragged into an editor, a result drops as a link to its note. */
	private dragLink(card: ResultCard, evt: DragEvent, sourcePath: string): void {
		const link = this.deps.linkText(card.path, sourcePath);
		if (!link || !evt.dataTransfer) return;
		evt.dataTransfer.setData("text/plain", link);
		evt.dataTransfer.effectAllowed = "copy";
	}

	private onKey(evt: KeyboardEvent): void {
		if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
			evt.preventDefault();
			this.select(moveSelection(this.selected, evt.key === "ArrowDown" ? 1 : -1, this.items.length));
		} else if (evt.key === "Enter") {
			const card = this.cards[this.selected];
			if (card) void this.deps.open(card, Keymap.isModEvent(evt));
		}
	}

	private select(index: number): void {
		this.selected = index;
		markSelected(this.listEl, this.items, index);
	}
}

/** The vault's settings file, ora.yaml at the vault root (docs/vault-settings.md). */
export const VAULT_SETTINGS_PATH = "ora.yaml";

function isVaultSettings(file: TAbstractFile): boolean {
	return file instanceof TFile && file.path === VAULT_SETTINGS_PATH;
}

function notePath(file: TAbstractFile | null): string | null {
	return file instanceof TFile && file.extension === "md" ? file.path : null;
}
