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
	stale: [] as string[],
	conflicts: [] as string[],
	kept: [] as string[],
	cut: null as string | null,
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
		const transport = new ScriptedTransport([json(200, PLAN), json(200, { written: PLAN.notes.map((n) => n.path), trashed: [] })]);
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

	it("says which notes of pages gone go to the trash, and what is not read", async () => {
		const plan = { ...PLAN, stale: ["Resources/Tidal pumping/Tidal pumping - page 3.md"], cut: "it has 2005 pages, over the 2000-page limit" };
		const transport = new ScriptedTransport([json(200, plan), json(200, { written: [], trashed: plan.stale })]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const done = processDocument(new App(), client, "Tidal pumping.pdf");
		await settle();
		expect(document.body.textContent).toContain("1 notes of pages no longer in it go to the trash");
		expect(document.body.textContent).toContain("Only part of the document is read: it has 2005 pages");
		[...document.body.querySelectorAll("button")].find((b) => b.textContent === "Write notes")?.click();
		await done;
		expect(shownNotices.at(-1)).toBe("Wrote 0 notes into Resources/Tidal pumping; moved 1 notes of pages no longer in it to the trash.");
	});

	it("says which notes of pages gone stay because you edited them", async () => {
		const page3 = "Resources/Tidal pumping/Tidal pumping - page 3.md";
		const plan = { ...PLAN, kept: [page3] };
		const transport = new ScriptedTransport([json(200, plan), json(200, { written: [], trashed: [], kept: [page3] })]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const done = processDocument(new App(), client, "Tidal pumping.pdf");
		await settle();
		expect(document.body.textContent).toContain(`1 notes of pages no longer in it stay, as you edited them (${page3}).`);
		[...document.body.querySelectorAll("button")].find((b) => b.textContent === "Write notes")?.click();
		await done;
		expect(shownNotices.at(-1)).toBe(`Wrote 0 notes into Resources/Tidal pumping; kept 1 you edited of pages no longer in it (${page3}).`);
	});

	it("asks nothing when an apply would be refused, and names a note in the way", async () => {
		const plan = { ...PLAN, conflicts: ["Resources/Tidal pumping/Tidal pumping - page 1.md"] };
		const transport = new ScriptedTransport([json(200, plan)]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		await processDocument(new App(), client, "Tidal pumping.pdf");
		expect(shownNotices.at(-1)).toContain("1 of its notes were edited since they were written");
		expect(shownNotices.at(-1)).toContain("Tidal pumping - page 1.md");
		expect(transport.requests).toHaveLength(1);
	});

	it("says a write whose connection broke after sending may have written the notes, and where to look", async () => {
		const transport = new ScriptedTransport([json(200, PLAN), new Error("net::ERR_CONNECTION_RESET")]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const done = processDocument(new App(), client, "Tidal pumping.pdf");
		await settle();
		[...document.body.querySelectorAll("button")].find((b) => b.textContent === "Write notes")?.click();
		await done;
		expect(shownNotices.at(-1)).toBe(
			"Not sure the notes of Tidal pumping.pdf were written: The connection to the sidecar at http://127.0.0.1:1 broke before it answered (net::ERR_CONNECTION_RESET), so it may have applied the change. Check Resources/Tidal pumping in a moment; processing Tidal pumping.pdf again says whether its notes are up to date.",
		);
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
