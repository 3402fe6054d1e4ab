// The plugin itself (main.ts) on a vault: a first run (no data.json) opens the guide, and closing
// it is remembered; a vault whose settings predate the guide never sees it.
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { afterEach, describe, expect, it } from "vitest";

import { pluginOn } from "../plugin-host";

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
	document.querySelectorAll(".modal-container").forEach((el) => el.remove());
});

function onVault(data: Record<string, unknown> | null) {
	const vault = mkdtempSync(join(tmpdir(), "ora-first-run-"));
	// No sidecar is started: nothing answers and `ora` is a program that does not exist.
	const plugin = pluginOn(vault, (data ?? null) as Record<string, unknown>);
	cleanups.push(() => {
		plugin.host.unload();
		rmSync(vault, { recursive: true, force: true });
	});
	return plugin;
}

const guide = () => document.querySelector(".ora-onboarding");

describe("the first-run guide", () => {
	it("opens on a vault's first run, and once finished is not shown again", async () => {
		const plugin = onVault(null);
		await plugin.load();
		expect(guide()?.textContent).toContain("1 of 4: Set up the sidecar");
		const next = () => [...document.querySelectorAll<HTMLButtonElement>(".ora-onboarding button")].find((b) => b.textContent === "Next" || b.textContent === "Finish");
		for (let i = 0; i < 4; i++) next()!.click();
		await new Promise((r) => setTimeout(r, 20));
		expect(guide()).toBeNull();
		const saved = plugin.host.data as { onboarded: boolean };
		expect(saved.onboarded).toBe(true);

		const again = onVault({ ...saved, autoStart: false });
		await again.load();
		expect(guide()).toBeNull();
	});

	it("does not open where settings were saved before the guide existed", async () => {
		const plugin = onVault({ oraCommand: "/no/such/ora", autoStart: false });
		await plugin.load();
		expect(guide()).toBeNull();
	});
});
