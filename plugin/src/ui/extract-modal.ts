import { Modal, Notice, ToggleComponent, setIcon, setTooltip, type App } from "obsidian";

import { notSureText, SidecarError, type SidecarClient } from "../api/client";
import type { ExtractAccepted, ExtractSelector } from "../api/types";
import { extractorLabel, ExtractReview, keptText, namedCards, staleText, REVIEW_KEYS, reviewKey, undoneText, type NoteLink, type ProposalCard } from "../extract/model";

export interface ExtractDeps {
	client: SidecarClient;
	/** The conversation to extract from: its id (Ask panel) or its chat note (the note open). */
	selector: ExtractSelector;
	/** The mode to start in (the Ask panel's); the dialog has its own toggle. Off by default. */
	privateMode?: boolean;
	open: (path: string, lineStart: number, lineEnd: number) => Promise<void>;
	/** Opens the triage dialog, offered in the notice when contradictions were queued. */
	triage?: () => void;
}

/** How many written notes the notice names before "and N more". */
const NOTICE_NOTES = 5;

/**
 * Reviews the engrams proposed from a conversation: accept, edit (title and text, in place) or
 * reject each, then keep the accepted ones or all that are not rejected. Nothing is written before
 * that click; the notice that follows links the written notes and offers Undo. What the quality
 * gate dropped is listed folded, with its reason. Every action has a key (see REVIEW_KEYS).
 */
export class ExtractModal extends Modal {
	private review: ExtractReview | null = null;
	private privateMode: boolean;
	/** Bumped by each load: a late answer to an earlier one (e.g. a private one) is dropped. */
	private loads = 0;
	private editing: string | null = null;
	private editError: string | null = null;
	private writeError: string | null = null;
	/** The write was refused because the conversation or its proposals changed since the extraction. */
	private staleWrite = false;
	/** The proposals a refused write named (a 409): marked until the conversation is extracted again. */
	private conflicted = new Set<string>();
	/** The review "Extract again" replaces: its decisions and edits carry over by proposal id. */
	private carried: ExtractReview | null = null;
	private writing = false;
	private shown = false;
	private listEl: HTMLElement | null = null;

	constructor(
		app: App,
		private readonly deps: ExtractDeps,
	) {
		super(app);
		this.privateMode = deps.privateMode === true;
	}

	override onOpen(): void {
		this.shown = true;
		this.modalEl.addClass("ora-extract-modal");
		this.titleEl.setText("Extract engrams");
		void this.load();
	}

	override onClose(): void {
		this.shown = false;
		this.loads++; // an extraction still running is not shown
		this.contentEl.empty();
	}

	/** Asks the sidecar for the proposals; the list shown before goes at once (it may be private). */
	async load(): Promise<void> {
		const mine = ++this.loads;
		this.review = null;
		this.editing = null;
		this.writeError = null;
		this.staleWrite = false;
		this.conflicted = new Set();
		message(this.frame().createDiv({ cls: "ora-message ora-loading" }), "loader", "Extracting engrams from the conversation…");
		try {
			const plan = await this.deps.client.extract(this.deps.selector, this.privateMode);
			if (mine !== this.loads) return;
			this.review = new ExtractReview(plan, this.carried);
			this.carried = null;
			// The first proposal takes the focus, so its keys work at once.
			this.render(plan.proposals[0]?.id ?? null);
		} catch (err) {
			if (mine !== this.loads) return;
			const box = this.frame().createDiv({ cls: "ora-message ora-error" });
			// The sidecar answers for a private conversation outside private mode as for a missing one.
			const text = `Could not extract: ${errorText(err)}`;
			const hint = status(err) === 404 && !this.privateMode ? `${/[.!?]$/.test(text) ? "" : "."} If the conversation is private, turn on private mode.` : "";
			message(box, "alert-triangle", text + hint);
			this.contentEl.createEl("button", { text: "Try again", cls: "ora-extract-retry" }).addEventListener("click", () => void this.load());
		}
	}

	/** Empties the dialog and draws its toolbar (the private toggle), kept in every state. */
	private frame(): HTMLElement {
		const el = this.contentEl;
		el.empty();
		this.listEl = null;
		const bar = el.createDiv({ cls: "ora-extract-toolbar" });
		const wrap = bar.createDiv({ cls: "ora-toggle" });
		wrap.createSpan({ text: "Private mode" });
		const toggle = new ToggleComponent(wrap).setValue(this.privateMode);
		toggle.toggleEl.setAttr("aria-label", "Private mode");
		setTooltip(toggle.toggleEl, "Private mode: private turns are read too, and what they give becomes private engrams");
		toggle.onChange((on) => {
			this.privateMode = on;
			this.carried = null; // the other mode's proposals are another review
			void this.load();
		});
		return el;
	}

