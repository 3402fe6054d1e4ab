import { describe, expect, it } from "vitest";

import { placeDiagnostics } from "../../src/lint/ranges";
import { aDiagnostic } from "../builders";

const NOTE = "---\ntype: engramm\n  tags: [a]\n\n---\nbody\n";

describe("placeDiagnostics", () => {
	it("covers the key's line from its first non-blank character to the line end", () => {
		const [placed] = placeDiagnostics(NOTE, [aDiagnostic({ line: 2 })]);
		expect(NOTE.slice(placed?.from, placed?.to)).toBe("type: engramm");
		expect(placed).toMatchObject({ severity: "error", source: "unknown-type" });
	});

	it("skips indentation", () => {
		const [placed] = placeDiagnostics(NOTE, [aDiagnostic({ line: 3, severity: "warning" })]);
		expect(NOTE.slice(placed?.from, placed?.to)).toBe("tags: [a]");
		expect(placed?.severity).toBe("warning");
	});

	it("gives an empty line a one-character range so the mark stays visible", () => {
		const [placed] = placeDiagnostics(NOTE, [aDiagnostic({ line: 4 })]);
		expect((placed?.to ?? 0) - (placed?.from ?? 0)).toBe(1);
	});

	it("clamps lines past either end onto the document", () => {
		const text = "---\na: 1\n---";
		const [low, high] = placeDiagnostics(text, [aDiagnostic({ line: 0 }), aDiagnostic({ line: 99 })]);
		expect(text.slice(low?.from, low?.to)).toBe("---");
		expect(high?.to).toBe(text.length);
		expect(text.slice(high?.from, high?.to)).toBe("---");
	});

	it("leaves a CRLF line's carriage return outside the range", () => {
		const text = "---\r\ntype: x\r\n---\r\n";
		const [placed] = placeDiagnostics(text, [aDiagnostic({ line: 2 })]);
		expect(text.slice(placed?.from, placed?.to)).toBe("type: x");
	});
});
