import { linter, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import type { Extension } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";

import type { Diagnostic } from "../api/types";
import { placeDiagnostics } from "./ranges";

/** Where the lint extension gets its answers: the editor's note path and the sidecar's lint call. */
export interface LintSourceOptions {
	/** The vault path of the note in this editor, or null to skip (not a note, lint disabled). */
	pathOf: (view: EditorView) => string | null;
	lint: (path: string, text: string) => Promise<Diagnostic[]>;
	/** Called when the sidecar could not be asked; the editor then shows no marks. */
	onError?: (err: unknown) => void;
}

/** The CodeMirror lint source: sends the unsaved text and places the answers on their lines. */
export function lintSource(options: LintSourceOptions): (view: EditorView) => Promise<CmDiagnostic[]> {
	return async (view) => {
		const path = options.pathOf(view);
		if (path === null) return [];
		const text = view.state.doc.toString();
		let diagnostics: Diagnostic[];
		try {
			diagnostics = await options.lint(path, text);
		} catch (err) {
			options.onError?.(err);
			return [];
		}
		// The answer may be for an older text; place it only while the document is unchanged.
		if (view.state.doc.toString() !== text) return [];
		return placeDiagnostics(text, diagnostics);
	};
}

/** The editor extension: CodeMirror's own `delay` is the debounce between keystrokes and requests. */
export function frontmatterLinter(options: LintSourceOptions, delayMs: number): Extension {
	return linter(lintSource(options), { delay: delayMs });
}
