import { setIcon, setTooltip } from "obsidian";

import type { ResultCard } from "../search/shape";
import type { SearchState } from "../search/controller";

const BADGE_TEXT: Record<string, string> = {
	incubating: "Incubating",
	private: "Private",
	archived: "Archived",
};

/**
 * Draws a search state into `el` with Obsidian's DOM helpers (no innerHTML: note text is only ever
 * set as text). Returns the result elements in order, for keyboard navigation.
 */
export function renderSearchState(
	el: HTMLElement,
	state: SearchState,
	onOpen: (card: ResultCard) => void,
): HTMLElement[] {
	el.empty();
	switch (state.kind) {
		case "idle":
			message(el, "search", "Type to search your vault.");
			return [];
		case "loading":
			message(el, "loader", `Searching for “${state.query}”…`, "ora-loading");
			return [];
		case "error":
			message(el, "alert-triangle", state.message, "ora-error");
			return [];
		case "empty":
			message(el, "search-x", `No results for “${state.query}”.`);
			if (state.indexingNote) el.createDiv({ cls: "ora-indexing-note", text: state.indexingNote });
			return [];
		case "results": {
			if (state.list.indexingNote) el.createDiv({ cls: "ora-indexing-note", text: state.list.indexingNote });
			el.createDiv({ cls: "ora-rerank-note", text: state.list.rerankNote });
			const list = el.createDiv({ cls: "ora-results", attr: { role: "listbox" } });
			return state.list.cards.map((card) => renderCard(list, card, onOpen));
		}
	}
}

function message(el: HTMLElement, icon: string, text: string, cls = ""): void {
	const box = el.createDiv({ cls: `ora-message ${cls}`.trim() });
	setIcon(box.createSpan({ cls: "ora-message-icon" }), icon);
	box.createSpan({ text });
}

export function renderCard(parent: HTMLElement, card: ResultCard, onOpen: (card: ResultCard) => void): HTMLElement {
	const item = parent.createDiv({ cls: "ora-result", attr: { role: "option", tabindex: "-1" } });
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
	where.createSpan({ cls: "ora-result-lines", text: ` · lines ${card.lineStart}–${card.lineEnd}` });

	const text = item.createDiv({ cls: "ora-snippet" });
	for (const segment of card.snippet) {
		if (segment.hit) text.createEl("mark", { cls: "ora-hit", text: segment.text });
		else text.appendText(segment.text);
	}
	item.addEventListener("click", () => onOpen(card));
	return item;
}
