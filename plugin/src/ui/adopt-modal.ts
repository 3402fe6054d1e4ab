import { Modal, Notice, Setting, setIcon, type App } from "obsidian";

import { outcomeText, planHeadline, proposalRow } from "../adopt/model";
import { notSureText, type SidecarClient } from "../api/client";
import type { AdoptPlan } from "../api/types";

export interface AdoptDeps {
	client: SidecarClient;
	/** Told after notes were written, e.g. to refresh the status bar. */
	onApplied?: (count: number) => void;
}

/** Shows the `ora adopt` plan (counts, then each note) and applies it on confirmation. */
export class AdoptModal extends Modal {
	private plan: AdoptPlan | null = null;

	constructor(
		app: App,
		private readonly deps: AdoptDeps,
	) {
		super(app);
	}

	override onOpen(): void {
		this.modalEl.addClass("ora-adopt-modal");
		this.titleEl.setText("Adopt Ora frontmatter");
		void this.load();
	}

	override onClose(): void {
		this.contentEl.empty();
	}

	async load(): Promise<void> {
		this.state("loader", "Planning…");
		try {
			this.plan = await this.deps.client.adoptPlan();
		} catch (err) {
			this.state("alert-triangle", errorText(err), "ora-error");
			return;
		}
		this.render(this.plan);
	}

	private render(plan: AdoptPlan): void {
		const el = this.contentEl;
		el.empty();
		for (const line of planHeadline(plan)) el.createEl("p", { cls: "ora-adopt-headline", text: line });
		const list = el.createDiv({ cls: "ora-adopt-list" });
		for (const proposal of plan.proposals) {
			const row = proposalRow(proposal);
			const item = list.createEl("details", { cls: "ora-adopt-note" });
			const summary = item.createEl("summary");
			summary.createSpan({ cls: "ora-adopt-path", text: row.path });
			summary.createSpan({ cls: "ora-adopt-summary", text: row.summary });
			item.createDiv({ cls: "ora-adopt-why", text: `Type from ${row.typeWhy}.` });
			item.createEl("pre", { cls: "ora-adopt-diff", text: row.diff });
		}
		for (const skipped of plan.skipped) {
			list.createDiv({ cls: "ora-adopt-skipped", text: `Skipped ${skipped.path}: ${skipped.reason}` });
		}
		const buttons = new Setting(el).addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()));
		if (plan.proposals.length) {
			buttons.addButton((b) =>
				b
					.setButtonText(`Adopt ${plan.proposals.length} ${plan.proposals.length === 1 ? "note" : "notes"}`)
					.setCta()
					.onClick(() => void this.apply(plan)),
			);
		}
	}

	private async apply(plan: AdoptPlan): Promise<void> {
		this.state("loader", "Writing…");
		try {
			const outcome = await this.deps.client.adoptApply(plan.proposals);
			new Notice(outcomeText(outcome, "Adopted"), 10_000);
			this.deps.onApplied?.(outcome.applied?.length ?? 0);
		} catch (err) {
			// Timed out: the sidecar may write the notes all the same, once it answers again.
			const unsure = notSureText(err, "the notes were adopted", 'Check them in a moment, or run "Undo the last Ora adoption".');
			if (unsure) new Notice(unsure, 15_000);
			else new Notice(`Could not adopt: ${errorText(err)}`);
		}
		this.close();
	}

	private state(icon: string, text: string, cls = ""): void {
		this.contentEl.empty();
		const box = this.contentEl.createDiv({ cls: `ora-message ${cls}`.trim() });
		setIcon(box.createSpan({ cls: "ora-message-icon" }), icon);
		box.createSpan({ text });
	}
}

/** The command "Undo the last Ora adoption": restores and says what happened. */
export async function undoAdoption(client: SidecarClient): Promise<void> {
	try {
		new Notice(outcomeText(await client.adoptUndo(), "Restored"), 10_000);
	} catch (err) {
		// The sidecar may have restored the notes before its answer was lost: say how to see it.
		const unsure = notSureText(err, "the adoption was undone", "Check the notes in a moment.");
		if (unsure) new Notice(unsure, 15_000);
		else new Notice(`Could not undo: ${errorText(err)}`);
	}
}

export function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
