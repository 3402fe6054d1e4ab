import { ItemView, Keymap, MarkdownRenderer, Notice, ToggleComponent, setIcon, setTooltip, type PaneType, type TAbstractFile, type WorkspaceLeaf } from "obsidian";

import type { SidecarClient } from "../api/client";
import type { AskDocument, AskRequest, Citation } from "../api/types";
import {
	answerSegments,
	AskController,
	generatorLabel,
	listedConversations,
	LLM_HELP,
	rememberConversation,
	type AskState,
	type ConversationEntry,
	type Exchange,
} from "../ask/model";
import { placeLabel } from "../search/place";
import { titleFromPath } from "../search/shape";
import { inert } from "../ask/outside-text";
import { StreamingAnswer } from "./streaming-answer";
import { composing } from "../util/ime";

export const ASK_VIEW_TYPE = "ora-vault-ask";

export interface AskViewDeps {
	client: () => SidecarClient;
	/** Asks with the answer streamed piece by piece; without it the answer arrives whole. */
	stream?: (request: AskRequest, onDelta: (text: string) => void, signal?: AbortSignal) => Promise<AskDocument>;
	open: (path: string, lineStart: number | null, lineEnd: number | null, newLeaf: PaneType | boolean, link: string | null) => Promise<void>;
	conversations: () => ConversationEntry[];
	saveConversations: (list: ConversationEntry[]) => Promise<void>;
	/** True when the plugin's settings name a language model endpoint. */
	llmConfigured: () => boolean;
	/** Reviews the engrams proposed from a conversation, in the panel's private mode. */
	extract?: (conversation: string, privateMode: boolean) => void;
	/** True when the sidecar has a web search (SearXNG) to ask: the panel then offers a Web toggle. */
	webConfigured?: () => boolean;
	/** Inserts an answer (with its sources as links) into the note being edited. */
	insert?: (answer: AskDocument) => void;
}

/** One exchange as drawn, and the answer being streamed into it (null once it is whole). */
interface Drawn {
	exchange: Exchange;
	el: HTMLElement;
	stream: StreamingAnswer | null;
}

/** How close to the bottom (px) the log counts as followed: new text then scrolls it along. */
const FOLLOW_PX = 48;

