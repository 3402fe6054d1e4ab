/**
 * A streamed Markdown answer cut where it can be drawn for good: the blocks that are complete
 * (a blank line after them, outside a code fence) and the tail still being written. Completed
 * blocks are rendered once and never redrawn, so a reader can select text while the rest streams.
 */
export interface StreamedBlocks {
	done: string[];
	tail: string;
}

const FENCE = /^\s{0,3}(```|~~~)/;

export function streamedBlocks(text: string): StreamedBlocks {
	const lines = text.split("\n");
	const done: string[] = [];
	let block: string[] = [];
	let fenced = false;
	// The last line may be unfinished: it always stays in the tail.
	for (let i = 0; i < lines.length - 1; i++) {
		const line = lines[i] ?? "";
		if (FENCE.test(line)) fenced = !fenced;
		if (!fenced && line.trim() === "") {
			if (block.length > 0) done.push(block.join("\n"));
			block = [];
			continue;
		}
		block.push(line);
	}
	block.push(lines[lines.length - 1] ?? "");
	return { done, tail: block.join("\n").replace(/^\n+/, "") };
}
