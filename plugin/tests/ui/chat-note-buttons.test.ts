import { MarkdownView, type TFile } from "obsidian";
import { describe, expect, it } from "vitest";

import { ChatNoteButtons } from "../../src/ui/chat-note-buttons";
import { aFile } from "../stand-in";

function aView(path: string | null): MarkdownView {
	const view = new MarkdownView({} as never);
	view.file = path === null ? null : aFile(path);
	return view;
}

const actions = (view: MarkdownView) => [...(view as unknown as { actionsEl: HTMLElement }).actionsEl.querySelectorAll<HTMLElement>(".view-action")];

describe("ChatNoteButtons", () => {
	it("puts one Extract engrams button on each chat note view, and it extracts the note shown", () => {
		const extracted: string[] = [];
		const buttons = new ChatNoteButtons((file) => file.path.startsWith("Chats/"), (file: TFile) => extracted.push(file.path));
		const chat = aView("Chats/Ora/ask-1.md");
		const engram = aView("Engrams/A.md");
		buttons.sync([chat, engram]);
		buttons.sync([chat, engram]); // a second sync adds no second button
		expect(actions(chat).map((a) => a.getAttribute("aria-label"))).toEqual(["Extract engrams"]);
		expect(actions(engram)).toEqual([]);
		actions(chat)[0]?.click();
		expect(extracted).toEqual(["Chats/Ora/ask-1.md"]);
	});

	it("takes the button off a view that shows another note now, or has closed, and all of them on unload", () => {
		const buttons = new ChatNoteButtons((file) => file.path.startsWith("Chats/"), () => undefined);
		const first = aView("Chats/a.md");
		const second = aView("Chats/b.md");
		buttons.sync([first, second]);
		first.file = aFile("Engrams/A.md");
		buttons.sync([first]); // `second` was closed
		expect(actions(first)).toEqual([]);
		expect(actions(second)).toEqual([]);
		first.file = aFile("Chats/c.md");
		buttons.sync([first]);
		expect(actions(first)).toHaveLength(1);
		buttons.clear();
		expect(actions(first)).toEqual([]);
	});
});
