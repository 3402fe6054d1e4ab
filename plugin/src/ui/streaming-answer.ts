import { streamedBlocks } from "../ask/blocks";

/** Draws Markdown into an element (Obsidian's MarkdownRenderer in the view). */
export type RenderMarkdown = (markdown: string, el: HTMLElement) => void;

/**
 * An answer as it is streamed: each completed block rendered as Markdown once and never redrawn
 * (so a reader can select it meanwhile), the block still being written as plain text.
 */
export class StreamingAnswer {
	private rendered = 0;
	private readonly blocksEl: HTMLElement;
	private readonly tailEl: HTMLElement;

	constructor(
		el: HTMLElement,
		private readonly render: RenderMarkdown,
	) {
		this.blocksEl = el.createDiv({ cls: "ora-ask-blocks markdown-rendered" });
		this.tailEl = el.createDiv({ cls: "ora-ask-tail" });
	}

	/** The whole text streamed so far: only what is new is drawn. */
	update(text: string): void {
		const { done, tail } = streamedBlocks(text);
		for (const block of done.slice(this.rendered)) this.render(block, this.blocksEl.createDiv({ cls: "ora-ask-block" }));
		this.rendered = Math.max(this.rendered, done.length);
		if (this.tailEl.textContent !== tail) this.tailEl.setText(tail);
	}
}
