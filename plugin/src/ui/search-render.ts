import { setIcon, setTooltip } from "obsidian";

import type { SearchState } from "../search/controller";
import type { NoteGroup } from "../search/group";
import { placeLabel } from "../search/place";
import type { ResultCard } from "../search/shape";

const BADGE_TEXT: Record<string, string> = {
	incubating: "Incubating",
	private: "Private",
	archived: "Archived",
};

/** What a drawn result does when used: open it (the event says whether in a new tab), preview, drag. */
export interface ResultHandlers {
	open: (card: ResultCard, evt: MouseEvent | KeyboardEvent | null) => void;
	hover?: (card: ResultCard, evt: MouseEvent, el: HTMLElement) => void;
	drag?: (card: ResultCard, evt: DragEvent) => void;
	/** Runs the failed search again (drawn as a button under an error). */
	retry?: () => void;
}

function handlersOf(handlers: ResultHandlers | ((card: ResultCard) => void)): ResultHandlers {
	return typeof handlers === "function" ? { open: (card) => handlers(card) } : handlers;
}

/**
 * Draws a search state into `el` with Obsidian's DOM helpers (no innerHTML: note text is only ever
 * set as text). Returns one row per note, in order, for keyboard navigation. Results being
 * refreshed stay drawn, dimmed (`is-pending`), until the new ones arrive.
 */
export function renderSearchState(
	el: HTMLElement,
	state: SearchState,
	handlers: ResultHandlers | ((card: ResultCard) => void),
): HTMLElement[] {
	el.empty();
	el.toggleClass("is-pending", state.kind === "results" && state.pending === true);
	switch (state.kind) {
		case "idle":
			message(el, "search", "Type to search your vault.");
			return [];
		case "loading":
			message(el, "loader", `Searching for “${state.query}”…`, "ora-loading");
			return [];
		case "error": {
			const retry = typeof handlers === "function" ? undefined : handlers.retry;
			const box = message(el, "alert-triangle", state.message, "ora-error");
			if (retry) retryButton(box, retry);
			return [];
		}
		case "empty":
			message(el, "search-x", `No results for “${state.query}”.`);
			if (state.indexingNote) el.createDiv({ cls: "ora-indexing-note", text: state.indexingNote });
			return [];
		case "results": {
			if (state.list.indexingNote) el.createDiv({ cls: "ora-indexing-note", text: state.list.indexingNote });
			el.createDiv({ cls: "ora-rerank-note", text: state.list.rerankNote });
			return renderGroups(el, state.list.groups, handlersOf(handlers));
		}
	}
}

/** A listbox of note rows; the list itself takes Tab focus and the rows are its options. */
export function renderGroups(el: HTMLElement, groups: NoteGroup<ResultCard>[], handlers: ResultHandlers): HTMLElement[] {
	const list = el.createDiv({ cls: "ora-results", attr: { role: "listbox", tabindex: "0", "aria-label": "Results" } });
	return groups.map((group, i) => renderGroup(list, group, handlers, i));
}

export function message(el: HTMLElement, icon: string, text: string, cls = ""): HTMLElement {
	const box = el.createDiv({ cls: `ora-message ${cls}`.trim() });
	setIcon(box.createSpan({ cls: "ora-message-icon" }), icon);
	box.createSpan({ text });
	return box;
}

/** A "Try again" button after an error message (a timed-out or refused call). */
export function retryButton(box: HTMLElement, retry: () => void): HTMLButtonElement {
	const button = box.createEl("button", { cls: "ora-retry", text: "Try again" });
	button.addEventListener("click", () => retry());
	return button;
}