	private render(focusId: string | null = null): void {
		const review = this.review;
		if (!review) return;
		const el = this.frame();
		el.createDiv({ cls: "ora-extract-extractor", text: extractorLabel(review.plan.extractor, review.plan.fallback) });
		const cards = review.cards;
		el.createEl("p", { cls: "ora-extract-headline", text: review.headline });
		if (cards.length) {
			const list = el.createDiv({ cls: "ora-extract-list", attr: { role: "list", "aria-label": "Proposed engrams" } });
			this.listEl = list;
			for (const card of cards) this.renderCard(list, card);
			list.addEventListener("keydown", (evt) => this.onKey(evt));
			this.renderFooter(el, review);
			this.renderKeys(el);
		} else {
			el.createDiv({ cls: "ora-extract-footer" }).createEl("button", { text: "Close" }).addEventListener("click", () => this.close());
		}
		this.renderDropped(el, review);
		const target = focusId ?? this.editing;
		if (target !== null) this.focusCard(target, this.editing === target);
	}

	private renderCard(list: HTMLElement, card: ProposalCard): void {
		const conflict = this.conflicted.has(card.id);
		const box = list.createDiv({
			cls: `ora-proposal is-${card.decision}${conflict ? " is-conflict" : ""}`,
			attr: { role: "listitem", tabindex: "0", "data-id": card.id, "aria-label": `${card.title} (${decisionWord(card)})` },
		});
		const head = box.createDiv({ cls: "ora-proposal-head" });
		head.createSpan({ cls: "ora-proposal-title", text: card.title });
		if (card.aiDerived) setTooltip(head.createSpan({ cls: "ora-badge ora-badge-ai", text: "AI-derived" }), "The substance came from the assistant's answer");
		if (card.private) head.createSpan({ cls: "ora-badge ora-flag-private", text: "Private" });
		if (card.edited) head.createSpan({ cls: "ora-badge", text: "Edited" });
		if (card.decision !== "undecided") head.createSpan({ cls: `ora-badge ora-decision`, text: decisionWord(card) });
		if (conflict) setTooltip(head.createSpan({ cls: "ora-badge ora-badge-conflict", text: "Changed" }), "The conversation changed here since the review: extract again to see it now");

		if (this.editing === card.id) this.renderEditor(box, card);
		else box.createDiv({ cls: "ora-proposal-text", text: card.text });
		if (card.meta) box.createDiv({ cls: "ora-proposal-meta", text: card.meta });
		const source = box.createDiv({ cls: "ora-proposal-source" });
		source.appendText("From ");
		this.noteLink(source, card.source);
		source.appendText(`, ${card.source.lines}`);
		if (card.contradicts.length) {
			const clash = box.createDiv({ cls: "ora-proposal-contradicts" });
			setIcon(clash.createSpan({ cls: "ora-message-icon" }), "alert-triangle");
			clash.appendText("Contradicts ");
			card.contradicts.forEach((note, i) => {
				if (i > 0) clash.appendText(", ");
				this.noteLink(clash, note);
			});
			clash.appendText(": if you keep it, the pair goes to the triage queue.");
		}
		if (this.editing === card.id) return;
		const actions = box.createDiv({ cls: "ora-proposal-actions" });
		this.toggleButton(actions, card, "accepted", "Accept");
		actions.createEl("button", { text: "Edit" }).addEventListener("click", () => this.startEdit(card.id));
		this.toggleButton(actions, card, "rejected", "Reject");
	}

	private toggleButton(parent: HTMLElement, card: ProposalCard, decision: "accepted" | "rejected", label: string): void {
		const pressed = card.decision === decision;
		const button = parent.createEl("button", { text: label, cls: pressed ? "is-active" : "", attr: { "aria-pressed": String(pressed) } });
		button.addEventListener("click", () => {
			this.decide(card.id, decision);
			// Drawn again: the focus goes back to the button pressed (Enter or Space on it again toggles back).
			this.buttonOf(card.id, label)?.focus();
		});
	}

	private renderEditor(box: HTMLElement, card: ProposalCard): void {
		const form = box.createDiv({ cls: "ora-proposal-editor" });
		const title = form.createEl("input", { cls: "ora-proposal-title-input", type: "text", attr: { "aria-label": "Title" } });
		title.value = card.title;
		const text = form.createEl("textarea", { cls: "ora-proposal-text-input", attr: { rows: "4", "aria-label": "Text" } });
		text.value = card.text;
		if (this.editError) form.createDiv({ cls: "ora-error", text: this.editError });
		const buttons = form.createDiv({ cls: "ora-proposal-actions" });
		const save = () => this.saveEdit(card.id, title.value, text.value);
		buttons.createEl("button", { text: "Save", cls: "mod-cta" }).addEventListener("click", save);
		buttons.createEl("button", { text: "Cancel" }).addEventListener("click", () => this.stopEdit(card.id));
		form.addEventListener("keydown", (evt) => {
			if (evt.key === "Enter" && (evt.ctrlKey || evt.metaKey)) {
				evt.preventDefault();
				save();
			}
		});
	}

