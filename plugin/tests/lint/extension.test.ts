import { history, undo, redo } from "@codemirror/commands";
import { diagnosticCount, forceLinting, forEachDiagnostic, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { EditorState, StateEffect, type Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { afterEach, describe, expect, it } from "vitest";

import type { Diagnostic } from "../../src/api/types";
import { frontmatterLinter, LintedEditors, lintSource } from "../../src/lint/extension";
import { aDiagnostic } from "../builders";

const NOTE = "---\nnexus: []\ntype: engramm\ntags: []\ndate created: 2024-13-01\n---\n# Body\n";

let view: EditorView | null = null;
afterEach(() => {
	view?.destroy();
	view = null;
});

/** A real CodeMirror editor in happy-dom holding NOTE, with these extensions. */
function mounted(...extensions: Extension[]): EditorView {
	const parent = document.body.appendChild(document.createElement("div"));
	view = new EditorView({ parent, state: EditorState.create({ doc: NOTE, extensions }) });
	return view;
}

/** A real CodeMirror editor in happy-dom with the plugin's lint extension. */
function editor(lint: (path: string, text: string) => Promise<Diagnostic[]>, path: string | null = "Engrams/N.md"): EditorView {
	return mounted(frontmatterLinter({ pathOf: () => path, lint }, 0));
}

async function settled(v: EditorView, count: number): Promise<void> {
	forceLinting(v);
	for (let i = 0; i < 100 && diagnosticCount(v.state) < count; i++) await new Promise((r) => setTimeout(r, 10));
}

describe("frontmatterLinter", () => {
	it("sends the editor text and underlines each diagnostic's key line", async () => {
		const sent: { path: string; text: string }[] = [];
		const v = editor(async (path, text) => {
			sent.push({ path, text });
			return [
				aDiagnostic({ line: 3, code: "unknown-type", message: "type 'engramm' is unknown" }),
				aDiagnostic({ line: 5, severity: "warning", code: "bad-date", message: "date created is not a date" }),
			];
		});
		await settled(v, 2);
		expect(sent).toEqual([{ path: "Engrams/N.md", text: NOTE }]);
		const found: { text: string; severity: string; message: string; source?: string }[] = [];
		forEachDiagnostic(v.state, (d, from, to) =>
			found.push({ text: v.state.sliceDoc(from, to), severity: d.severity, message: d.message, source: d.source }),
		);
		expect(found).toEqual([
			{ text: "type: engramm", severity: "error", message: "type 'engramm' is unknown", source: "unknown-type" },
			{ text: "date created: 2024-13-01", severity: "warning", message: "date created is not a date", source: "bad-date" },
		]);
		// The marks are drawn in the editor's DOM as CodeMirror lint ranges.
		await new Promise((r) => requestAnimationFrame(r));
		const marks = [...v.contentDOM.querySelectorAll(".cm-lintRange-error, .cm-lintRange-warning")];
		expect(marks.map((m) => [m.className.includes("error") ? "error" : "warning", m.textContent])).toEqual([
			["error", "type: engramm"],
			["warning", "date created: 2024-13-01"],
		]);
	});

	it("asks nothing for an editor without a note path", async () => {
		let asked = 0;
		const source = lintSource({ pathOf: () => null, lint: async () => (asked++, [aDiagnostic()]) });
		const v = editor(async () => []);
		expect(await source(v)).toEqual([]);
		expect(asked).toBe(0);
	});

	it("shows no marks and reports the error when the sidecar cannot be asked", async () => {
		const errors: unknown[] = [];
		const source = lintSource({
			pathOf: () => "N.md",
			lint: () => Promise.reject(new Error("unreachable")),
			onError: (e) => errors.push(e),
		});
		const v = editor(async () => []);
		expect(await source(v)).toEqual([]);
		expect(errors).toHaveLength(1);
	});

	it("discards an answer for text that changed while the request was out", async () => {
		let release: (d: Diagnostic[]) => void = () => undefined;
		const source = lintSource({ pathOf: () => "N.md", lint: () => new Promise((r) => (release = r)) });
		const v = editor(async () => []);
		const pending = source(v);
		v.dispatch({ changes: { from: 0, insert: "x" } });
		release([aDiagnostic({ line: 3 })]);
		expect(await pending).toEqual([]);
	});

	it("offers quick fixes as actions that apply as one undoable transaction", async () => {
		const ignored: string[] = [];
		const lint = async () =>
			ignored.length
				? []
				: [
						aDiagnostic({ line: 3, code: "type-unknown", message: "unknown type 'engramm' (did you mean 'engram'?); choose from: …" }),
						aDiagnostic({ line: 1, severity: "warning", code: "date-missing", message: "missing `date created`; …" }),
					];
		view = mounted(
		history(),
		frontmatterLinter(
			{
				pathOf: () => "Engrams/N.md",
				lint,
				fixes: { dates: () => ({ "date created": "2024-01-02", "date modified": "2024-01-03" }), ignore: async (t) => void ignored.push(t) },
			},
			0,
		),
		);
		const v = view;
		await settled(v, 2);
		const found: { d: CmDiagnostic; from: number; to: number }[] = [];
		forEachDiagnostic(v.state, (d, from, to) => found.push({ d, from, to }));
		expect(found.map((f) => f.d.actions?.map((a) => a.name))).toEqual([
			["Add date modified", "Ignore lint for this note", "Ignore lint for this folder"],
			["Replace with 'engram'", "Ignore lint for this note", "Ignore lint for this folder"],
		]);
		expect(v.state.doc.toString()).toBe(NOTE); // nothing is written until a fix is chosen

		let transactions = 0;
		const count = EditorView.updateListener.of((u) => (transactions += u.transactions.length));
		v.dispatch({ effects: [] }); // settle before counting
		v.dispatch({ effects: StateEffect.appendConfig.of(count) });
		transactions = 0;
		const [dateFix, typeFix] = found;
		typeFix?.d.actions?.[0]?.apply(v, typeFix.from, typeFix.to);
		expect(transactions).toBe(1);
		expect(v.state.doc.toString()).toBe(NOTE.replace("type: engramm", "type: engram"));
		dateFix?.d.actions?.[0]?.apply(v, dateFix.from, dateFix.to);
		expect(v.state.doc.toString()).toContain("date created: 2024-13-01\ndate modified: 2024-01-03\n---");
		undo(v);
		expect(v.state.doc.toString()).toBe(NOTE.replace("type: engramm", "type: engram"));
		undo(v);
		expect(v.state.doc.toString()).toBe(NOTE);
		redo(v);
		expect(v.state.doc.toString()).toBe(NOTE.replace("type: engramm", "type: engram"));

		// Ignoring changes no text, yet the marks must go: the linter is asked to run again.
		await settled(v, 2);
		typeFix?.d.actions?.[2]?.apply(v, typeFix.from, typeFix.to);
		for (let i = 0; i < 100 && diagnosticCount(v.state) > 0; i++) await new Promise((r) => setTimeout(r, 10));
		expect(ignored).toEqual(["Engrams/"]);
		expect(diagnosticCount(v.state)).toBe(0);
	});
});

describe("the ignore quick fix", () => {
	it("reports a refused ignore through onError instead of an unhandled rejection, keeping the marks", async () => {
		const errors: unknown[] = [];
		view = mounted(
		frontmatterLinter(
			{
				pathOf: () => "Engrams/N.md",
				lint: async () => [aDiagnostic({ line: 3 })],
				onError: (err) => errors.push(err),
				fixes: {
					dates: () => ({}),
					ignore: async () => {
						throw new Error("ora.yaml is not valid YAML (line 3)");
					},
				},
			},
			0,
		),
		);
		const v = view;
		await settled(v, 1);
		const found: { d: CmDiagnostic; from: number; to: number }[] = [];
		forEachDiagnostic(v.state, (d, from, to) => found.push({ d, from, to }));
		const ignore = found[0]?.d.actions?.find((a) => a.name === "Ignore lint for this note");
		ignore?.apply(v, found[0]?.from ?? 0, found[0]?.to ?? 0);
		for (let i = 0; i < 50 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
		expect(errors.map((e) => (e instanceof Error ? e.message : e))).toEqual(["ora.yaml is not valid YAML (line 3)"]);
		expect(diagnosticCount(v.state)).toBe(1);
	});
});

describe("LintedEditors", () => {
	it("lints an open editor again once the sidecar is ready, without an edit", async () => {
		const editors = new LintedEditors();
		let ready = false;
		const calls: string[] = [];
		view = mounted(
		frontmatterLinter(
			{
				pathOf: () => (ready ? "Engrams/N.md" : null),
				lint: async (path) => {
					calls.push(path);
					return [aDiagnostic({ line: 3, code: "unknown-type", message: "type 'engramm' is unknown" })];
				},
			},
			0,
			editors,
		),
		);
		await new Promise((r) => setTimeout(r, 50)); // the first lint ran while the sidecar was not ready
		expect(diagnosticCount(view.state)).toBe(0);
		ready = true;
		expect(editors.relint()).toBe(1);
		for (let i = 0; i < 100 && diagnosticCount(view.state) === 0; i++) await new Promise((r) => setTimeout(r, 10));
		expect(calls).toEqual(["Engrams/N.md"]);
		expect(diagnosticCount(view.state)).toBe(1);
		view.destroy();
		view = null;
		expect(editors.relint()).toBe(0);
	});
});
