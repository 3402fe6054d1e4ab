import { App, TFile, type Menu } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { addDocumentMenu, processDocument } from "../../src/ui/process-document";
import { shownNotices } from "../__mocks__/obsidian";
import { json, ScriptedTransport } from "../builders";

const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
	document.body.empty();
	shownNotices.length = 0;
});

/** A file menu that records its items' titles and click handlers. */
function aMenu() {
	const items: { title: string; click: () => void }[] = [];
	const menu = {
		addItem(build: (item: unknown) => void) {
			const entry = { title: "", click: () => undefined as void };
			const item = {
				setTitle: (t: string) => ((entry.title = t), item),
				setIcon: () => item,
				onClick: (f: () => void) => ((entry.click = f), item),
			};
			build(item);
			items.push(entry);
			return menu;
		},
	};
	return { menu: menu as unknown as Menu, items };
}

function aFileAt(path: string): TFile {
	const file = new TFile();
	file.path = path;
	file.extension = path.split(".").pop() ?? "";
	return file;
}

const PLAN = {
	document: "Tidal pumping.pdf",
	notes: [1, 2].map((n) => ({ path: `Resources/Tidal pumping/Tidal pumping - page ${n}.md`, page_start: n, page_end: n })),
	unchanged: false,
};

describe("Process document into notes", () => {
	it("is on a PDF's file menu, not on a note's", () => {
		const processed: string[] = [];
		const pdf = aMenu();
		addDocumentMenu(pdf.menu, aFileAt("Papers/Tidal pumping.pdf"), (p) => processed.push(p));
		expect(pdf.items.map((i) => i.title)).toEqual(["Process document into notes"]);
		pdf.items[0]?.click();
		expect(processed).toEqual(["Papers/Tidal pumping.pdf"]);
		const note = aMenu();
		addDocumentMenu(note.menu, aFileAt("Engrams/A.md"), () => undefined);
		expect(note.items).toEqual([]);
	});

	it("shows what it would write and writes it only once confirmed", async () => {
		const transport = new ScriptedTransport([json(200, PLAN), json(200, { written: PLAN.notes.map((n) => n.path) })]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const done = processDocument(new App(), client, "Tidal pumping.pdf");
		await settle();
		expect(document.body.textContent).toContain("Write 2 resource notes, one per page, into Resources/Tidal pumping?");
		const write = [...document.body.querySelectorAll("button")].find((b) => b.textContent === "Write notes");
		write?.click();
		await done;
		expect(transport.requests.map((r) => JSON.parse(r.body ?? "{}") as unknown)).toEqual([
			{ path: "Tidal pumping.pdf", private: false },
			{ path: "Tidal pumping.pdf", apply: true, private: false },
		]);
		expect(shownNotices.at(-1)).toBe("Wrote 2 notes into Resources/Tidal pumping.");
	});

	it("writes nothing when the notes are up to date, and says why it cannot process a file", async () => {
		const transport = new ScriptedTransport([
			json(200, { ...PLAN, unchanged: true }),
			json(400, { error: { code: "bad_request", message: "scan.pdf cannot be processed: Image-only: no text layer" } }),
		]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		await processDocument(new App(), client, "Tidal pumping.pdf");
		expect(shownNotices.at(-1)).toBe("The notes of Tidal pumping.pdf are up to date.");
		await processDocument(new App(), client, "scan.pdf");
		expect(shownNotices.at(-1)).toContain("Could not process scan.pdf: scan.pdf cannot be processed: Image-only");
		expect(transport.requests).toHaveLength(2);
	});
});
