import { describe, expect, it } from "vitest";

import { streamedBlocks } from "../../src/ask/blocks";

describe("streamedBlocks", () => {
	it("keeps everything in the tail until a blank line ends a block", () => {
		expect(streamedBlocks("Wild yeast and")).toEqual({ done: [], tail: "Wild yeast and" });
		expect(streamedBlocks("Wild yeast.\n")).toEqual({ done: [], tail: "Wild yeast.\n" });
	});

	it("gives the blocks a blank line has closed, and the rest as the tail", () => {
		expect(streamedBlocks("# Leaven\n\n- yeast\n- bacteria\n\nSlowly")).toEqual({ done: ["# Leaven", "- yeast\n- bacteria"], tail: "Slowly" });
	});

	it("never cuts inside a code fence, even at a blank line", () => {
		const text = "Run:\n\n```\nora serve\n\nora search\n```\n\nDone";
		expect(streamedBlocks(text)).toEqual({ done: ["Run:", "```\nora serve\n\nora search\n```"], tail: "Done" });
		expect(streamedBlocks("```\na\n\nb")).toEqual({ done: [], tail: "```\na\n\nb" });
	});
});
