import { Modal, Notice, setIcon, type App } from "obsidian";

import { mayStillApply, SidecarError, type SidecarClient } from "../api/client";
import type { Pair, PairStatus, Resolution } from "../api/types";
import { statusLabel } from "../triage/labels";
import { confirmText, pairCard, resolution, type ClaimCard, type TriageAction } from "../triage/model";
import { changesNotes, pageOf } from "../triage/paging";
import { confirmWrite } from "./confirm-modal";

export interface TriageDeps {
	client: SidecarClient;
	open: (path: string, lineStart: number, lineEnd: number) => Promise<void>;
	/** Told the number of pairs still open after each load or resolution. */
	onOpenCount: (count: number) => void;
	/**
	 * Deletes a note the user chose to delete, through Obsidian's trash (the user's "Deleted files"
	 * setting), once the sidecar has recorded the decision, checked the note against `hash` and
	 * kept its bytes for an undo; returns where it is now, in words for the notice. Without it the
	 * sidecar moves the note to VAULT/.trash/ itself.
	 */
	trash?: (path: string, hash: string) => Promise<string>;
	/** Asks the user before a write; replaced in tests and screenshots. */
	confirm?: (title: string, text: string, confirmLabel: string) => Promise<boolean>;
}

/** Which pairs the dialog lists. */
const VIEWS: { status: PairStatus; label: string }[] = [
	{ status: "open", label: "Open" },
	{ status: "flagged", label: "Flagged for reflection" },
	{ status: "resolved", label: "Resolved" },
	{ status: "dismissed", label: "Dismissed" },
];
const TRIAGEABLE: PairStatus[] = ["open", "flagged"];

/** The dialog's keys, shown above the list (letters: the arrows move through the buttons). */
const KEYS = "Keys: j / k next and previous pair · d dismiss · f flag · x select · n / p next and previous page";

/**
 * Lists contradiction pairs side by side, a page at a time, and resolves them: a write to a note
 * confirmed first, dismiss and flag (which write none) at once, several dismissed together;
 * approves a news story as a batch; undoes the last resolution. The list keeps its page and
 * scroll position after an action. Pairs involving private notes appear only with "Include
 * private notes" on, and are then resolved in private mode.
 */
export class TriageModal extends Modal {
	private pairs: Pair[] = [];
	private view: PairStatus = "open";
	private privateMode = false;
	/** Bumped by each load: a slower answer to an earlier one (other pairs, or private ones) is dropped. */
	private loads = 0;
	private page = 0;
	/** The pair the keys act on, by its place on the page. */
	private focused = 0;
	/** Pairs ticked for a bulk dismissal, by id. */
	private readonly selected = new Set<string>();

	constructor(
		app: App,
		private readonly deps: TriageDeps,
	) {
		super(app);
	}

	override onOpen(): void {
		this.modalEl.addClass("ora-triage-modal");
		this.titleEl.setText("Contradiction triage");
		this.registerKeys();
		void this.load();
	}

	private registerKeys(): void {
		const on = (key: string, run: () => void): void => {
			this.scope.register([], key, (evt) => {
				if (takesKeys(evt.target)) return true; // typing or picking an option, not a command
				run();
				return false;
			});
		};
		on("j", () => this.focus(this.focused + 1));
		on("k", () => this.focus(this.focused - 1));
		on("n", () => this.turn(this.page + 1));
		on("p", () => this.turn(this.page - 1));
		on("x", () => {
			const pair = this.focusedPair();
			if (pair) this.select(pair, !this.selected.has(pair.id));
		});
		on("d", () => this.act("dismiss"));
		on("f", () => this.act("flag"));
	}

	/** Dismisses or flags the focused pair (neither writes a note: no confirmation). */
	private act(action: "dismiss" | "flag"): void {
		const pair = this.focusedPair();
		if (!pair || !TRIAGEABLE.includes(pair.status) || (action === "flag" && pair.status === "flagged")) return;
		void this.resolve(pair, resolution(action, null), action === "dismiss" ? "Dismiss" : "Flag for reflection");
	}

	private shown(): Pair[] {
		const page = pageOf(this.pairs.length, this.page);
		return this.pairs.slice(page.start, page.end);
	}

	private focusedPair(): Pair | null {
		return this.shown()[this.focused] ?? null;
	}

	private focus(index: number): void {
		const els = [...this.contentEl.querySelectorAll<HTMLElement>(".ora-pair")];
		if (els.length === 0) return;
		this.focused = Math.min(Math.max(0, index), els.length - 1);
		els.forEach((el, i) => el.toggleClass("is-focused", i === this.focused));
		const el = els[this.focused];
		el?.focus({ preventScroll: true });
		el?.scrollIntoView({ block: "nearest" });
	}

