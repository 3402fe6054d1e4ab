import { App, type Plugin } from "obsidian";
import { describe, expect, it } from "vitest";

import { SidecarError, transportError } from "../../src/api/client";
import type { VaultSettings } from "../../src/api/types";
import { mergeSettings } from "../../src/settings";
import { OraSettingTab } from "../../src/ui/settings-tab";
import { candidateFolders, excludedFoldersError, ExcludedFoldersController, lockedBy } from "../../src/vault/excluded-folders";

/** Enough of the sidecar's settings document for the picker (it reads `exclude`). */
function settingsWith(exclude: string[]): VaultSettings {
	return { exclude } as VaultSettings;
}

/** A picker over an ora.yaml held here, edited as the sidecar edits it; `fail` makes the next edit fail. */
function aPicker(exclude: string[] = [], folders = ["Archive", "Archive/2019", "Daily", "Resources", ".config", "Daily/.hidden"]) {
	const file = { exclude: [...exclude] };
	const calls: [string, boolean][] = [];
	const notices: string[] = [];
	let fail: Error | null = null;
	const controller = new ExcludedFoldersController({
		vaultSettings: async () => settingsWith([...file.exclude]),
		setExcluded: async (path, excluded) => {
			calls.push([path, excluded]);
			if (fail !== null) throw fail;
			const key = path.replace(/^\/+|\/+$/g, "");
			if (excluded && !file.exclude.some((e) => e.replace(/\/+$/, "") === key)) file.exclude.push(path);
			if (!excluded) file.exclude = file.exclude.filter((e) => e.replace(/\/+$/, "") !== key);
			return settingsWith([...file.exclude]);
		},
		folders: () => folders,
		notify: (text) => void notices.push(text),
	});
	return { controller, file, calls, notices, failNext: (err: Error) => (fail = err) };
}

