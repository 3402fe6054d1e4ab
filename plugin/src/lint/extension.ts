import { forceLinting, linter, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { StateEffect, type Extension } from "@codemirror/state";
import { ViewPlugin, type EditorView } from "@codemirror/view";

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

/**
 * The editors that carry the linter, so they can all be linted again at once: when the sidecar
 * becomes ready (notes open at start-up were skipped while it was not), and when the vault changes
 * (a new note can make a broken link valid). CodeMirror lints by itself only after an edit.
 */
export class LintedEditors {
	private readonly views = new Set<EditorView>();

	/** The extension that registers each editor while it lives. */
	track(): Extension {
		return ViewPlugin.define((view) => {
			this.views.add(view);
			return { destroy: () => this.views.delete(view) };
		});
	}

	/** Lints every open editor now; returns how many. */
	relint(): number {
		for (const view of this.views) {
			view.dispatch({ effects: relintEffect.of(null) });
			forceLinting(view); // now, not after the typing delay
		}
		return this.views.size;
	}
}

/** Marks a transaction after which the linter must run although the text did not change. */
const relintEffect = StateEffect.define<null>();

/** The editor extension: CodeMirror's own `delay` is the debounce between keystrokes and requests. */
export function frontmatterLinter(options: LintSourceOptions, delayMs: number, editors?: LintedEditors): Extension {
	const lint = linter(lintSource(options), {
		delay: delayMs,
		needsRefresh: (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(relintEffect))),
	});
	return editors ? [lint, editors.track()] : lint;
}