	private turn(page: number): void {
		const next = pageOf(this.pairs.length, page).index;
		if (next === this.page) return;
		this.page = next;
		this.focused = 0;
		this.render();
		this.modalEl.scrollTop = 0;
		this.contentEl.scrollTop = 0;
	}

	private select(pair: Pair, on: boolean): void {
		if (on) this.selected.add(pair.id);
		else this.selected.delete(pair.id);
		const box = this.contentEl.querySelector<HTMLInputElement>(`.ora-pair[data-pair="${CSS.escape(pair.id)}"] .ora-pair-select`);
		if (box) box.checked = on;
		this.drawBulk();
	}

	override onClose(): void {
		this.contentEl.empty();
	}

	async load(): Promise<void> {
		const mine = ++this.loads;
		this.state("loader", "Loading pairs…");
		let pairs: Pair[];
		try {
			pairs = await this.deps.client.contradictions(this.view, this.privateMode);
		} catch (err) {
			if (mine === this.loads) this.failed(errorText(err));
			return;
		}
		if (mine !== this.loads) return;
		this.pairs = pairs;
		const ids = new Set(pairs.map((p) => p.id));
		for (const id of [...this.selected]) if (!ids.has(id)) this.selected.delete(id);
		// The status bar counts open pairs outside private mode, as the sidecar publishes them.
		if (this.view === "open" && !this.privateMode) this.deps.onOpenCount(this.pairs.length);
		this.render();
	}

	private render(): void {
		const el = this.contentEl;
		// After an action the list is drawn again: the reader stays where they were.
		const scroll = { modal: this.modalEl.scrollTop, content: el.scrollTop };
		el.empty();
		this.renderToolbar(el.createDiv({ cls: "ora-triage-toolbar" }));
		const current = VIEWS.find((v) => v.status === this.view)?.label.toLowerCase() ?? this.view;
		if (this.pairs.length === 0) {
			this.message(el, "check-circle", this.view === "open" ? "No open contradictions." : `No ${current} pairs.`);
			return;
		}
		const page = pageOf(this.pairs.length, this.page);
		this.page = page.index;
		el.createDiv({ cls: "ora-triage-count", text: `${this.pairs.length} ${current} ${this.pairs.length === 1 ? "pair" : "pairs"}` });
		el.createDiv({ cls: "ora-triage-keys", text: KEYS });
		if (TRIAGEABLE.includes(this.view)) el.createDiv({ cls: "ora-triage-bulk" });
		this.drawBulk();
		// The pager above the list and below it: no scrolling to the end to turn a page.
		if (page.pages > 1) this.renderPager(el.createDiv({ cls: "ora-triage-pager" }), page.index, page.pages, page.label);
		const shown = this.shown();
		for (const pair of shown) {
			const box = el.createDiv({ cls: "ora-pair", attr: { tabindex: "-1", "data-pair": pair.id } });
			if (TRIAGEABLE.includes(pair.status)) this.renderSelect(box, pair);
			this.renderPair(box, pair);
		}
		if (page.pages > 1) this.renderPager(el.createDiv({ cls: "ora-triage-pager" }), page.index, page.pages, page.label);
		this.focused = Math.min(this.focused, shown.length - 1);
		el.querySelectorAll<HTMLElement>(".ora-pair")[this.focused]?.addClass("is-focused");
		this.modalEl.scrollTop = scroll.modal;
		el.scrollTop = scroll.content;
	}

	private renderPager(bar: HTMLElement, index: number, pages: number, label: string): void {
		const prev = bar.createEl("button", { text: "Previous", cls: "ora-triage-prev" });
		prev.disabled = index === 0;
		prev.addEventListener("click", () => this.turn(index - 1));
		bar.createSpan({ cls: "ora-triage-page", text: label });
		const next = bar.createEl("button", { text: "Next", cls: "ora-triage-next" });
		next.disabled = index >= pages - 1;
		next.addEventListener("click", () => this.turn(index + 1));
	}

	/** A tick box to dismiss the pair with others. */
	private renderSelect(el: HTMLElement, pair: Pair): void {
		const label = el.createEl("label", { cls: "ora-pair-pick" });
		const box = label.createEl("input", { type: "checkbox", cls: "ora-pair-select", attr: { "aria-label": "Select this pair" } });
		box.checked = this.selected.has(pair.id);
		box.addEventListener("change", () => this.select(pair, box.checked));
		label.appendText(" Select");
	}

