import { createHash } from "crypto";

import { App } from "obsidian";
import { describe, expect, it } from "vitest";

import { obsidianTrash, trashNote, trashOption } from "../../src/ui/trash";
import * as standIn from "../__mocks__/obsidian";

const TEXT = "---\ntype: engram\n---\nCoffee is healthy.\n";
const HASH = createHash("sha256").update(TEXT).digest("hex");

/** An app holding Engrams/Coffee.md with TEXT, its "Deleted files" setting `option`. */
function anApp(option: string | null = null) {
	const app = new standIn.App();
	app.vault.files = [standIn.TFile.at("Engrams/Coffee.md")];
	app.vault.contents.set("Engrams/Coffee.md", TEXT);
	(app.vault as unknown as { getConfig: (key: string) => unknown }).getConfig = (key) => (key === "trashOption" ? option : null);
	return app;
}

function trash(app: standIn.App) {
	return obsidianTrash(app as unknown as App);
}

describe("trashNote", () => {
	it("trashes the note through FileManager.trashFile and says where the Deleted files setting put it", async () => {
		for (const [option, where] of [
			[null, "It is in the system trash, as your Deleted files setting says."],
			["local", "It is in the vault's .trash folder, as your Deleted files setting says."],
			["none", "It is deleted for good, as your Deleted files setting says."],
		] as const) {
			const app = anApp(option);
			expect(await trashNote(trash(app), "Engrams/Coffee.md", HASH)).toBe(`${where} Undo last resolution brings it back.`);
			expect(app.fileManager.trashed).toEqual(["Engrams/Coffee.md"]);
		}
	});

	it("keeps a note edited after the user chose to delete it", async () => {
		const app = anApp();
		app.vault.contents.set("Engrams/Coffee.md", `${TEXT}A later thought.\n`);
		expect(await trashNote(trash(app), "Engrams/Coffee.md", HASH)).toBe("It changed after you chose to delete it, so it was kept. Undo last resolution reopens the pair.");
		expect(app.fileManager.trashed).toEqual([]);
	});

	it("says so when the note is already gone, or when the trash refuses it", async () => {
		const app = anApp();
		expect(await trashNote(trash(app), "Engrams/Elsewhere.md", HASH)).toBe("It was already gone. Undo last resolution brings it back.");
		const refusing = { ...trash(app), trashFile: async () => Promise.reject(new Error("EACCES")) };
		expect(await trashNote(refusing, "Engrams/Coffee.md", HASH)).toBe("It could not be deleted (EACCES); it is still in the vault.");
	});
});

describe("trashOption", () => {
	it("reads Obsidian's Deleted files setting, the system trash when it says nothing", () => {
		const app = new App();
		expect(trashOption(app)).toBe("system");
		(app.vault as unknown as { getConfig: (key: string) => unknown }).getConfig = (key) => (key === "trashOption" ? "local" : null);
		expect(trashOption(app)).toBe("local");
	});
});
