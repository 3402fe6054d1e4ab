import { describe, expect, it } from "vitest";

import type { ConversationNote } from "../../src/api/types";
import { carriedConversation, chatNoteMoves } from "../../src/ask/relink";

const link = (conversation: string, note: string, namespace = "default"): ConversationNote => ({ conversation, namespace, note });
const carried = (path: string, conversation: string, namespace = "default") => ({ path, conversation, namespace });

describe("carriedConversation", () => {
	it("reads a chat note's conversation and namespace", () => {
		expect(carriedConversation("Archive/Bread.md", { type: "chat", conversation: "2026-11-30-0840", namespace: "default", tags: [] })).toEqual(carried("Archive/Bread.md", "2026-11-30-0840"));
	});

	it.each([
		["another type", { type: "engram", conversation: "c", namespace: "default" }],
		["no conversation", { type: "chat", namespace: "default" }],
		["a conversation that is not text", { type: "chat", conversation: 42, namespace: "default" }],
		["no namespace", { type: "chat", conversation: "c" }],
		["no frontmatter", undefined],
	])("is null for %s", (_name, frontmatter) => {
		expect(carriedConversation("Notes/x.md", frontmatter)).toBeNull();
	});
});

describe("chatNoteMoves", () => {
	const exists = (paths: string[]) => (path: string) => paths.includes(path);

	it("reports a chat note moved while Obsidian was closed as a rename, found by its conversation", () => {
		const moves = chatNoteMoves([link("c1", "Chats/Ora/c1.md")], exists(["Archive/Bread chat.md"]), [carried("Archive/Bread chat.md", "c1")]);
		expect(moves).toEqual([{ kind: "renamed", path: "Archive/Bread chat.md", old_path: "Chats/Ora/c1.md" }]);
	});

	it("leaves a conversation whose note is still there, or is carried by no note, alone", () => {
		const links = [link("c1", "Chats/Ora/c1.md"), link("c2", "Chats/Ora/c2.md")];
		expect(chatNoteMoves(links, exists(["Chats/Ora/c1.md"]), [carried("Chats/Ora/c1.md", "c1"), carried("Other.md", "c3")])).toEqual([]);
	});

	it("matches the namespace too, takes the first of several copies, and never a note another conversation holds", () => {
		const links = [link("c1", "Chats/Ora/c1.md"), link("c1", "Chats/Ora/work/c1.md", "work"), link("c9", "Kept.md")];
		const notes = [carried("B/copy.md", "c1"), carried("A/copy.md", "c1"), carried("Kept.md", "c1"), carried("W/c1.md", "c1", "work")];
		expect(chatNoteMoves(links, exists(["Kept.md", "A/copy.md", "B/copy.md", "W/c1.md"]), notes)).toEqual([
			{ kind: "renamed", path: "A/copy.md", old_path: "Chats/Ora/c1.md" },
			{ kind: "renamed", path: "W/c1.md", old_path: "Chats/Ora/work/c1.md" },
		]);
	});
});