	/** "Select the page" and "Dismiss selected (n)", above the list. */
	private drawBulk(): void {
		const bar = this.contentEl.querySelector<HTMLElement>(".ora-triage-bulk");
		if (!bar) return;
		bar.empty();
		const shown = this.shown().filter((p) => TRIAGEABLE.includes(p.status));
		const all = bar.createEl("button", { text: "Select this page", cls: "ora-triage-select-page" });
		all.addEventListener("click", () => {
			for (const pair of shown) this.select(pair, true);
		});
		const count = this.selected.size;
		const dismiss = bar.createEl("button", { text: `Dismiss selected (${count})`, cls: "ora-triage-dismiss-selected" });
		dismiss.disabled = count === 0;
		dismiss.addEventListener("click", () => void this.dismissSelected());
	}

	/** Dismisses every ticked pair (no note changes: no confirmation), then loads the list once. */
	private async dismissSelected(): Promise<void> {
		const ids = [...this.selected];
		const asked = this.privateMode;
		let done = 0;
		const failed: unknown[] = [];
		for (const id of ids) {
			try {
				await this.deps.client.resolve(id, { action: "dismiss" }, asked);
				done++;
			} catch (err) {
				failed.push(err);
			}
		}
		this.selected.clear();
		const why = failed.length ? ` ${failed.length} could not be dismissed: ${this.named(asked) ? errorText(failed[0]) : HIDDEN}` : "";
		new Notice(`Dismissed ${done} ${done === 1 ? "pair" : "pairs"}. No note changed.${why}`);
		await this.load();
	}

	/** The list could not be loaded (the sidecar stopped or is restarting): the toolbar stays, with a retry. */
	private failed(text: string): void {
		const el = this.contentEl;
		el.empty();
		this.renderToolbar(el.createDiv({ cls: "ora-triage-toolbar" }));
		this.message(el, "alert-triangle", text, "ora-error");
		el.createEl("button", { text: "Try again", cls: "ora-triage-retry" }).addEventListener("click", () => void this.load());
	}

	private renderToolbar(bar: HTMLElement): void {
		const select = bar.createEl("select", { cls: "dropdown ora-triage-view", attr: { "aria-label": "Which pairs" } });
		for (const v of VIEWS) select.createEl("option", { text: v.label, value: v.status });
		select.value = this.view;
		select.addEventListener("change", () => {
			this.view = select.value as PairStatus;
			void this.load();
		});
		const label = bar.createEl("label", { cls: "ora-triage-private" });
		const box = label.createEl("input", { type: "checkbox" });
		box.checked = this.privateMode;
		label.appendText(" Include private notes");
		box.addEventListener("change", () => {
			this.privateMode = box.checked;
			void this.load();
		});
		const undo = bar.createEl("button", { text: "Undo last resolution", cls: "ora-triage-undo" });
		undo.addEventListener("click", () => void this.undo());
	}

	private renderPair(el: HTMLElement, pair: Pair): void {
		const card = pairCard(pair);
		const head = el.createDiv({ cls: "ora-pair-head" });
		head.createSpan({ cls: "ora-pair-title", text: card.heading });
		if (card.private) head.createSpan({ cls: "ora-badge ora-badge-private", text: "Private" });
		head.createSpan({ cls: "ora-badge", text: `${card.judge} · ${card.score}` });
		if (pair.status !== "open") el.createDiv({ cls: "ora-pair-status", text: card.status });
		el.createDiv({ cls: "ora-pair-proposal", text: card.proposal });
		const suggestion = card.suggestion;
		if (suggestion && TRIAGEABLE.includes(pair.status)) {
			const row = el.createDiv({ cls: "ora-pair-suggestion" });
			row.createSpan({ text: `Suggested: ${suggestion.label}. ${suggestion.reason}.` });
			const apply = row.createEl("button", { text: "Apply the suggestion", cls: "mod-cta" });
			apply.addEventListener("click", () => void this.resolve(pair, suggestion.resolution, suggestion.label));
		}

		const sides = el.createDiv({ cls: "ora-pair-sides" });
		this.renderClaim(sides, card.a);
		this.renderClaim(sides, card.b);

		if (card.evidence.length) {
			const table = el.createDiv({ cls: "ora-evidence" });
			for (const row of card.evidence) {
				table.createSpan({ cls: "ora-evidence-label", text: row.label });
				table.createSpan({ cls: "ora-evidence-value", text: row.value });
			}
		}

		if (!TRIAGEABLE.includes(pair.status)) return;
		const actions = el.createDiv({ cls: "ora-pair-actions" });
		const group = (label: string): HTMLElement => {
			const g = actions.createDiv({ cls: "ora-action-group" });
			g.createSpan({ cls: "ora-action-label", text: label });
			return g;
		};
		const changed = group("Changed mind");
		this.button(changed, "A supersedes B", pair, "changed-mind", pair.a.path);
		this.button(changed, "B supersedes A", pair, "changed-mind", pair.b.path);
		const wrong = group("Wrong");
		this.button(wrong, "Archive A", pair, "wrong", pair.a.path);
		this.button(wrong, "Archive B", pair, "wrong", pair.b.path);
		this.button(wrong, "Delete A", pair, "wrong", pair.a.path, true);
		this.button(wrong, "Delete B", pair, "wrong", pair.b.path, true);
		const other = group("Other");
		if (pair.status !== "flagged") this.button(other, "Flag for reflection", pair, "flag", null);
		this.button(other, "Dismiss", pair, "dismiss", null);
		const batch = card.batch;
		if (batch !== null && pair.status === "open") {
			const story = this.pairs.filter((p) => p.batch === batch && p.status === "open").length;
			const text = story === 1 ? "Approve the story" : `Approve all ${story} in this story`;
			const approve = group("Whole story").createEl("button", { text });
			approve.addEventListener("click", () => void this.approveBatch(batch, story));
		}
	}

