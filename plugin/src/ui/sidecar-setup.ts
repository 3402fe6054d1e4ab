import { homedir } from "os";
import { Notice, type App } from "obsidian";

import { DEFAULT_SETTINGS, type OraSettings } from "../settings";
import { versionRefusal } from "../setup/compat";
import { SidecarInstaller } from "../setup/installer";
import { locateOra, machineDataDir, managedEnv, managedPaths, MANAGED_COMMAND, type OraLocation } from "../setup/paths";
import { runProcess } from "../setup/process";
import { confirmWrite } from "./confirm-modal";
import { SetupModal } from "./setup-modal";

export interface SidecarSetupOptions {
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
			paths: managedPaths(machineDataDir(process.platform, process.env, homedir()), process.platform),
			platform: process.platform,
			arch: process.arch,
			musl: process.platform === "linux" && !glibc(),
			pluginVersion: options.pluginVersion,
			env: process.env,
		});
	}

	/**
	 * How to start `ora ARGS` now: found afresh at each start, so a moved vault or install folder
	 * is followed. The managed sidecar runs through its interpreter with the install's environment.
	 */
	command(args: readonly string[]): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
		const found = this.locate();
		if (found?.where === "managed") return { command: found.command, args: [...found.prefix, ...args], env: managedEnv(this.installer.paths, process.env) };
		// Not found: spawning the setting fails at once (ENOENT), and afterStartFailure() offers set-up.
		const command = found?.command ?? this.options.settings.oraCommand;
		return { command, args: [...args], env: process.env };
	}

	private locate(): OraLocation | null {
		return locateOra(this.options.settings.oraCommand, this.installer.paths, process.env, process.platform);
	}

	/** Stops a running set-up (the plugin is unloading): its processes are killed, partial files removed. */
	cancel(): void {
		this.installer.cancel();
	}

	/** Null when the running sidecar's version is supported, else what to tell the user. */
	refusal(sidecarVersion: string): string | null {
		return versionRefusal(sidecarVersion, this.options.pluginVersion);
	}

	/**
	 * After the sidecar could not start: if no `ora` is found at all, the install is unfinished, or
	 * the installed one failed, offer set-up; if one is found where pipx or `uv tool` put it, use it.
	 */
	async afterStartFailure(): Promise<void> {
		const settings = this.options.settings;
		const found = this.locate();
		if (found === null) {
			const state = this.installer.state();
			const reason =
				state === "partial" || settings.oraCommand === MANAGED_COMMAND
					? `The sidecar's install in ${this.installer.paths.root} is not finished or is damaged: Install finishes it, Repair installs it again.`
					: `No ora command was found (the setting is "${settings.oraCommand}").`;
			const fragment = createFragment((f) => {
				f.appendText(state === "absent" ? "Ora's sidecar is not installed. " : "Ora's sidecar needs repair. ");
				f.createEl("a", { text: state === "absent" ? "Set it up" : "Open set-up", href: "#" }, (a) =>
					a.addEventListener("click", (evt) => {
						evt.preventDefault();
						this.open(reason);
					}),
				);
			});
			new Notice(fragment, 0);
			return;
		}
		if (found.where === "managed") {
			// The plugin's own install did not start: the log above says why; set-up can repair it.
			const fragment = createFragment((f) => {
				f.appendText(`The sidecar installed in ${this.installer.paths.root} did not start. `);
				f.createEl("a", { text: "Open set-up", href: "#" }, (a) =>
					a.addEventListener("click", (evt) => {
						evt.preventDefault();
						this.open("The installed sidecar did not start: Repair installs it again.");
					}),
				);
			});
			new Notice(fragment, 0);
			return;
		}
		if (found.where === "user") {
			settings.oraCommand = found.command;
			await this.options.saveSettings();
			new Notice(`Using the sidecar found at ${found.command}.`);
			await this.options.restartSidecar();
		}
	}

	/** After a set-up: the command setting names the install, and the sidecar starts from it. */
	async useInstalled(): Promise<void> {
		this.options.settings.oraCommand = MANAGED_COMMAND;
		await this.options.saveSettings();
		await this.options.restartSidecar();
	}

	open(reason: string | null): void {
		new SetupModal(this.app, {
			installer: this.installer,
			reason,
			stopSidecar: () => this.options.stopSidecar(),
			installed: () => this.useInstalled(),
			removed: async () => {
				if (this.options.settings.oraCommand === MANAGED_COMMAND) {
					this.options.settings.oraCommand = DEFAULT_SETTINGS.oraCommand;
					await this.options.saveSettings();
				}
			},
			confirm: (title, text, label) => confirmWrite(this.app, title, text, label),
		}).open();
	}
}

/** Whether this Linux uses glibc (else musl, as Alpine does): uv's wheels differ. */
function glibc(): boolean {
	const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
	return Boolean(report?.header?.glibcVersionRuntime);
}
