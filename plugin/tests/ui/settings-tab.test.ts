import { App, type Plugin } from "obsidian";
import { describe, expect, it } from "vitest";

import { DEFAULT_SETTINGS, mergeSettings } from "../../src/settings";
import { OraSettingTab, type SettingsHost } from "../../src/ui/settings-tab";

function tab() {
	const saved: string[] = [];
	let reindexed = 0;
	const host: SettingsHost = {
		settings: mergeSettings(null),
		saveSettings: async () => void saved.push(JSON.stringify(host.settings)),
		token: () => "s3cret",
		tokenPath: () => "/v/.ora/token",
		reindex: async () => void reindexed++,
		restartSidecar: async () => undefined,
	};
	const t = new OraSettingTab(new App(), {} as Plugin, host);
	t.display();
	return { t, host, saved, reindexed: () => reindexed };
}

describe("OraSettingTab", () => {
	it("has a row for every setting, and the same rows as setting definitions", () => {
		const { t } = tab();
		const names = [...t.containerEl.querySelectorAll(".setting-item-name")].map((n) => n.textContent);
		expect(names.length).toBeGreaterThanOrEqual(Object.keys(DEFAULT_SETTINGS).length);
		expect(t.getSettingDefinitions().map((d) => ("name" in d ? d.name : ""))).toEqual(names);
	});

	it("masks the token and saves a changed port only when it is valid", () => {
		const { t, host, saved } = tab();
		const rows = [...t.containerEl.querySelectorAll(".setting-item")];
		const row = (name: string) => rows.find((r) => r.querySelector(".setting-item-name")?.textContent === name)!;
		const token = row("Access token").querySelector("input") as HTMLInputElement;
		expect(token.type).toBe("password");
		expect(token.value).toBe("s3cret");
		const port = row("Port").querySelector("input") as HTMLInputElement;
		port.value = "99999";
		port.dispatchEvent(new Event("input"));
		expect(saved).toEqual([]);
		port.value = "48000";
		port.dispatchEvent(new Event("input"));
		expect(host.settings.port).toBe(48000);
		expect(saved).toHaveLength(1);
	});

	it("re-indexes from its button", () => {
		const { t, reindexed } = tab();
		const button = [...t.containerEl.querySelectorAll("button")].find((b) => b.textContent === "Re-index now")!;
		button.click();
		expect(reindexed()).toBe(1);
	});
});