	private renderClaim(parent: HTMLElement, claim: ClaimCard): void {
		const box = parent.createDiv({ cls: "ora-claim" });
		const head = box.createDiv({ cls: "ora-claim-head" });
		head.createSpan({ cls: "ora-claim-side", text: claim.side.toUpperCase() });
		const link = head.createEl("a", { cls: "ora-claim-path", text: claim.path, attr: { href: "#" } });
		head.createSpan({ cls: "ora-claim-lines", text: claim.lines });
		if (claim.origin) head.createSpan({ cls: "ora-badge ora-claim-origin", text: claim.origin });
		link.addEventListener("click", (evt) => {
			evt.preventDefault();
			void this.deps.open(claim.path, claim.lineStart, claim.lineEnd);
		});
		box.createDiv({ cls: "ora-claim-text", text: claim.text });
	}

	private button(
		parent: HTMLElement,
		label: string,
		pair: Pair,
		action: TriageAction,
		chosen: string | null,
		deleteNote = false,
	): void {
		const button = parent.createEl("button", { text: label, cls: deleteNote ? "mod-warning" : "" });
		button.addEventListener("click", () => void this.resolve(pair, resolution(action, chosen, deleteNote, this.deps.trash !== undefined), label));
	}

	private async resolve(pair: Pair, res: Resolution, label: string): Promise<void> {
		// Only a write to a note is confirmed: dismissing or flagging changes none (and can be undone).
		if (changesNotes(res.action) && !(await this.confirmer()(label, confirmText(res, pair), label))) return;
		const asked = this.privateMode;
		try {
			const answer = await this.deps.client.resolve(pair.id, res, asked);
			const done = answer.pair.resolution;
			const where = done?.client_trash === true && typeof done.note === "string" && typeof done.hash === "string" && this.deps.trash ? await this.deps.trash(done.note, done.hash) : "You can undo this.";
			const named = this.named(asked); // private mode as it is now, when the notice shows
			// A trash error may quote the note's path.
			const said = named || typeof done?.note !== "string" ? where : where.split(done.note).join("the note");
			new Notice(`${statusLabel(answer.pair)}. ${changedText(answer.changed, named)} ${said}`);
		} catch (err) {
			new Notice(mayStillApply(err) ? `Not sure the pair was resolved: ${errorText(err)} ${CHECK}` : `Could not resolve: ${this.named(asked) ? staleText(err) : HIDDEN}`);
			if (!reloads(err)) return;
		}
		await this.load();
	}

	/**
	 * Whether a notice about a call made with `asked` as private mode may name notes: not once
	 * "Include private notes" is unticked (someone may be looking), as the extract dialog does.
	 */
	private named(asked: boolean): boolean {
		return !asked || this.privateMode;
	}

	private async approveBatch(batch: string, count: number): Promise<void> {
		const confirm = this.confirmer();
		const text = `Each newer article of this story will supersede the one before it, and the older ones will be tagged archived (${count} ${count === 1 ? "proposal" : "proposals"}).`;
		if (!(await confirm("Approve the whole story", text, "Approve all"))) return;
		const asked = this.privateMode;
		try {
			const answer = await this.deps.client.approveBatch(batch, asked);
			new Notice(`Approved ${answer.pairs.length} in this story. ${changedText(answer.changed, this.named(asked))} You can undo this.`);
		} catch (err) {
			new Notice(mayStillApply(err) ? `Not sure the story was approved: ${errorText(err)} ${CHECK}` : `Could not approve the story: ${this.named(asked) ? staleText(err) : HIDDEN}`);
			if (!reloads(err)) return;
		}
		await this.load();
	}

