import { homedir } from "os";
import { Notice, type App } from "obsidian";

import { DEFAULT_SETTINGS, type OraSettings } from "../settings";
import { versionRefusal } from "../setup/compat";
import { SidecarInstaller } from "../setup/installer";
import { commandEnv, locateOra, managedPaths } from "../setup/paths";
import { runProcess } from "../setup/process";
import { pythonCandidates } from "../setup/python";
import { confirmWrite } from "./confirm-modal";
import { SetupModal } from "./setup-modal";

export interface SidecarSetupOptions {
	/** Absolute path of the plugin's folder (VAULT/.obsidian/plugins/ora-vault). */
	pluginDir: string;
	pluginVersion: string;
	settings: OraSettings;
	saveSettings(): Promise<void>;
	/** Stops the sidecar and resolves once it has exited. */
	stopSidecar(): Promise<void>;
	restartSidecar(): Promise<void>;
}

/** The plugin's side of set-up: when to offer it, the modal, and the managed sidecar's environment. */
export class SidecarSetup {
	readonly installer: SidecarInstaller;

	constructor(
		private readonly app: App,
		private readonly options: SidecarSetupOptions,
	) {
		this.installer = new SidecarInstaller({
			run: runProcess,
			paths: managedPaths(options.pluginDir, process.platform),
			platform: process.platform,
			pluginVersion: options.pluginVersion,
			pythonCandidates: pythonCandidates(process.platform, homedir(), process.env.LOCALAPPDATA ?? ""),
			env: process.env,
		});
	}

	/** The environment `ora serve` starts with (the managed sidecar's models stay in the plugin folder). */
	commandEnv(): NodeJS.ProcessEnv {
		return commandEnv(this.options.settings.oraCommand, this.installer.paths, process.env);
	}

	/** Null when the running sidecar's version is supported, else what to tell the user. */
	refusal(sidecarVersion: string): string | null {
		return versionRefusal(sidecarVersion, this.options.pluginVersion);
	}

	/**
	 * After the sidecar could not start: if no `ora` is found at all, offer set-up; if one is found
	 * where pipx or `uv tool` put it, use it.
	 */
	async afterStartFailure(): Promise<void> {
		const settings = this.options.settings;
		const found = locateOra(settings.oraCommand, this.installer.paths, process.env, process.platform);
		if (found === null) {
			const fragment = createFragment((f) => {
				f.appendText("Ora's sidecar is not installed. ");
				f.createEl("a", { text: "Set it up", href: "#" }, (a) =>
					a.addEventListener("click", (evt) => {
						evt.preventDefault();
						this.open(`No ora command was found (the setting is "${settings.oraCommand}").`);
					}),
				);
			});
			new Notice(fragment, 0);
			return;
		}
		if (found.where !== "setting") {
			settings.oraCommand = found.command;
			await this.options.saveSettings();
			new Notice(`Using the sidecar found at ${found.command}.`);
			await this.options.restartSidecar();
		}
	}

	open(reason: string | null): void {
		new SetupModal(this.app, {
			installer: this.installer,
			reason,
			stopSidecar: () => this.options.stopSidecar(),
			installed: async (oraCommand) => {
				this.options.settings.oraCommand = oraCommand;
				await this.options.saveSettings();
				await this.options.restartSidecar();
			},
			removed: async () => {
				if (this.options.settings.oraCommand === this.installer.paths.ora) {
					this.options.settings.oraCommand = DEFAULT_SETTINGS.oraCommand;
					await this.options.saveSettings();
				}
			},
			confirm: (title, text, label) => confirmWrite(this.app, title, text, label),
		}).open();
	}
}
