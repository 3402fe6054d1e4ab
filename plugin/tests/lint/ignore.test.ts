import { describe, expect, it } from "vitest";

import { lintIgnoreEntry } from "../../src/lint/ignore";

describe("lintIgnoreEntry", () => {
	it("names the note, or its folder with a trailing slash", () => {
		expect(lintIgnoreEntry("Daily/2024/05-01.md", "note")).toBe("Daily/2024/05-01.md");
		expect(lintIgnoreEntry("Daily/2024/05-01.md", "folder")).toBe("Daily/2024/");
	});

	it("has no folder to ignore for a note at the vault's root", () => {
		expect(lintIgnoreEntry("Inbox.md", "folder")).toBeNull();
		expect(lintIgnoreEntry("Inbox.md", "note")).toBe("Inbox.md");
	});
});