	private async undo(): Promise<void> {
		const confirm = this.confirmer();
		const text = "The notes the last resolution changed get back their earlier content, byte for byte, and its pairs are open again. Nothing is written if either note changed since; a note kept from the trash because you edited it stays as it is, and only its pair opens again.";
		if (!(await confirm("Undo last resolution", text, "Undo"))) return;
		const asked = this.privateMode;
		try {
			const answer = await this.deps.client.undoResolution(asked);
			const what = answer.pairs.map((p) => statusLabel(p)).join(", ");
			new Notice(`Undone: ${answer.pairs.length === 1 ? "the pair is" : "the pairs are"} ${what.toLowerCase()} again. ${restoredText(answer.changed, this.named(asked))}`);
		} catch (err) {
			new Notice(mayStillApply(err) ? `Not sure the resolution was undone: ${errorText(err)} Check the list in a moment.` : `Could not undo: ${this.named(asked) ? errorText(err) : HIDDEN}`);
			if (!mayStillApply(err)) return;
		}
		await this.load();
	}

	private confirmer(): (title: string, text: string, ok: string) => Promise<boolean> {
		return this.deps.confirm ?? ((title, text, ok) => confirmWrite(this.app, title, text, ok));
	}

	private state(icon: string, text: string, cls = ""): void {
		this.contentEl.empty();
		this.message(this.contentEl, icon, text, cls);
	}

	private message(parent: HTMLElement, icon: string, text: string, cls = ""): void {
		const box = parent.createDiv({ cls: `ora-message ${cls}`.trim() });
		setIcon(box.createSpan({ cls: "ora-message-icon" }), icon);
		box.createSpan({ text });
	}
}

/**
 * The pair (or a note of it) is gone or changed since the list was loaded: a note was renamed,
 * edited or deleted meanwhile, and the sidecar found the pair again under another id. The list is
 * then loaded again, so the next click acts on what is there now.
 */
function isStale(err: unknown): boolean {
	return err instanceof SidecarError && (err.status === 404 || err.status === 409);
}

/** After a failed write the list is loaded again when it may have changed: stale, or a write that may still be applied. */
function reloads(err: unknown): boolean {
	return isStale(err) || mayStillApply(err);
}

/** What to do about a write that timed out and may still be applied. */
const CHECK = 'Check the list in a moment; if it was, "Undo last resolution" reverts it.';

function staleText(err: unknown): string {
	if (err instanceof SidecarError && err.status === 404) {
		return "this pair changed since the list was shown (a note of it was renamed, edited or deleted). The list is up to date now.";
	}
	return isStale(err) ? `${errorText(err)} The list is up to date now.` : errorText(err);
}

/** What a notice says in place of an error's details once private notes are no longer included. */
const HIDDEN = "its details are not shown now that private notes are not included.";

/** The notes a resolution changed: named, or (private mode left meanwhile) only counted. */
function changedText(changed: string[], named: boolean): string {
	if (!changed.length) return "No files changed.";
	return named ? `Changed: ${changed.join(", ")}.` : `Changed ${notes(changed.length)}.`;
}

function restoredText(changed: string[], named: boolean): string {
	if (!changed.length) return "No files changed.";
	return named ? `Restored: ${changed.join(", ")}.` : `Restored ${notes(changed.length)}.`;
}

function notes(count: number): string {
	return `${count} ${count === 1 ? "note" : "notes"}`;
}

/** Inputs whose letter keys do nothing of their own (a focused checkbox or button still takes j/k/d/f/x). */
const KEYLESS_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset", "image", "range", "color", "file"]);

/**
 * Whether a key pressed on `target` is the control's own: typing in a text field, a text area or
 * an editable element, or a dropdown's type-ahead ("d" picks Dismissed). By tag name, not
 * instanceof, which fails for an element of another window (a modal in a pop-out window).
 */
function takesKeys(target: EventTarget | null): boolean {
	if (!target || !("tagName" in target)) return false;
	const el = target as HTMLElement;
	if (el.isContentEditable) return true;
	const tag = el.tagName.toLowerCase();
	if (tag === "textarea" || tag === "select") return true;
	return tag === "input" && !KEYLESS_INPUTS.has((el as HTMLInputElement).type);
}

function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
