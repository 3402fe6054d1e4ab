import { describe, expect, it } from "vitest";

import { MANAGED_DATES } from "../../src/lint/fixes";
import { fixDatesInEditor } from "../../src/ui/file-dates";

/** An editor over `text`: offsets and positions as CodeMirror counts them, each change recorded. */
function anEditor(text: string) {
	let value = text;
	const changes: string[] = [];
	const offsetOf = (pos: { line: number; ch: number }) => value.split("\n").slice(0, pos.line).reduce((n, line) => n + line.length + 1, 0) + pos.ch;
	return {
		changes,
		text: () => value,
		getValue: () => value,
		offsetToPos: (offset: number) => {
			const before = value.slice(0, offset).split("\n");
			return { line: before.length - 1, ch: before.at(-1)?.length ?? 0 };
		},
		replaceRange: (insert: string, from: { line: number; ch: number }, to?: { line: number; ch: number }) => {
			changes.push(insert);
			value = value.slice(0, offsetOf(from)) + insert + value.slice(offsetOf(to ?? from));
		},
	};
}

describe("fixDatesInEditor", () => {
	const [created, modified] = MANAGED_DATES;
	const dates = { [created ?? ""]: "2026-01-15", [modified ?? ""]: "2026-02-15" };

	it("adds the absent dates through the open editor, as one change one undo reverts", () => {
		const editor = anEditor(`---\ntype: engram\n${created}: 2025-12-01\n---\nBody\n`);
		expect(fixDatesInEditor(editor, dates, "Sleep")).toBe("Dates fixed in Sleep.");
		expect(editor.changes).toEqual([`${modified}: 2026-02-15\n`]);
		expect(editor.text()).toBe(`---\ntype: engram\n${created}: 2025-12-01\n${modified}: 2026-02-15\n---\nBody\n`);
	});

	it("changes nothing, and says so, when the dates are there", () => {
		const editor = anEditor(`---\n${created}: 2025-12-01\n${modified}: 2025-12-02\n---\n`);
		expect(fixDatesInEditor(editor, dates, "Sleep")).toBe("Dates in Sleep were already set.");
		expect(editor.changes).toEqual([]);
	});
});
