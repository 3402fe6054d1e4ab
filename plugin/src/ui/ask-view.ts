import { ItemView, Keymap, Notice, ToggleComponent, setIcon, setTooltip, type PaneType, type TAbstractFile, type WorkspaceLeaf } from "obsidian";

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
}

/** Ask the vault: cited answers, `[n]` links to the passages, a list of conversations to continue. */
export class AskView extends ItemView {
	private controller: AskController | null = null;
	private pickerEl: HTMLSelectElement | null = null;
	private helpEl: HTMLElement | null = null;
	private logEl: HTMLElement | null = null;
	private input: HTMLTextAreaElement | null = null;
	private sendButton: HTMLButtonElement | null = null;
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
		const toggleWrap = top.createDiv({ cls: "ora-toggle" });
		toggleWrap.createSpan({ text: "Private" });
		const privateToggle = new ToggleComponent(toggleWrap);
		privateToggle.toggleEl.setAttr("aria-label", "Private mode");
		setTooltip(privateToggle.toggleEl, "Private mode: private notes may be cited, and the turns are kept private");
		this.helpEl = root.createDiv({ cls: "ora-ask-help" });
		this.logEl = root.createDiv({ cls: "ora-ask-log", attr: { "aria-live": "polite" } });
		const form = root.createDiv({ cls: "ora-ask-form" });
		this.input = form.createEl("textarea", {
			cls: "ora-ask-input",
			attr: { rows: "3", placeholder: "Ask your vault…", "aria-label": "Question" },
		});
		this.sendButton = form.createEl("button", { cls: "mod-cta ora-ask-send", text: "Ask" });

		const controller = new AskController({
			ask: (request, onDelta, signal) => (this.deps.stream ? this.deps.stream(request, onDelta, signal) : this.deps.client().ask(request)),
			load: (id, privateMode) => this.deps.client().conversation(id, privateMode),
			onState: (state) => this.show(state),
			onConversation: (entry) => void this.remember(entry),
		});
		this.controller = controller;
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
		this.registerDomEvent(this.input, "keydown", (evt) => {
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
		const answered = await this.controller.ask(question);
		// Not answered (the sidecar stopped, say): the question goes back in the box, to send again.
		if (!answered && this.input.value === "") {
			this.input.value = question;
			this.privateUnanswered = asPrivate && this.controller?.isPrivate ? question : null;
		}
	}

	private async remember(entry: ConversationEntry): Promise<void> {
		const list = rememberConversation(this.deps.conversations(), entry);
		await this.deps.saveConversations(list);
		this.drawPicker(entry.id);
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
		if (this.pickerEl && state.conversation === null) this.pickerEl.value = "";
		log.empty();
		if (state.exchanges.length === 0) {
			log.createDiv({ cls: "ora-message", text: "Ask a question: the answer cites the notes it comes from." });
			return;
		}
		for (const exchange of state.exchanges) this.drawExchange(log, exchange);
	}

	private drawExchange(log: HTMLElement, exchange: Exchange): void {
		const box = log.createDiv({ cls: "ora-ask-exchange" });
		if (exchange.question) box.createDiv({ cls: "ora-ask-question", text: exchange.question });
		const answer = box.createDiv({ cls: "ora-ask-answer" });
		if (exchange.error) {
			answer.addClass("ora-error");
			answer.setText(exchange.error);
		} else if (exchange.answer) {
			this.drawAnswer(answer, exchange.answer);
		} else if (exchange.loggedAnswer !== undefined) {
			answer.createDiv({ cls: "ora-ask-text", text: exchange.loggedAnswer });
		} else if (exchange.partial) {
			// Citations become links once the whole answer (with its passages) has arrived.
			answer.addClass("is-streaming");
			answer.createDiv({ cls: "ora-ask-text", text: exchange.partial });
		} else {
			answer.addClass("ora-loading");
			answer.setText("Thinking…");
		}
	}

	private drawAnswer(el: HTMLElement, doc: AskDocument): void {
		const text = el.createDiv({ cls: "ora-ask-text" });
		for (const segment of answerSegments(doc.answer, doc.citations)) {
			if ("text" in segment) text.appendText(segment.text);
			else this.citeLink(text, segment.citation, `[${segment.n}]`);
		}
		const label = generatorLabel(doc);
		el.createDiv({ cls: `ora-ask-generator ${label.generated ? "is-generated" : "is-extractive"}`, text: label.text });
		if (doc.citations.length === 0) return;
		const sources = el.createDiv({ cls: "ora-ask-sources" });
		for (const citation of doc.citations) {
			const row = sources.createDiv({ cls: `ora-ask-source${citation.cited ? " is-cited" : ""}` });
			this.citeLink(row, citation, `[${citation.n}]`);
			row.appendText(` ${citation.title || titleFromPath(citation.path)} · ${citedPlace(citation)}`);
			if (citation.private) row.createSpan({ cls: "ora-badge ora-flag ora-flag-private", text: "Private" });
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

/** "lines 3–9", or "PDF · page 7" for a document's page. */
function citedPlace(citation: Citation): string {
	return placeLabel({
		path: citation.path, lineStart: citation.line_start, lineEnd: citation.line_end,
		page: citation.page ?? null, link: citation.link ?? null,
	});
}
