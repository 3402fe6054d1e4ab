import { Modal, Notice, setIcon, type App } from "obsidian";

import type { SidecarClient } from "../api/client";
import type { Pair, Resolution } from "../api/types";
import { confirmText, pairCard, resolution, type ClaimCard, type TriageAction } from "../triage/model";
import { confirmWrite } from "./confirm-modal";

export interface TriageDeps {
	client: SidecarClient;
	open: (path: string, lineStart: number, lineEnd: number) => Promise<void>;
	/** Told the number of pairs still open after each load or resolution. */
	onOpenCount: (count: number) => void;
	/** Asks the user before a write; replaced in tests and screenshots. */
	confirm?: (title: string, text: string, confirmLabel: string) => Promise<boolean>;
}

/** Lists open contradiction pairs side by side and resolves them, each write confirmed first. */
export class TriageModal extends Modal {
	private pairs: Pair[] = [];

	constructor(
		app: App,
		private readonly deps: TriageDeps,
	) {
		super(app);
	}

	override onOpen(): void {
		this.modalEl.addClass("ora-triage-modal");
		this.titleEl.setText("Contradiction triage");
		void this.load();
	}

	override onClose(): void {
		this.contentEl.empty();
	}

	async load(): Promise<void> {
		this.state("loader", "Loading open pairs…");
		try {
			this.pairs = await this.deps.client.contradictions("open");
		} catch (err) {
			this.state("alert-triangle", err instanceof Error ? err.message : String(err), "ora-error");
			return;
		}
		this.deps.onOpenCount(this.pairs.length);
		this.render();
	}

	private render(): void {
		const el = this.contentEl;
		el.empty();
		if (this.pairs.length === 0) {
			this.state("check-circle", "No open contradictions.");
			return;
		}
		el.createDiv({ cls: "ora-triage-count", text: `${this.pairs.length} open ${this.pairs.length === 1 ? "pair" : "pairs"}` });
		for (const pair of this.pairs) this.renderPair(el.createDiv({ cls: "ora-pair" }), pair);
	}

	private renderPair(el: HTMLElement, pair: Pair): void {
		const card = pairCard(pair);
		const head = el.createDiv({ cls: "ora-pair-head" });
		head.createSpan({ cls: "ora-pair-title", text: card.heading });
		head.createSpan({ cls: "ora-badge", text: `${card.judge} · ${card.score}` });
		el.createDiv({ cls: "ora-pair-proposal", text: card.proposal });

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
		this.button(other, "Flag for reflection", pair, "flag", null);
		this.button(other, "Dismiss", pair, "dismiss", null);
	}

	private renderClaim(parent: HTMLElement, claim: ClaimCard): void {
		const box = parent.createDiv({ cls: "ora-claim" });
		const head = box.createDiv({ cls: "ora-claim-head" });
		head.createSpan({ cls: "ora-claim-side", text: claim.side.toUpperCase() });
		const link = head.createEl("a", { cls: "ora-claim-path", text: claim.path, attr: { href: "#" } });
		head.createSpan({ cls: "ora-claim-lines", text: claim.lines });
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
		button.addEventListener("click", () => void this.resolve(pair, resolution(action, chosen, deleteNote), label));
	}

	private async resolve(pair: Pair, res: Resolution, label: string): Promise<void> {
		const confirm =
			this.deps.confirm ?? ((title, text, ok) => confirmWrite(this.app, title, text, ok));
		if (!(await confirm(label, confirmText(res, pair), label))) return;
		try {
			const answer = await this.deps.client.resolve(pair.id, res);
			const changed = answer.changed.length ? `Changed: ${answer.changed.join(", ")}` : "No files changed.";
			new Notice(`Resolved (${res.action}). ${changed}`);
		} catch (err) {
			new Notice(`Could not resolve: ${err instanceof Error ? err.message : String(err)}`);
			return;
		}
		this.pairs = this.pairs.filter((p) => p.id !== pair.id);
		this.deps.onOpenCount(this.pairs.length);
		this.render();
	}

	private state(icon: string, text: string, cls = ""): void {
		this.contentEl.empty();
		const box = this.contentEl.createDiv({ cls: `ora-message ${cls}`.trim() });
		setIcon(box.createSpan({ cls: "ora-message-icon" }), icon);
		box.createSpan({ text });
	}
}