function drawnTab(picker: ReturnType<typeof aPicker>) {
	const app = new App();
	const host = { settings: mergeSettings(null), saveSettings: async () => undefined, token: () => null, tokenPath: () => "", reindex: async () => undefined, restartSidecar: async () => undefined, excludedFolders: picker.controller };
	const tab = new OraSettingTab(app, {} as Plugin, host);
	document.body.appendChild(tab.containerEl);
	tab.display();
	return tab;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function listed(tab: OraSettingTab): string[] {
	return [...tab.containerEl.querySelectorAll(".ora-excluded-folders .setting-item-name")].map((n) => n.textContent ?? "").filter(Boolean);
}

describe("candidateFolders", () => {
	it("offers visible folders not already excluded, sorted, leaving out those beneath an excluded one", () => {
		expect(candidateFolders(["Zettel", "Archive", "Archive/2019", ".trash", "Daily/.hidden", "Daily", "/"], ["Archive/"])).toEqual(["Daily", "Zettel"]);
	});

	it("reads every spelling of an entry as the same folder", () => {
		expect(candidateFolders(["Archive", "Archived", "Daily"], ["Archive"])).toEqual(["Archived", "Daily"]);
		expect(candidateFolders(["Archive", "Daily"], ["/Daily/"])).toEqual(["Archive"]);
	});
});

describe("ExcludedFoldersController", () => {
	it("lists ora.yaml's exclude entries and adds a chosen folder as a folder entry", async () => {
		const picker = aPicker(["Scratch/"]);
		await picker.controller.refresh();
		expect(picker.controller.state.entries).toEqual(["Scratch/"]);
		await picker.controller.add("Archive");
		expect(picker.calls).toEqual([["Archive/", true]]);
		expect(picker.controller.state.entries).toEqual(["Scratch/", "Archive/"]);
		expect(picker.controller.candidates()).toEqual(["Daily", "Resources"]);
	});

	it("removes an entry as listed, and the folder is offered again", async () => {
		const picker = aPicker(["Archive/", "**/*.tmp.md"]);
		await picker.controller.refresh();
		await picker.controller.remove("Archive/");
		expect(picker.calls).toEqual([["Archive/", false]]);
		expect(picker.controller.state.entries).toEqual(["**/*.tmp.md"]);
		expect(picker.controller.candidates()).toContain("Archive");
	});

	it("tells the user why ora.yaml was not changed and keeps the list as it was", async () => {
		const picker = aPicker(["Scratch/"]);
		await picker.controller.refresh();
		picker.failNext(new SidecarError(422, "invalid_settings", "ora.yaml is not valid YAML; fix it by hand first"));
		await picker.controller.add("Daily");
		expect(picker.notices).toEqual(["Could not exclude Daily/: ora.yaml was not changed: ora.yaml is not valid YAML; fix it by hand first"]);
		expect(picker.controller.state).toMatchObject({ entries: ["Scratch/"], busy: false });
		picker.failNext(new SidecarError(409, "conflict", "ora.yaml changed since it was read; nothing was written"));
		await picker.controller.remove("Scratch/");
		expect(picker.notices[1]).toBe("Could not include Scratch/: ora.yaml changed since it was read; nothing was written");
	});

	it("says an edit whose connection broke after sending may have changed ora.yaml, not that the sidecar is not running", async () => {
		const picker = aPicker(["Scratch/"]);
		await picker.controller.refresh();
		const broke = transportError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), "http://127.0.0.1:1", true);
		picker.failNext(broke);
		await picker.controller.add("Daily");
		expect(picker.notices).toEqual([
			"Not sure Daily/ was excluded: The connection to the sidecar at http://127.0.0.1:1 broke before it answered (socket hang up), so it may have applied the change. Open Ora's settings again in a moment to see whether ora.yaml changed.",
		]);
		expect(excludedFoldersError(broke)).not.toContain("not running");
	});

	it("says the sidecar's own conflict message once while ora.yaml is missing, asking to try again once", async () => {
		const picker = aPicker(["Scratch/"]);
		await picker.controller.refresh();
		picker.failNext(new SidecarError(409, "conflict", "ora.yaml is missing where it had settings a moment ago (perhaps it is being saved); nothing was written: try again"));
		await picker.controller.add("Daily");
		expect(picker.notices).toEqual(["Could not exclude Daily/: ora.yaml is missing where it had settings a moment ago (perhaps it is being saved); nothing was written: try again"]);
		expect(picker.notices[0]?.match(/try again/gi)).toHaveLength(1);
		picker.failNext(new SidecarError(409, "conflict", ""));
		await picker.controller.add("Daily");
		expect(picker.notices[1]).toBe("Could not exclude Daily/: ora.yaml changed while Ora was editing it (perhaps it is being saved), so nothing was written. Try again in a moment.");
	});

	it("shows ora.yaml's problems and offers no edit while the sidecar cannot use the file", async () => {
		const problems = ["ora.yaml: the file is larger than 1000000 bytes", "ora.yaml: its settings are those it last had until it can be used"];
		const picker = aPicker(["Ideas/"]);
		(picker.controller as unknown as { deps: { vaultSettings: () => Promise<VaultSettings> } }).deps.vaultSettings = async () => ({ exclude: ["Ideas/"], problems }) as VaultSettings;
		await picker.controller.refresh();
		expect(picker.controller.state).toMatchObject({ entries: ["Ideas/"], problems });
		expect(picker.controller.state.locked).toContain("fix the file by hand");
		await picker.controller.add("Daily");
		await picker.controller.remove("Ideas/");
		expect(picker.calls).toEqual([]);
		expect(picker.notices[0]).toMatch(/^Could not exclude Daily\/: Ora cannot use ora.yaml as it is/);
	});

	it("reads ora.yaml again before refusing an edit, so a file fixed since is edited", async () => {
		const picker = aPicker(["Ideas/"]);
		let problems = ["ora.yaml: the file is missing (a sync tool or editor saving it?)", "ora.yaml: its settings are those it last had until it can be used"];
		(picker.controller as unknown as { deps: { vaultSettings: () => Promise<VaultSettings> } }).deps.vaultSettings = async () => ({ exclude: [...picker.file.exclude], problems }) as VaultSettings;
		await picker.controller.refresh();
		expect(picker.controller.state.locked).not.toBeNull();
		problems = [];
		await picker.controller.add("Daily");
		expect(picker.calls).toEqual([["Daily/", true]]);
		expect(picker.controller.state).toMatchObject({ entries: ["Ideas/", "Daily/"], locked: null });
		expect(picker.notices).toEqual([]);
	});

	it("takes the sidecar's word on whether an edit would be refused, over the problems' wording", async () => {
		const picker = aPicker(["Ideas/"]);
		let answer: Partial<VaultSettings> = { exclude_refused: "ora.yaml is a symbolic link, which Ora will not replace with a file; edit `exclude` in the file it points to", problems: [] };
		(picker.controller as unknown as { deps: { vaultSettings: () => Promise<VaultSettings> } }).deps.vaultSettings = async () => ({ exclude: [...picker.file.exclude], ...answer }) as VaultSettings;
		await picker.controller.refresh();
		expect(picker.controller.state.locked).toMatch(/^ora.yaml is a symbolic link/);
		await picker.controller.add("Daily");
		expect(picker.calls).toEqual([]);
		answer = { exclude_refused: null, problems: ["ora.yaml: invalid YAML: line 3"] };
		await picker.controller.add("Daily");
		expect(picker.calls).toEqual([["Daily/", true]]);
	});

	it("stays editable when a problem only sets a value back to its default", async () => {
		expect(lockedBy(["ora.yaml: lint.untyped 'loud' is not one of hint, off; using the default"])).toBeNull();
		expect(lockedBy(["ora.yaml: invalid YAML: line 3: mapping values are not allowed here"])).not.toBeNull();
		expect(lockedBy([])).toBeNull();
	});

	it("says the sidecar is not running when the list cannot be read", async () => {
		const picker = aPicker();
		(picker.controller as unknown as { deps: { vaultSettings: () => Promise<VaultSettings> } }).deps.vaultSettings = async () => {
			throw new SidecarError(0, "unreachable", "connect ECONNREFUSED");
		};
		await picker.controller.refresh();
		expect(picker.controller.state).toMatchObject({ entries: null, error: "The sidecar is not running. Start it and try again." });
	});
});

