import { forceLinting, linter, type Action, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { StateEffect, type Extension } from "@codemirror/state";
import { ViewPlugin, type EditorView } from "@codemirror/view";

import type { Diagnostic } from "../api/types";
import { kindedFixes, type FixContext, type QuickFix } from "./fixes";
import { placeDiagnostics } from "./ranges";

/** Where the lint extension gets its answers: the editor's note path and the sidecar's lint call. */
export interface LintSourceOptions {
	/** The vault path of the note in this editor, or null to skip (not a note, lint disabled). */
	pathOf: (view: EditorView) => string | null;
	lint: (path: string, text: string) => Promise<Diagnostic[]>;
	/** Called when the sidecar could not be asked; the editor then shows no marks. */
	onError?: (err: unknown) => void;
	/** Quick fixes: how to date a note, and how to add a path to the vault's lint ignore list. */
	fixes?: {
		dates: (path: string) => Record<string, string>;
		ignore?: (target: string) => Promise<void>;
	};
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
		const placed = placeDiagnostics(text, diagnostics);
		if (!options.fixes) return placed;
		return placed.map((p, i) => {
			const source = diagnostics[i];
			const actions = source ? fixActions(text, source, path, options) : [];
			return actions.length ? { ...p, actions } : p;
		});
	};
}

function context(path: string, options: LintSourceOptions): FixContext {
	const fixes = options.fixes;
	return { path, dates: () => fixes?.dates(path) ?? {}, canIgnore: Boolean(fixes?.ignore) };
}

/**
 * One CodeMirror action per quick fix. The fix is worked out again on the document as it is when
 * clicked (the user may have typed since), from the diagnostic's line there, found by its kind (its
 * name may have changed: "Add the missing dates" is "Add date modified" once the user typed one),
 * and applied as one transaction: one undo step. A fix the text no longer needs does nothing but
 * lint the note again, so the stale mark and its fixes are replaced by the note's as it is now.
 */
function fixActions(text: string, diagnostic: Diagnostic, path: string, options: LintSourceOptions): Action[] {
	return kindedFixes(text, diagnostic, context(path, options)).map(({ kind, fix: { name } }) => ({
		name,
		apply: (view: EditorView, from: number) => {
			const line = view.state.doc.lineAt(from).number;
			const now = kindedFixes(view.state.doc.toString(), { ...diagnostic, line }, context(path, options));
			const found = now.find((f) => f.kind === kind);
			if (found) applyFix(view, found.fix, options);
			else relint(view);
		},
	}));
}

/** Lints `view` again now, although its text may not have changed since the last lint. */
function relint(view: EditorView): void {
	view.dispatch({ effects: relintEffect.of(null) });
	forceLinting(view); // now, not after the typing delay
}

/** Applies a fix: text changes as one transaction, or the ignore list through the sidecar. */
export function applyFix(view: EditorView, fix: QuickFix, options: Pick<LintSourceOptions, "fixes" | "onError">): void {
	if ("changes" in fix) {
		view.dispatch({ changes: fix.changes, userEvent: "input.fix" });
		return;
	}
	const ignore = options.fixes?.ignore;
	if (!ignore) return;
	ignore(fix.ignore).then(
		() => relint(view),
		// Refused (ora.yaml unreadable, no sidecar): say so; the marks stay, as the note is still linted.
		(err: unknown) => options.onError?.(err),
	);
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
		for (const view of this.views) relint(view);
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
