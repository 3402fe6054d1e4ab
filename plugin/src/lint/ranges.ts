import type { Diagnostic, Severity } from "../api/types";

/** A diagnostic placed in a document: character offsets, ready for CodeMirror's linter. */
export interface PlacedDiagnostic {
	from: number;
	to: number;
	severity: Severity;
	/** The sidecar's diagnostic code, shown as the source. */
	source: string;
	message: string;
}

/**
 * Maps the sidecar's 1-based line numbers onto `text`: each diagnostic covers its line from the
 * first non-blank character (the frontmatter key) to the end. A line past the end (the file
 * changed since) lands on the last line; an empty line gets a one-character range where possible
 * so the mark stays visible.
 */
export function placeDiagnostics(text: string, diagnostics: readonly Diagnostic[]): PlacedDiagnostic[] {
	const starts = lineStarts(text);
	return diagnostics.map((d) => {
		const index = Math.min(Math.max(1, Math.floor(d.line)), starts.length) - 1;
		const lineFrom = starts[index] ?? 0;
		const next = starts[index + 1];
		let lineTo = next === undefined ? text.length : next - 1;
		if (lineTo > lineFrom && text[lineTo - 1] === "\r") lineTo -= 1;
		const line = text.slice(lineFrom, lineTo);
		const indent = line.length - line.trimStart().length;
		let from = lineFrom + indent;
		let to = lineTo;
		if (from >= to) {
			from = lineFrom;
			to = Math.min(text.length, lineFrom + 1);
		}
		return { from, to, severity: d.severity, source: d.code, message: d.message };
	});
}

/** Offsets where each line starts. */
function lineStarts(text: string): number[] {
	const starts = [0];
	for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
	return starts;
}