describe("Excluded folders in the settings", () => {
	it("lists the excluded folders under Search, each with a remove button that includes it again", async () => {
		const picker = aPicker(["Archive/", "Scratch/"]);
		const tab = drawnTab(picker);
		await tick();
		expect(listed(tab)).toEqual(["Archive/", "Scratch/"]);
		const remove = tab.containerEl.querySelector<HTMLElement>('.ora-excluded-folders [aria-label="Include Archive/ again"]');
		remove?.click();
		await tick();
		expect(picker.file.exclude).toEqual(["Scratch/"]);
		expect(listed(tab)).toEqual(["Scratch/"]);
	});

	it("adds a folder picked in the folder suggester, which offers only folders not yet excluded", async () => {
		const picker = aPicker(["Archive/"]);
		const tab = drawnTab(picker);
		await tick();
		const add = [...tab.containerEl.querySelectorAll<HTMLButtonElement>(".ora-excluded-folders button")].find((b) => b.textContent === "Add folder");
		add?.click();
		const input = document.querySelector<HTMLInputElement>(".prompt-input");
		if (!input) throw new Error("no folder suggester opened");
		await tick();
		expect([...document.querySelectorAll(".suggestion-item")].map((el) => el.textContent)).toEqual(["Daily", "Resources"]);
		input.value = "res";
		input.dispatchEvent(new Event("input"));
		await tick();
		input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
		await tick();
		expect(picker.calls).toEqual([["Resources/", true]]);
		expect(listed(tab)).toEqual(["Archive/", "Resources/"]);
		expect(document.querySelector(".prompt-input")).toBeNull(); // the suggester closed
	});

	it("lists ora.yaml's problems above the last-good entries, with no remove button and Add folder disabled", async () => {
		const problems = ["ora.yaml: the file is larger than 1000000 bytes", "ora.yaml: its settings are those it last had until it can be used"];
		const picker = aPicker(["Ideas/"]);
		(picker.controller as unknown as { deps: { vaultSettings: () => Promise<VaultSettings> } }).deps.vaultSettings = async () => ({ exclude: ["Ideas/"], problems }) as VaultSettings;
		const tab = drawnTab(picker);
		await tick();
		const section = tab.containerEl.querySelector(".ora-excluded-folders");
		expect([...(section?.querySelectorAll(".ora-excluded-problems li") ?? [])].map((li) => li.textContent)).toEqual(problems);
		expect(section?.querySelector(".ora-excluded-locked")?.textContent).toContain("cannot be changed here");
		expect(listed(tab)).toEqual(["Ideas/"]);
		expect(section?.querySelector('[aria-label="Include Ideas/ again"]')).toBeNull();
		const add = [...(section?.querySelectorAll<HTMLButtonElement>("button") ?? [])].find((b) => b.textContent === "Add folder");
		expect(add?.disabled).toBe(true);
		const again = [...(section?.querySelectorAll<HTMLButtonElement>("button") ?? [])].find((b) => b.textContent === "Check ora.yaml again");
		expect(again).toBeDefined();
	});

	it("says so when no folder is excluded, and stops redrawing once the tab is hidden", async () => {
		const picker = aPicker();
		const tab = drawnTab(picker);
		await tick();
		expect(tab.containerEl.querySelector(".ora-excluded-folders")?.textContent).toContain("No folder is excluded.");
		tab.hide();
		await picker.controller.add("Daily");
		expect(listed(tab)).toEqual([]);
	});
});
