import { Modal, Setting, type App } from "obsidian";

import type { PackageSource, SetupEvent, SetupListener, SetupOutcome } from "../setup/installer";
import type { ManagedPaths } from "../setup/paths";

/** What the set-up modal needs: the installer's operations and what to do after them. */
export interface SetupHost {
	installer: {
		readonly paths: ManagedPaths;
		readonly running: boolean;
		installed(): boolean;
		install(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome>;
		upgrade(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome>;
		remove(listener?: SetupListener): Promise<SetupOutcome>;
	};
	/** Why the modal opened (for example "No ora command was found."), or null. */
	reason: string | null;
	/**
	 * Stops a sidecar the plugin started and resolves once it has exited: its files are replaced
	 * or removed next, and a running process keeps them open (on Windows they cannot be replaced).
	 */
	stopSidecar(): Promise<void>;
	/** After install or upgrade: save the command setting and start the sidecar. */
	installed(oraCommand: string): Promise<void>;
	/** After removal: reset the command setting. */
	removed(): Promise<void>;
	confirm(title: string, text: string, confirmLabel: string): Promise<boolean>;
}

/** Lines of the log kept on screen (the whole log is in setup.log). */
const SHOWN_LINES = 400;

/** Set up, upgrade or remove the plugin's own sidecar; shows each step and the log as it runs. */
export class SetupModal extends Modal {
	private sourceInput!: HTMLInputElement;
	private actionsEl!: HTMLElement;
	private stepEl!: HTMLElement;
	private logEl!: HTMLElement;
	private resultEl!: HTMLElement;

	constructor(
		app: App,
		private readonly host: SetupHost,
	) {
		super(app);
	}

	override onOpen(): void {
		const { paths } = this.host.installer;
		this.titleEl.setText("Ora sidecar");
		this.contentEl.addClass("ora-setup");
		if (this.host.reason) this.contentEl.createEl("p", { text: this.host.reason, cls: "ora-setup-reason" });
		this.contentEl.createEl("p", {
			text: `The sidecar is a Python program. Set-up finds Python 3.11 or newer, creates a private environment in ${paths.venv}, installs the ora-vault-sidecar package into it with pip (a few hundred MB), and builds the embedding model in ${paths.models}. All of it stays in this plugin's folder (${paths.pluginDir}); the index lives in the vault's .ora folder. If a file-sync service syncs this vault, leave the plugin's venv folder out of it.`,
		});
		new Setting(this.contentEl)
			.setName("Wheel file")
			.setDesc("Leave empty to install from the package index (pypi.org), or give the full path of a wheel (.whl) file from a release.")
			.addText((t) => {
				t.setPlaceholder("/path/to/ora_vault_sidecar-x.y.z-py3-none-any.whl");
				this.sourceInput = t.inputEl;
			})
			.addButton((b) => b.setButtonText("Choose…").onClick(() => this.chooseWheel()));
		this.actionsEl = this.contentEl.createDiv();
		this.stepEl = this.contentEl.createDiv({ cls: "ora-setup-step" });
		this.logEl = this.contentEl.createEl("pre", { cls: "ora-setup-log" });
		this.resultEl = this.contentEl.createDiv({ cls: "ora-setup-result" });
		this.renderActions();
	}

	override onClose(): void {
		this.contentEl.empty();
	}

	/** A file dialog for the wheel; its path fills the text field. */
	private chooseWheel(): void {
		const picker = this.contentEl.createEl("input", { attr: { type: "file", accept: ".whl" } });
		picker.addClass("ora-hidden");
		picker.addEventListener("change", () => {
			const file = picker.files?.[0];
			const path = file ? pathOfFile(file) : null;
			if (path) this.sourceInput.value = path;
			picker.remove();
		});
		picker.click();
	}

	private source(): PackageSource {
		const path = this.sourceInput.value.trim();
		return path === "" ? { kind: "index" } : { kind: "wheel", path };
	}

	private renderActions(): void {
		this.actionsEl.empty();
		const installer = this.host.installer;
		const row = new Setting(this.actionsEl);
		if (!installer.installed()) {
			row.setName("Not installed here yet.");
			row.addButton((b) => b.setButtonText("Install").setCta().onClick(() => this.install()));
			return;
		}
		row.setName(`Installed: ${installer.paths.ora}`);
		row.addButton((b) => b.setButtonText("Upgrade").onClick(() => this.upgrade()));
		row.addButton((b) => {
			b.setButtonText("Remove").onClick(() => this.remove());
			b.buttonEl.addClass("mod-warning");
		});
	}

	private async install(): Promise<void> {
		await this.run((listener) => this.host.installer.install(this.source(), listener), (o) => this.host.installed(o.oraCommand));
	}

	private async upgrade(): Promise<void> {
		await this.host.stopSidecar();
		await this.run((listener) => this.host.installer.upgrade(this.source(), listener), (o) => this.host.installed(o.oraCommand));
	}

	private async remove(): Promise<void> {
		const { paths } = this.host.installer;
		const ok = await this.host.confirm("Remove the sidecar?", `This stops the sidecar and deletes ${paths.venv} and ${paths.models}. Your notes and the index in the vault's .ora folder stay.`, "Remove");
		if (!ok) return;
		await this.host.stopSidecar();
		await this.run((listener) => this.host.installer.remove(listener), () => this.host.removed());
	}

	private async run(operation: (listener: SetupListener) => Promise<SetupOutcome>, after: (outcome: Extract<SetupOutcome, { ok: true }>) => Promise<void>): Promise<void> {
		if (this.host.installer.running) return;
		this.actionsEl.empty();
		this.logEl.empty();
		this.resultEl.empty();
		const outcome = await operation((event) => this.show(event));
		this.stepEl.empty();
		this.resultEl.setText(outcome.ok ? (outcome.version ? `Done: ora ${outcome.version} is ready.` : "Done: the sidecar is removed.") : outcome.message);
		this.resultEl.toggleClass("ora-error", !outcome.ok);
		if (outcome.ok) await after(outcome);
		this.renderActions();
	}

	private show(event: SetupEvent): void {
		if (event.kind === "step") {
			this.stepEl.setText(`Step ${event.index} of ${event.total}: ${event.title}…`);
			return;
		}
		this.logEl.appendText(event.line + "\n");
		while (this.logEl.childNodes.length > SHOWN_LINES) this.logEl.firstChild?.remove();
		this.logEl.scrollTop = this.logEl.scrollHeight;
	}
}

/**
 * A picked file's path on disk: `File.path` on older Electron, `webUtils.getPathForFile` on
 * Electron 32 and later (Obsidian exposes Electron's modules through `require`).
 */
export function pathOfFile(file: File): string | null {
	const legacy = (file as File & { path?: string }).path;
	if (legacy) return legacy;
	const load = (window as unknown as { require?: (name: string) => unknown }).require;
	const electron = load?.("electron") as { webUtils?: { getPathForFile(file: File): string } } | undefined;
	return electron?.webUtils?.getPathForFile(file) || null;
}