function renderGroup(parent: HTMLElement, group: NoteGroup<ResultCard>, handlers: ResultHandlers, index: number): HTMLElement {
	const item = renderCard(parent, group.best, handlers);
	item.id = `ora-result-${index}`;
	if (group.others.length === 0) return item;
	const fold = item.createDiv({
		cls: "ora-fold",
		attr: { role: "button", tabindex: "-1", "aria-expanded": "false" },
	});
	const icon = fold.createSpan({ cls: "ora-fold-icon" });
	setIcon(icon, "chevron-right");
	const count = group.others.length;
	fold.createSpan({ text: count === 1 ? "1 more passage" : `${count} more passages` });
	const others = item.createDiv({ cls: "ora-others is-collapsed" });
	for (const card of group.others) {
		const row = others.createDiv({ cls: "ora-other" });
		row.createDiv({ cls: "ora-result-where", text: whereText(card) });
		drawSnippet(row.createDiv({ cls: "ora-snippet" }), card);
		row.addEventListener("click", (evt) => {
			evt.stopPropagation();
			handlers.open(card, evt);
		});
	}
	fold.addEventListener("click", (evt) => {
		evt.stopPropagation();
		const open = others.hasClass("is-collapsed");
		others.toggleClass("is-collapsed", !open);
		fold.setAttr("aria-expanded", String(open));
		setIcon(icon, open ? "chevron-down" : "chevron-right");
	});
	return item;
}

export function renderCard(parent: HTMLElement, card: ResultCard, handlers: ResultHandlers | ((card: ResultCard) => void)): HTMLElement {
	const use = handlersOf(handlers);
	const item = parent.createDiv({
		cls: "ora-result",
		attr: { role: "option", tabindex: "-1", "aria-selected": "false", draggable: use.drag ? "true" : null },
	});
	const head = item.createDiv({ cls: "ora-result-head" });
	head.createSpan({ cls: "ora-result-title", text: card.title });
	const type = head.createSpan({ cls: `ora-badge ora-type ora-type-${card.type}`, text: card.type });
	if (card.typeInferred) {
		type.addClass("ora-type-inferred");
		setTooltip(type, "Type inferred from the vault's folder rules (the note has no Ora type)");
	}
	for (const badge of card.badges) {
		head.createSpan({ cls: `ora-badge ora-flag ora-flag-${badge}`, text: BADGE_TEXT[badge] ?? badge });
	}
	const score = head.createSpan({ cls: "ora-score", text: card.score });
	const why = head.createSpan({ cls: "ora-why", attr: { "aria-label": card.why.join("\n") } });
	setIcon(why, "info");
	setTooltip(why, card.why.join("\n"), { placement: "left" });
	setTooltip(score, "Score = similarity × type weight × decay");

	const where = item.createDiv({ cls: "ora-result-where" });
	where.createSpan({ cls: "ora-result-path", text: card.path });
	if (card.headingPath) where.createSpan({ cls: "ora-result-heading", text: ` › ${card.headingPath}` });
	where.createSpan({ cls: "ora-result-lines", text: ` · ${placeLabel(card)}` });

	drawSnippet(item.createDiv({ cls: "ora-snippet" }), card);
	item.addEventListener("click", (evt) => use.open(card, evt));
	// A middle click opens in a new tab, as links do in Obsidian.
	item.addEventListener("auxclick", (evt) => {
		if (evt.button === 1) use.open(card, evt);
	});
	if (use.hover) {
		const hover = use.hover;
		item.addEventListener("mouseover", (evt) => hover(card, evt, item));
	}
	if (use.drag) {
		const drag = use.drag;
		item.addEventListener("dragstart", (evt) => drag(card, evt));
	}
	return item;
}

function whereText(card: ResultCard): string {
	const heading = card.headingPath ? `${card.headingPath} · ` : "";
	return `${heading}${placeLabel(card)}`;
}

function drawSnippet(text: HTMLElement, card: ResultCard): void {
	for (const segment of card.snippet) {
		if (segment.hit) text.createEl("mark", { cls: "ora-hit", text: segment.text });
		else text.appendText(segment.text);
	}
}

/** Marks row `index` selected (class and `aria-selected`), clearing the others; -1 clears all. */
export function markSelected(list: HTMLElement | null, items: HTMLElement[], index: number): void {
	items.forEach((item, i) => {
		item.toggleClass("is-selected", i === index);
		item.setAttr("aria-selected", i === index ? "true" : "false");
	});
	const item = items[index];
	if (list) list.setAttr("aria-activedescendant", item?.id || null);
	item?.scrollIntoView({ block: "nearest" });
}
