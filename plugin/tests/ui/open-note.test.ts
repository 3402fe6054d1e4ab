import { MarkdownView, type App, type OpenViewState, type TFile } from "obsidian";
import { describe, expect, it } from "vitest";

import { openAtLines } from "../../src/ui/open-note";
import { shownNotices } from "../__mocks__/obsidian";
import { aFile } from "../stand-in";

/** An app whose one note has `lines` lines and opens in `mode` (the user's default view). */
function anApp(lines: string[], mode: "source" | "preview") {
	const opened: { file: TFile; state: OpenViewState | undefined }[] = [];
	const selections: unknown[] = [];
	const cursors: unknown[] = [];
	const scrolled: unknown[] = [];
	const view = Object.assign(Object.create(MarkdownView.prototype) as MarkdownView, {
		getMode: () => mode,
		editor: {
			lastLine: () => lines.length - 1,
			getLine: (n: number) => lines[n] ?? "",
			setSelection: (from: unknown, to: unknown) => selections.push([from, to]),
			setCursor: (at: unknown) => cursors.push(at),
			scrollIntoView: (range: unknown) => scrolled.push(range),
		},
	});
	const leaf = {
		view,
		openFile: async (file: TFile, state?: OpenViewState) => void opened.push({ file, state }),
	};
	const app = {
		vault: {
			getFileByPath: (path: string) =>
				["Notes/Café.md", "Docs/Invoice #12 [draft].pdf", "Papers/Tidal pumping.pdf"].includes(path) ? aFile(path) : null,
		},
		workspace: { getLeaf: () => leaf },
	} as unknown as App;
	return { app, opened, selections, cursors, scrolled };
}

describe("openAtLines", () => {
	it("asks Obsidian to scroll to the cited line, so a note opening in reading view shows it too", async () => {
		const { app, opened } = anApp(["---", "type: engram", "---", "", "a", "b", "c", "d"], "preview");
		await openAtLines(app, "Notes/Café.md", 6, 7);
		expect(opened).toHaveLength(1);
		expect(opened[0]?.file.path).toBe("Notes/Café.md");
		expect(opened[0]?.state).toMatchObject({ active: true, eState: { line: 5 } });
	});

	it("puts the cursor at the start of the cited lines and scrolls them into view, selecting nothing the first key would replace", async () => {
		const { app, selections, cursors, scrolled } = anApp(["x", "first cited", "second cited", "y"], "source");
		await openAtLines(app, "Notes/Café.md", 2, 3);
		expect(selections).toEqual([]);
		expect(cursors).toEqual([{ line: 1, ch: 0 }]);
		expect(scrolled).toEqual([{ from: { line: 1, ch: 0 }, to: { line: 2, ch: "second cited".length } }]);
	});

	it("opens a note whose path the sidecar spells decomposed (NFD), as files made on macOS often are", async () => {
		// Obsidian keeps vault paths composed (normalizePath: NFC); the sidecar reports the bytes on disk.
		const { app, opened } = anApp(["a", "b"], "source");
		await openAtLines(app, "Notes/Cafe\u0301.md", 1, 1);
		expect(opened.map((o) => o.file.path)).toEqual(["Notes/Café.md"]);
	});

	it("opens a document at the page its link names, even when its name holds a #", async () => {
		// Before: the link went to openLinkText, which cuts at the first `#`: "Docs/Invoice " was
		// looked for, and no such note exists.
		const { app, opened } = anApp([], "preview");
		await openAtLines(app, "Docs/Invoice #12 [draft].pdf", null, null, false, "Docs/Invoice%20%2312%20%5Bdraft%5D.pdf#page=3");
		await openAtLines(app, "Papers/Tidal pumping.pdf", null, null, false, "Papers/Tidal pumping.pdf#page=7");
		await openAtLines(app, "Papers/Tidal pumping.pdf", null, null, false, "Papers/Tidal pumping.pdf");
		expect(opened.map((o) => [o.file.path, o.state])).toEqual([
			["Docs/Invoice #12 [draft].pdf", { active: true, eState: { subpath: "#page=3" } }],
			["Papers/Tidal pumping.pdf", { active: true, eState: { subpath: "#page=7" } }],
			["Papers/Tidal pumping.pdf", { active: true }],
		]);
	});

	it("says to search again when a listed note was deleted (the index is current; the list is older)", async () => {
		const { app, opened } = anApp([], "source");
		await openAtLines(app, "Notes/Gone.md", 3, 4);
		expect(opened).toEqual([]);
		expect(shownNotices.at(-1)).toBe("“Notes/Gone.md” is not in the vault any more. Search again to refresh the results.");
	});
});
