import { Modal, Setting, type App } from "obsidian";

/** Asks before a write; resolves true only on the confirm button. */
export function confirmWrite(app: App, title: string, text: string, confirmLabel: string): Promise<boolean> {
	return new Promise((resolve) => new ConfirmModal(app, title, text, confirmLabel, resolve).open());
}

class ConfirmModal extends Modal {
	private answered = false;

	constructor(
		app: App,
		private readonly title: string,
		private readonly text: string,
		private readonly confirmLabel: string,
		private readonly resolve: (ok: boolean) => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.titleEl.setText(this.title);
		this.contentEl.addClass("ora-confirm");
		this.contentEl.createEl("p", { text: this.text });
		new Setting(this.contentEl)
			.addButton((b) => b.setButtonText("Cancel").onClick(() => this.answer(false)))
			.addButton((b) => {
				b.setButtonText(this.confirmLabel).onClick(() => this.answer(true));
				// setWarning is deprecated and its replacement needs Obsidian 1.13: the class is the same.
				b.buttonEl.addClass("mod-warning");
			});
	}

	override onClose(): void {
		this.contentEl.empty();
		if (!this.answered) this.resolve(false);
	}

	private answer(ok: boolean): void {
		this.answered = true;
		this.resolve(ok);
		this.close();
	}
}