	private renderFooter(el: HTMLElement, review: ExtractReview): void {
		const footer = el.createDiv({ cls: "ora-extract-footer" });
		if (this.writeError) {
			footer.createDiv({ cls: "ora-error ora-extract-write-error", text: this.writeError });
			// Refused because the conversation changed (or the plan with it): what is there now is proposed afresh.
			if (this.staleWrite)
				footer.createEl("button", { text: "Extract again" }).addEventListener("click", () => {
					this.carried = this.review;
					void this.load();
				});
		}
		const accepted = review.accepted;
		const all = review.notRejected;
		const keep = footer.createEl("button", { text: `Keep ${accepted.length} accepted`, cls: "mod-cta" });
		// Refused as stale: keeping again would fail the same way until the conversation is extracted again.
		keep.disabled = this.writing || this.staleWrite || accepted.length === 0;
		keep.addEventListener("click", () => void this.keep(review.accepted));
		const everything = footer.createEl("button", { text: all.length === review.cards.length ? "Accept all" : `Accept all ${all.length} not rejected` });
		everything.disabled = this.writing || this.staleWrite || all.length === 0;
		everything.addEventListener("click", () => void this.keep(review.notRejected));
		if (this.writing) footer.createSpan({ cls: "ora-extract-writing", text: "Writing…" });
	}

	private renderKeys(el: HTMLElement): void {
		const keys = el.createDiv({ cls: "ora-extract-keys", attr: { "aria-label": "Keyboard" } });
		for (const { keys: k, does } of REVIEW_KEYS) {
			const item = keys.createSpan({ cls: "ora-extract-key" });
			item.createEl("kbd", { text: k });
			item.appendText(` ${does}`);
		}
	}

	private renderDropped(el: HTMLElement, review: ExtractReview): void {
		const dropped = review.dropped;
		if (!dropped.length) return;
		const fold = el.createEl("details", { cls: "ora-extract-dropped" });
		fold.createEl("summary", { text: `Dropped by the quality gate (${dropped.length})` });
		for (const row of dropped) {
			const item = fold.createDiv({ cls: "ora-dropped" });
			item.createDiv({ cls: "ora-dropped-text", text: row.text });
			const why = item.createDiv({ cls: "ora-dropped-reason", text: row.reason });
			if (row.of) {
				why.appendText(": ");
				this.noteLink(why, row.of);
			}
		}
	}

	private noteLink(parent: HTMLElement, note: NoteLink): void {
		const link = parent.createEl("a", { cls: "ora-note-link", text: note.title, attr: { href: "#" } });
		setTooltip(link, note.path);
		link.addEventListener("click", (evt) => {
			evt.preventDefault();
			void this.deps.open(note.path, note.lineStart, note.lineEnd);
		});
	}

	private onKey(evt: KeyboardEvent): void {
		const target = evt.target as HTMLElement | null;
		// Typing in the editor's fields is typing, not a command.
		if (!target || target.closest("input, textarea")) return;
		const box = target.closest<HTMLElement>(".ora-proposal");
		const id = box?.dataset.id;
		const action = reviewKey(evt);
		if (!box || id === undefined || action === null) return;
		evt.preventDefault();
		switch (action) {
			case "next":
			case "previous": {
				const sibling = action === "next" ? box.nextElementSibling : box.previousElementSibling;
				if (sibling instanceof HTMLElement) sibling.focus();
				break;
			}
			case "accept":
				this.decide(id, "accepted");
				break;
			case "reject":
				this.decide(id, "rejected");
				break;
			case "edit":
				this.startEdit(id);
				break;
			case "open": {
				const card = this.review?.cards.find((c) => c.id === id);
				if (card) void this.deps.open(card.source.path, card.source.lineStart, card.source.lineEnd);
				break;
			}
		}
	}

	private decide(id: string, decision: "accepted" | "rejected"): void {
		this.review?.decide(id, decision);
		this.render(id);
	}

	private startEdit(id: string): void {
		this.editing = id;
		this.editError = null;
		this.render();
	}

	private saveEdit(id: string, title: string, text: string): void {
		const error = this.review?.edit(id, { title, text }) ?? null;
		if (error) {
			this.editError = error;
			this.render();
			return;
		}
		this.stopEdit(id);
	}

