import { describe, expect, it } from "vitest";

import { transportError } from "../../src/api/client";
import { addLintIgnore, lintIgnoreEntry } from "../../src/lint/ignore";

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

describe("addLintIgnore", () => {
	it("lints the open editors again once the entry is added, so their marks go at once", async () => {
		const steps: string[] = [];
		await addLintIgnore("Daily/", {
			ignore: async (entry) => void steps.push(`ignore ${entry}`),
			relint: () => void steps.push("relint"),
			notify: (text) => void steps.push(text),
		});
		expect(steps).toEqual(["ignore Daily/", "relint", "Ora no longer lints Daily/ (lint.ignore in ora.yaml)."]);
	});

	it("says an entry whose write broke off after sending may be in ora.yaml, not that it could not be added", async () => {
		const steps: string[] = [];
		await addLintIgnore("Daily/", {
			ignore: async () => {
				throw transportError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), "http://127.0.0.1:1", true);
			},
			relint: () => void steps.push("relint"),
			notify: (text) => void steps.push(text),
		});
		expect(steps).toEqual([
			"Not sure Daily/ was added to lint.ignore: The connection to the sidecar at http://127.0.0.1:1 broke before it answered (socket hang up), so it may have applied the change. Check lint.ignore in ora.yaml in a moment.",
		]);
	});

	it("says why when ora.yaml cannot be updated, and leaves the marks", async () => {
		const steps: string[] = [];
		await addLintIgnore("Inbox.md", {
			ignore: async () => {
				throw new Error("ora.yaml is not valid YAML");
			},
			relint: () => void steps.push("relint"),
			notify: (text) => void steps.push(text),
		});
		expect(steps).toEqual(["Could not update ora.yaml: ora.yaml is not valid YAML"]);
	});
});
