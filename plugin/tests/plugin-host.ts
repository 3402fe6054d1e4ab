// The plugin itself (main.ts) loaded into the `obsidian` stand-in, as Obsidian loads it: saved
// data, onload, then layout ready (which starts or finds the sidecar).
import type { App } from "obsidian";

import OraVaultPlugin from "../src/main";
import * as standIn from "./__mocks__/obsidian";

export interface PluginHost {
	/** The stand-in's view of the plugin: what it registered, its saved data. */
	host: standIn.Plugin;
	app: standIn.App;
	/** The status bar item's text and tooltip. */
	status: () => { text: string; tooltip: string };
	clickStatus: () => void;
	/** Runs onload, then Obsidian's layout-ready. */
	load: () => Promise<void>;
}

export function pluginOn(vault: string, data: Record<string, unknown>): PluginHost {
	const app = new standIn.App();
	app.vault.adapter = new standIn.FileSystemAdapter(vault);
	const plugin = new OraVaultPlugin(app as unknown as App, { id: "ora-vault", name: "Ora Vault", version: "0.1.0", dir: "plugins/ora-vault", author: "", minAppVersion: "", description: "" });
	const host = plugin as unknown as standIn.Plugin;
	host.data = data;
	const statusEl = () => {
		const el = host.statusBarItems[0];
		if (!el) throw new Error("no status bar item");
		return el;
	};
	return {
		host,
		app,
		status: () => ({ text: statusEl().querySelector(".ora-status-text")?.textContent ?? "", tooltip: statusEl().getAttribute("aria-label") ?? "" }),
		clickStatus: () => statusEl().click(),
		load: async () => {
			await plugin.onload();
			app.workspace.layoutReady();
		},
	};
}

export async function until(check: () => boolean, ms = 20_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!check()) {
		if (Date.now() > deadline) throw new Error("condition not met in time");
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}
