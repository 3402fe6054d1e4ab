import { App } from "obsidian";
import { describe, expect, it } from "vitest";

import { honourTrashSetting, trashOption } from "../../src/ui/trash";

/** The adapter's trash calls, recorded; the system trash available or not. */
function anAdapter(systemTrash = true) {
	const calls: string[] = [];
	return {
		calls,
		trashSystem: async (path: string) => (calls.push(`system ${path}`), systemTrash),
		remove: async (path: string) => void calls.push(`remove ${path}`),
	};
}

describe("honourTrashSetting", () => {
	it("moves a note the sidecar put in .trash on to the system trash, Obsidian's default", async () => {
		const adapter = anAdapter();
		expect(await honourTrashSetting("system", adapter, ".trash/Coffee.md")).toBe("It is in the system trash, as your Deleted files setting says.");
		expect(adapter.calls).toEqual(["system .trash/Coffee.md"]);
	});

	it("leaves it in the vault's .trash when that is the setting, where Undo can bring it back", async () => {
		const adapter = anAdapter();
		expect(await honourTrashSetting("local", adapter, ".trash/Coffee.md")).toContain("vault's .trash folder (Undo last resolution brings it back)");
		expect(adapter.calls).toEqual([]);
	});

	it("deletes it for good when the setting says so, and keeps it in .trash when the system trash cannot be used", async () => {
		const gone = anAdapter();
		expect(await honourTrashSetting("none", gone, ".trash/Coffee.md")).toBe("It is deleted for good, as your Deleted files setting says.");
		expect(gone.calls).toEqual(["remove .trash/Coffee.md"]);
		expect(await honourTrashSetting("system", anAdapter(false), ".trash/Coffee.md")).toContain("The system trash could not be used.");
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
