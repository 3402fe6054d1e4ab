import { describe, expect, it } from "vitest";

import { markdownToPlain } from "../../src/search/plain";

describe("markdownToPlain", () => {
	it.each([
		["# Title\n\nBody", "Title Body"],
		["**bold** and __strong__ and *em* and _em_", "bold and strong and em and em"],
		["[[Note]] [[Folder/Note#Heading|alias]] [[#Only heading]] ![[image.png]]", "Note alias Only heading image.png"],
		["[label](https://example.org) ![alt](pic.png)", "label alt"],
		["- [ ] task\n- [x] done\n1. first\n> quoted", "task done first quoted"],
		["```python\nprint(1)\n```", "print(1)"],
		["`inline code` ~~gone~~ ==marked==", "inline code gone marked"],
		["a #tag and #nested/tag, not # heading-like or #123", "a tag and nested/tag, not # heading-like or #123"],
		["%% hidden comment %% <!-- also --> <span>kept</span>", "kept"],
		["snake_case_name and 2*3*4", "snake_case_name and 2*3*4"],
	])("%j reads as %j", (markdown, plain) => {
		expect(markdownToPlain(markdown)).toBe(plain);
	});
});