/** Ask the vault: cited answers, `[n]` links to the passages, a list of conversations to continue. */
export class AskView extends ItemView {
	private controller: AskController | null = null;
	private pickerEl: HTMLSelectElement | null = null;
	private helpEl: HTMLElement | null = null;
	private logEl: HTMLElement | null = null;
	private input: HTMLTextAreaElement | null = null;
	private sendButton: HTMLButtonElement | null = null;
	private stopButton: HTMLButtonElement | null = null;
	private drawn: Drawn[] = [];
	private extractButton: HTMLButtonElement | null = null;
	/** A question asked in private mode that got no answer and was put back in the box. */
	private privateUnanswered: string | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly deps: AskViewDeps,
	) {
		super(leaf);
	}

	getViewType(): string {
		return ASK_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Ask Ora";
	}

	override getIcon(): string {
		return "message-circle";
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("ora-ask-view");
		const top = root.createDiv({ cls: "ora-ask-top" });
		const fresh = top.createEl("button", { cls: "ora-ask-new", attr: { "aria-label": "New conversation" } });
		setIcon(fresh.createSpan(), "plus");
		fresh.createSpan({ text: "New" });
		this.pickerEl = top.createEl("select", { cls: "dropdown ora-ask-picker", attr: { "aria-label": "Conversations" } });
		const extract = this.deps.extract;
		if (extract) {
			const button = top.createEl("button", { cls: "ora-ask-extract", attr: { "aria-label": "Extract engrams from this conversation" } });
			setIcon(button.createSpan(), "sparkles");
			button.createSpan({ text: "Extract" });
			this.extractButton = button;
			this.registerDomEvent(button, "click", () => {
				const open = this.extractable;
				if (open) extract(open.conversation, open.privateMode);
			});
		}
		const webWrap = this.deps.webConfigured?.() ? top.createDiv({ cls: "ora-toggle ora-ask-web" }) : null;
		const toggleWrap = top.createDiv({ cls: "ora-toggle" });
		toggleWrap.createSpan({ text: "Private" });
		const privateToggle = new ToggleComponent(toggleWrap);
		privateToggle.toggleEl.setAttr("aria-label", "Private mode");
		setTooltip(privateToggle.toggleEl, "Private mode: private notes may be cited, and the turns are kept private");
		this.helpEl = root.createDiv({ cls: "ora-ask-help" });
		this.logEl = root.createDiv({ cls: "ora-ask-log", attr: { "aria-live": "polite" } });
		// Links in rendered answers: Obsidian follows them only in its own views.
		this.registerDomEvent(this.logEl, "click", (evt) => {
			const link = evt.target instanceof Element ? evt.target.closest<HTMLAnchorElement>("a.internal-link") : null;
			const target = link?.dataset.href ?? link?.getAttribute("href");
			if (!link || !target) return;
			evt.preventDefault();
			void this.app.workspace.openLinkText(target, "", Keymap.isModEvent(evt));
		});
		const form = root.createDiv({ cls: "ora-ask-form" });
		this.input = form.createEl("textarea", {
			cls: "ora-ask-input",
			attr: { rows: "3", placeholder: "Ask your vault…", "aria-label": "Question" },
		});
		this.sendButton = form.createEl("button", { cls: "mod-cta ora-ask-send", text: "Ask" });
		this.stopButton = form.createEl("button", { cls: "ora-ask-stop ora-hidden", text: "Stop", attr: { "aria-label": "Stop the answer" } });

		const controller = new AskController({
			ask: (request, onDelta, signal) => (this.deps.stream ? this.deps.stream(request, onDelta, signal) : this.deps.client().ask(request)),
			load: (id, privateMode) => this.deps.client().conversation(id, privateMode),
			onState: (state) => this.show(state),
			onConversation: (entry) => void this.remember(entry),
		});
		this.controller = controller;
		if (webWrap) {
			webWrap.createSpan({ text: "Web" });
			const web = new ToggleComponent(webWrap);
			web.toggleEl.setAttr("aria-label", "Web results");
			setTooltip(web.toggleEl, "Ask the configured web search too: its results are cited as [W1], [W2]… after the notes'");
			web.onChange((on) => controller.setWeb(on));
		}
		privateToggle.onChange((on) => {
			// Leaving private mode: a private question put back in the box goes, as the conversation does.
			if (!on && this.input && this.input.value === this.privateUnanswered) this.input.value = "";
			this.privateUnanswered = null;
			controller.setPrivate(on);
			this.drawPicker(controller.current.conversation);
		});
		this.registerDomEvent(fresh, "click", () => controller.newConversation());
		this.registerEvent(this.app.vault.on("rename", (file: TAbstractFile, oldPath: string) => controller.noteRenamed(oldPath, file.path)));
		this.registerEvent(
			this.app.vault.on("delete", (file: TAbstractFile) => {
				if (controller.noteDeleted(file.path)) {
					new Notice("This conversation's note was deleted, and its memory with it. Your next question starts a new conversation.");
				}
			}),
		);
		this.registerDomEvent(this.pickerEl, "change", () => {
			const id = this.pickerEl?.value ?? "";
			if (id) void controller.open(id);
			else controller.newConversation();
		});
		this.registerDomEvent(this.sendButton, "click", () => void this.send());
		this.registerDomEvent(this.stopButton, "click", () => controller.stop());
		this.registerDomEvent(this.input, "keydown", (evt) => {
			// Enter while an input method composes (Chinese, Japanese) picks a candidate: it does not send.
			if (composing(evt)) return;
			if (evt.key === "Enter" && !evt.shiftKey) {
				evt.preventDefault();
				void this.send();
			}
		});
		this.drawPicker(null);
		this.show(controller.current);
	}

	override async onClose(): Promise<void> {
		this.controller?.dispose();
		this.controller = null;
	}

	/** The sidecar answers now: a conversation picked while it did not is loaded. */
	async sidecarReady(): Promise<void> {
		await this.controller?.retry();
	}

	/** The open conversation, when it can be extracted from (the "Extract engrams" command asks). */
	get extractable(): { conversation: string; privateMode: boolean } | null {
		const controller = this.controller;
		const conversation = controller ? extractable(controller.current) : null;
		return controller && conversation ? { conversation, privateMode: controller.isPrivate } : null;
	}

	/** Asks `question` as if typed (used by tests and a future command). */
	async ask(question: string): Promise<void> {
		await this.controller?.ask(question);
	}

	private async send(): Promise<void> {
		if (!this.input || !this.controller) return;
		const question = this.input.value;
		// While an answer is being written the question would be refused: keep it in the box.
		if (question.trim() === "" || this.controller.current.busy) return;
		this.input.value = "";
		const asPrivate = this.controller.isPrivate;
		const outcome = await this.controller.ask(question);
		// Not answered (the sidecar stopped, say): the question goes back in the box, to send again.
		// One the user stopped was answered as far as they wanted. A private question never comes
		// back once private mode is off: it went with its conversation, and one Enter would send
		// it outside private mode.
		if (outcome !== "failed" || !this.controller || this.input.value !== "") return;
		if (asPrivate && !this.controller.isPrivate) return;
		this.input.value = question;
		this.privateUnanswered = asPrivate ? question : null;
	}

	private async remember(entry: ConversationEntry): Promise<void> {
		const list = rememberConversation(this.deps.conversations(), entry);
		await this.deps.saveConversations(list);
		// The conversation shown, not the one answered: New or another conversation may have been chosen meanwhile.
		this.drawPicker(this.controller?.current.conversation ?? null);
	}

	private drawPicker(selected: string | null): void {
		const picker = this.pickerEl;
		if (!picker) return;
		picker.empty();
		picker.createEl("option", { text: "New conversation", attr: { value: "" } });
		const listed = listedConversations(this.deps.conversations(), this.controller?.isPrivate ?? false);
		for (const entry of listed) {
			picker.createEl("option", { text: entry.title, attr: { value: entry.id } });
		}
		picker.value = selected !== null && listed.some((c) => c.id === selected) ? selected : "";
	}

	private show(state: AskState): void {
		const log = this.logEl;
		if (!log || !this.helpEl) return;
		this.helpEl.empty();
		if (!this.deps.llmConfigured()) {
			for (const line of LLM_HELP) this.helpEl.createDiv({ text: line });
		}
		this.helpEl.toggleClass("is-hidden", this.deps.llmConfigured());
		if (this.sendButton) this.sendButton.disabled = state.busy;
		this.stopButton?.toggleClass("ora-hidden", !state.busy || !state.exchanges.some(isPending));
		if (this.extractButton) this.extractButton.disabled = extractable(state) === null;
		if (this.pickerEl && state.conversation === null) this.pickerEl.value = "";
		const following = log.scrollHeight - log.scrollTop - log.clientHeight <= FOLLOW_PX;
		const asked = state.exchanges.length > this.drawn.length;
		this.drawLog(log, state.exchanges);
		// New text keeps the log at its end unless the reader has scrolled up to read.
		if (following || asked) log.scrollTop = log.scrollHeight;
	}

	/** Draws only what changed: the exchange being streamed gets its new text, nothing is redrawn. */
	private drawLog(log: HTMLElement, exchanges: readonly Exchange[]): void {
		if (exchanges.length === 0) {
			log.empty();
			this.drawn = [];
			log.createDiv({ cls: "ora-message", text: "Ask a question: the answer cites the notes it comes from." });
			return;
		}
		if (this.drawn.length === 0) log.empty();
		let same = 0;
		while (same < this.drawn.length && this.drawn[same]?.exchange === exchanges[same]) same++;
		const last = this.drawn[same];
		const next = exchanges[same];
		if (last?.stream && next && isPending(next) && same === this.drawn.length - 1 && same === exchanges.length - 1) {
			last.exchange = next;
			this.streamInto(last, next.partial ?? "");
			return;
		}
		for (const stale of this.drawn.splice(same)) stale.el.remove();
		for (const exchange of exchanges.slice(same)) this.drawn.push(this.drawExchange(log, exchange));
	}

	private drawExchange(log: HTMLElement, exchange: Exchange): Drawn {
		const box = log.createDiv({ cls: "ora-ask-exchange" });
		if (exchange.question) box.createDiv({ cls: "ora-ask-question", text: exchange.question });
		const answer = box.createDiv({ cls: "ora-ask-answer" });
		const drawn: Drawn = { exchange, el: box, stream: null };
		if (exchange.error) {
			answer.addClass("ora-error");
			answer.setText(exchange.error);
		} else if (exchange.answer) {
			this.drawAnswer(answer, exchange.answer);
		} else if (exchange.loggedAnswer !== undefined) {
			this.renderInto(answer.createDiv({ cls: "ora-ask-text markdown-rendered" }), exchange.loggedAnswer);
		} else if (exchange.stopped) {
			this.renderInto(answer.createDiv({ cls: "ora-ask-text markdown-rendered" }), exchange.partial ?? "");
			answer.createDiv({ cls: "ora-ask-stopped", text: "Stopped." });
		} else {
			// Citations become links once the whole answer (with its passages) has arrived.
			answer.addClass("ora-loading");
			answer.createSpan({ cls: "ora-ask-thinking", text: "Thinking…" });
			drawn.stream = new StreamingAnswer(answer.createDiv({ cls: "ora-ask-text" }), (markdown, el) => this.renderInto(el, markdown));
			this.streamInto(drawn, exchange.partial ?? "");
		}
		return drawn;
	}

	private streamInto(drawn: Drawn, text: string): void {
		if (text === "" || !drawn.stream) return;
		const answer = drawn.el.querySelector<HTMLElement>(".ora-ask-answer");
		if (answer?.hasClass("ora-loading")) {
			answer.removeClass("ora-loading");
			answer.addClass("is-streaming");
			answer.querySelector(".ora-ask-thinking")?.remove();
		}
		drawn.stream.update(text);
	}

	/** Renders a model's Markdown with Obsidian's renderer, as outside text (`inert`): nothing
	 * in it runs or is fetched; `then` runs once it is drawn. */
	private renderInto(el: HTMLElement, markdown: string, then?: () => void): void {
		void MarkdownRenderer.render(this.app, inert(markdown), el, "", this).then(then);
	}

	private drawAnswer(el: HTMLElement, doc: AskDocument): void {
		const text = el.createDiv({ cls: "ora-ask-text markdown-rendered" });
		this.renderInto(text, doc.answer, () => this.linkCitations(text, doc.citations));
		const label = generatorLabel(doc);
		el.createDiv({ cls: `ora-ask-generator ${label.generated ? "is-generated" : "is-extractive"}`, text: label.text });
		if (doc.citations.length > 0) {
			const sources = el.createDiv({ cls: "ora-ask-sources" });
			for (const citation of doc.citations) {
				const row = sources.createDiv({ cls: `ora-ask-source${citation.cited ? " is-cited" : ""}` });
				this.citeLink(row, citation, `[${citation.n}]`);
				row.appendText(` ${citation.title || titleFromPath(citation.path)} · ${citedPlace(citation)}`);
				if (citation.private) row.createSpan({ cls: "ora-badge ora-flag ora-flag-private", text: "Private" });
			}
		}
		this.answerActions(el, doc);
	}

	/** Copy the answer, or insert it (its sources as links) into the note being edited. */
	private answerActions(el: HTMLElement, doc: AskDocument): void {
		const actions = el.createDiv({ cls: "ora-ask-actions" });
		const copy = actions.createEl("button", { cls: "clickable-icon ora-ask-copy", attr: { "aria-label": "Copy the answer" } });
		setIcon(copy, "copy");
		// Plain listeners: these buttons go with their answer when the log is drawn anew.
		copy.addEventListener("click", () => {
			void navigator.clipboard.writeText(doc.answer).then(
				() => new Notice("Answer copied."),
				() => new Notice("Could not copy the answer."),
			);
		});
		const insert = this.deps.insert;
		if (!insert) return;
		const button = actions.createEl("button", { cls: "clickable-icon ora-ask-insert", attr: { "aria-label": "Insert into the note" } });
		setIcon(button, "file-input");
		button.addEventListener("click", () => insert(doc));
	}

	/** Turns each `[n]` of the rendered answer that names a passage into a link to it (code left alone). */
	private linkCitations(root: HTMLElement, citations: readonly Citation[]): void {
		const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		const nodes: Node[] = [];
		for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
			if (!node.parentElement?.closest("code, a")) nodes.push(node);
		}
		for (const node of nodes) {
			const segments = answerSegments(node.textContent ?? "", citations);
			if (!segments.some((segment) => "citation" in segment)) continue;
			const parent = node.parentElement;
			if (!parent) continue;
			const holder = parent.createSpan();
			for (const segment of segments) {
				if ("text" in segment) holder.appendText(segment.text);
				else this.citeLink(holder, segment.citation, `[${segment.n}]`);
			}
			parent.replaceChild(holder, node);
			holder.replaceWith(...Array.from(holder.childNodes));
		}
	}

	private citeLink(parent: HTMLElement, citation: Citation, label: string): void {
		const link = parent.createEl("a", {
			cls: "ora-cite",
			text: label,
			attr: { href: "#", "aria-label": `${citation.path}, ${citedPlace(citation)}` },
		});
		setTooltip(link, `${citation.path} · ${citedPlace(citation)}`);
		link.addEventListener("click", (evt) => {
			evt.preventDefault();
			void this.deps.open(citation.path, citation.line_start, citation.line_end, Keymap.isModEvent(evt), citation.link ?? null);
		});
	}
}

/** An exchange still being answered (its text may be streaming in). */
function isPending(exchange: Exchange): boolean {
	return !exchange.answer && !exchange.error && !exchange.stopped && exchange.loggedAnswer === undefined;
}

/** The conversation shown, once it has an answer written to its chat note (and none is being written). */
function extractable(state: AskState): string | null {
	if (state.busy || !state.exchanges.some((e) => e.answer !== null || e.loggedAnswer !== undefined)) return null;
	return state.conversation;
}

/** "lines 3–9", or "PDF · page 7" for a document's page. */
function citedPlace(citation: Citation): string {
	return placeLabel({
		path: citation.path, lineStart: citation.line_start, lineEnd: citation.line_end,
		page: citation.page ?? null, link: citation.link ?? null,
	});
}