	private stopEdit(id: string): void {
		this.editing = null;
		this.editError = null;
		this.render(id);
	}

	/** Writes the proposals `ids` as engrams; they leave the list, and the dialog closes when none is left to keep. */
	private async keep(ids: string[]): Promise<void> {
		const review = this.review;
		if (!review || ids.length === 0 || this.writing) return;
		const request = review.request(ids);
		const privateMode = this.privateMode;
		this.writing = true;
		this.writeError = null;
		this.editing = null;
		this.render();
		let answer: ExtractAccepted;
		try {
			answer = await this.deps.client.extractAccept(this.deps.selector, request, privateMode);
		} catch (err) {
			this.writing = false;
			this.writeError =
				notSureText(err, "the engrams were kept", 'Check them in a moment, or run "Undo the last engram extraction".') ?? `Could not keep the engrams: ${errorText(err)}`;
			this.staleWrite = status(err) === 404 || status(err) === 409;
			if (status(err) === 409) {
				const named = namedCards(errorText(err), review.cards);
				this.conflicted = new Set(named.map((c) => c.id));
				this.writeError = staleText(named);
			}
			if (this.shown && this.review === review) this.render();
			return;
		}
		this.writing = false;
		// Written in private mode, but private mode is off now: the notice does not name the notes.
		this.noticeKept(answer, privateMode, !(privateMode && !this.privateMode));
		if (!this.shown || this.review !== review) return; // closed, or moved on (private mode switched)
		review.kept(ids);
		if (review.finished) this.close();
		else this.render(review.cards[0]?.id ?? null);
	}

	/** The notice after a write: the written notes as links, the queued pairs, and Undo. */
	private noticeKept(answer: ExtractAccepted, privateMode: boolean, names: boolean): void {
		const written = names ? answer.written : [];
		const fragment = createFragment((f) => {
			f.appendText(`${keptText(answer)} `);
			written.slice(0, NOTICE_NOTES).forEach((path, i) => {
				if (i > 0) f.appendText(", ");
				f.createEl("a", { cls: "ora-note-link", text: path, href: "#" }, (a) => onClick(a, () => void this.deps.open(path, 1, 1)));
			});
			const more = written.length - NOTICE_NOTES;
			if (more > 0) f.appendText(` and ${more} more`);
			if (written.length) f.appendText(". ");
			const triage = this.deps.triage;
			if (answer.queued_contradictions > 0 && triage) {
				f.createEl("a", { text: "Triage", href: "#" }, (a) => onClick(a, triage));
				f.appendText(" · ");
			}
			f.createEl("a", { text: "Undo", href: "#" }, (a) =>
				onClick(a, () =>
					void undoExtraction(this.deps.client, privateMode).then((done) => {
						if (done && this.shown) void this.load();
					}),
				),
			);
		});
		new Notice(fragment, 15_000);
	}

	private focusCard(id: string, field: boolean): void {
		const box = this.cardEl(id);
		const target = field ? box?.querySelector<HTMLElement>("input") : box;
		target?.focus();
	}

	private cardEl(id: string): HTMLElement | undefined {
		return [...(this.listEl?.querySelectorAll<HTMLElement>(".ora-proposal") ?? [])].find((b) => b.dataset.id === id);
	}

	private buttonOf(id: string, label: string): HTMLButtonElement | undefined {
		return [...(this.cardEl(id)?.querySelectorAll("button") ?? [])].find((b) => b.textContent === label);
	}
}

/** Undoes the latest kept extraction and says what happened; true when it was undone. */
export async function undoExtraction(client: SidecarClient, privateMode = false): Promise<boolean> {
	try {
		new Notice(undoneText(await client.extractUndo(privateMode)), 10_000);
		return true;
	} catch (err) {
		// The sidecar may have trashed the engrams before its answer was lost: say how to see it.
		const unsure = notSureText(err, "the extraction was undone", "Check its engrams in a moment.");
		if (unsure) new Notice(unsure, 15_000);
		else new Notice(`Could not undo: ${errorText(err)}`);
		return false;
	}
}

function decisionWord(card: ProposalCard): string {
	return card.decision === "accepted" ? "Accepted" : card.decision === "rejected" ? "Rejected" : "Not decided";
}

function message(box: HTMLElement, icon: string, text: string): void {
	setIcon(box.createSpan({ cls: "ora-message-icon" }), icon);
	box.createSpan({ text });
}

function onClick(a: HTMLElement, act: () => void): void {
	a.addEventListener("click", (evt) => {
		evt.preventDefault();
		act();
	});
}

function status(err: unknown): number | null {
	return err instanceof SidecarError ? err.status : null;
}

function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
