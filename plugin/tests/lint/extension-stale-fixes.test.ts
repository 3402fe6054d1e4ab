import { forceLinting, forEachDiagnostic, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { afterEach, describe, expect, it } from "vitest";

import type { Diagnostic } from "../../src/api/types";
import { frontmatterLinter } from "../../src/lint/extension";
import { aDiagnostic } from "../builders";

// A quick fix chosen after the user typed (before the note is linted again) is worked out on the
// text as it is now: the QA pass typed `date created:` and "Add the missing dates", renamed "Add
// date modified" by then, did nothing at all.

const NOTE = "---\nnexus: []\ntype: engram\ntags: [sleep]\n---\n# Draft\n";
const DATES = { "date created": "2020-01-01", "date modified": "2020-01-02" };
/** Long enough that CodeMirror never lints by itself during a test: only forceLinting does. */
const NO_AUTO_LINT_MS = 600_000;

let view: EditorView | null = null;
afterEach(() => {
	view?.destroy();
	view = null;
});

/** The sidecar's answer for `text`: a missing-dates warning while a managed date is absent. */
function lintDates(text: string): Diagnostic[] {
	const absent = Object.keys(DATES).filter((key) => !text.includes(`${key}:`));
	return absent.length ? [aDiagnostic({ line: 1, severity: "warning", code: "date-missing", message: `missing \`${absent.join("`, `")}\`` })] : [];
}

/** A real CodeMirror editor with the plugin's linter; `asked` counts the lint requests. */
function editor(asked: string[]): EditorView {
	const lint = async (_path: string, text: string) => {
		asked.push(text);
		return lintDates(text);
	};
	const parent = document.body.appendChild(document.createElement("div"));
	const extension = frontmatterLinter({ pathOf: () => "Drafts/D.md", lint, fixes: { dates: () => DATES } }, NO_AUTO_LINT_MS);
	view = new EditorView({ parent, state: EditorState.create({ doc: NOTE, extensions: [extension] }) });
	return view;
}

function marks(v: EditorView): { d: CmDiagnostic; from: number; to: number }[] {
	const found: { d: CmDiagnostic; from: number; to: number }[] = [];
	forEachDiagnostic(v.state, (d, from, to) => found.push({ d, from, to }));
	return found;
}

/** Bounded polling until `done` holds. */
async function until(done: () => boolean): Promise<void> {
	for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
	expect(done()).toBe(true);
}

/** The note linted, then `typed` inserted after the opening fence: its (stale) missing-dates mark. */
async function staleMark(v: EditorView, asked: string[], typed: string): Promise<{ d: CmDiagnostic; from: number; to: number }> {
	forceLinting(v);
	await until(() => marks(v).length === 1);
	v.dispatch({ changes: { from: 4, insert: typed } });
	const [mark] = marks(v);
	expect(mark?.d.actions?.map((a) => a.name)).toEqual(["Add the missing dates"]);
	expect(asked).toHaveLength(1); // not linted again since the user typed
	return mark as { d: CmDiagnostic; from: number; to: number };
}

describe("a quick fix chosen after the user typed", () => {
	it("adds the dates still missing when the user typed one of them", async () => {
		const asked: string[] = [];
		const v = editor(asked);
		const mark = await staleMark(v, asked, "date created: 2019-05-05\n");
		mark.d.actions?.[0]?.apply(v, mark.from, mark.to);
		const text = v.state.doc.toString();
		expect(text.match(/date created/g)).toHaveLength(1);
		expect(text).toContain("date created: 2019-05-05\n");
		expect(text).toContain("date modified: 2020-01-02\n---\n");
	});

	it("changes nothing and lints the note again when nothing is missing any more", async () => {
		const asked: string[] = [];
		const v = editor(asked);
		const typed = "date created: 2019-05-05\ndate modified: 2019-05-06\n";
		const mark = await staleMark(v, asked, typed);
		const before = v.state.doc.toString();
		mark.d.actions?.[0]?.apply(v, mark.from, mark.to);
		expect(v.state.doc.toString()).toBe(before);
		await until(() => marks(v).length === 0); // the stale mark goes: the note was linted again
		expect(asked).toEqual([NOTE, before]);
	});
});
