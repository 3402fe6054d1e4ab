import type { MarkdownView, TFile } from "obsidian";

/**
 * Puts an "Extract engrams" button in the header of each open chat note, and takes it off a view
 * that shows another note now (a tab keeps its view when another file is opened in it).
 */
export class ChatNoteButtons {
	private readonly buttons = new Map<MarkdownView, HTMLElement>();

	constructor(
		private readonly isChatNote: (file: TFile) => boolean,
		private readonly extract: (file: TFile) => void,
	) {}

	/** Brings the buttons in line with the open note views (after a file opens, a layout change, a frontmatter edit). */
	sync(views: readonly MarkdownView[]): void {
		for (const [view, button] of this.buttons) {
			if (views.includes(view) && this.showsChatNote(view)) continue;
			button.remove();
			this.buttons.delete(view);
		}
		for (const view of views) {
			if (this.buttons.has(view) || !this.showsChatNote(view)) continue;
			const button = view.addAction("sparkles", "Extract engrams", () => {
				if (view.file) this.extract(view.file);
			});
			this.buttons.set(view, button);
		}
	}

	/** The plugin unloads: every button goes. */
	clear(): void {
		for (const button of this.buttons.values()) button.remove();
		this.buttons.clear();
	}

	private showsChatNote(view: MarkdownView): boolean {
		return view.file !== null && this.isChatNote(view.file);
	}
}
