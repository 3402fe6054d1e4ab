import { Modal, Setting, type App } from "obsidian";

import type { InstallState, PackageSource, SetupEvent, SetupListener, SetupOutcome } from "../setup/installer";
import type { ManagedPaths } from "../setup/paths";

/** The installer's operations the set-up UI uses (setup/installer.ts). */
export interface SetupInstaller {
	readonly paths: ManagedPaths;
	readonly running: boolean;
	state(): InstallState;
	install(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome>;
	repair(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome>;
	upgrade(source: PackageSource, listener?: SetupListener): Promise<SetupOutcome>;
	remove(listener?: SetupListener): Promise<SetupOutcome>;
	cancel(): void;
}

/** What the set-up modal needs: the installer's operations and what to do after them. */
export interface SetupHost {
	installer: SetupInstaller;
	/** Why the modal opened (for example "No ora command was found."), or null. */
	reason: string | null;
	/**
	 * Stops a sidecar the plugin started and resolves once it has exited: its files are replaced
	 * or removed next, and a running process keeps them open (on Windows they cannot be replaced).
	 */
	stopSidecar(): Promise<void>;
	/** After install, repair or upgrade: point the command setting at the install and start the sidecar. */
	installed(): Promise<void>;
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
	private progress!: SetupProgressView;
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
		this.contentEl.createEl("p", { text: describeSetup(paths) });
		new Setting(this.contentEl)
			.setName("Wheel file")
			.setDesc("Leave empty to install from the package index, or give the full path of a wheel (.whl) file from a release.")
			.addText((t) => {
				t.setPlaceholder("/path/to/ora_vault_sidecar-x.y.z-py3-none-any.whl");
				this.sourceInput = t.inputEl;
			})
			.addButton((b) => b.setButtonText("Choose…").onClick(() => this.chooseWheel()));
		this.actionsEl = this.contentEl.createDiv();
		this.progress = new SetupProgressView(this.contentEl);
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

	/**
	 * The actions the install's state allows. Whatever an interrupted set-up left, Install (which
	 * finishes it), Repair and Remove are offered; Upgrade needs a finished install.
	 */
	private renderActions(): void {
		this.actionsEl.empty();
		const installer = this.host.installer;
		const row = new Setting(this.actionsEl);
		const state = installer.state();
		const button = (label: string, action: () => Promise<void>, cls?: string) =>
			row.addButton((b) => {
				b.setButtonText(label).onClick(() => action());
				if (cls) b.buttonEl.addClass(cls);
			});
		if (state === "absent") {
			row.setName("Not installed on this computer yet.");
			button("Install", () => this.install());
			return;
		}
		if (state === "partial") {
			row.setName("An earlier set-up did not finish.");
			button("Install", () => this.install());
		} else {
			row.setName(`Installed in ${installer.paths.root}`);
			button("Upgrade", () => this.upgrade());
		}
		button("Repair", () => this.repair());
		button("Remove", () => this.remove(), "mod-warning");
	}

	private async install(): Promise<void> {
		await this.host.stopSidecar();
		await this.run((listener) => this.host.installer.install(this.source(), listener), () => this.host.installed());
	}

	private async repair(): Promise<void> {
		await this.host.stopSidecar();
		await this.run((listener) => this.host.installer.repair(this.source(), listener), () => this.host.installed());
	}

	private async upgrade(): Promise<void> {
		await this.host.stopSidecar();
		await this.run((listener) => this.host.installer.upgrade(this.source(), listener), () => this.host.installed());
	}

	private async remove(): Promise<void> {
		const { paths } = this.host.installer;
		const ok = await this.host.confirm("Remove the sidecar?", `This stops the sidecar and deletes ${paths.root} but its set-up log: uv, its Python, the sidecar and the models, for every vault on this computer. Your notes and each vault's index in its .ora folder stay.`, "Remove");
		if (!ok) return;
		await this.host.stopSidecar();
		await this.run((listener) => this.host.installer.remove(listener), () => this.host.removed(), false);
	}

	/**
	 * Runs one operation; `after` follows a success, and also an install whose model build failed
	 * (the sidecar is installed and starts; the message says to repair the model).
	 */
	private async run(operation: (listener: SetupListener) => Promise<SetupOutcome>, after: () => Promise<void>, installs = true): Promise<void> {
		if (this.host.installer.running) return;
		this.actionsEl.empty();
		new Setting(this.actionsEl).addButton((b) => b.setButtonText("Cancel").onClick(() => this.host.installer.cancel()));
		this.progress.reset();
		this.resultEl.empty();
		const outcome = await operation((event) => this.progress.show(event));
		this.progress.done();
		this.resultEl.setText(outcome.ok ? (outcome.version ? `Done: ora ${outcome.version} is ready.` : "Done: the sidecar is removed.") : outcome.message);
		this.resultEl.toggleClass("ora-error", !outcome.ok);
		if (outcome.ok || (installs && this.host.installer.state() === "installed")) await after();
		this.renderActions();
	}
}

/** A set-up operation as it runs: the step, a download's progress bar, the log's last lines. */
export class SetupProgressView {
	private readonly stepEl: HTMLElement;
	private readonly progressEl: HTMLProgressElement;
	private readonly logEl: HTMLElement;

	constructor(parent: HTMLElement) {
		this.stepEl = parent.createDiv({ cls: "ora-setup-step" });
		this.progressEl = parent.createEl("progress", { cls: "ora-setup-progress ora-hidden" });
		this.logEl = parent.createEl("pre", { cls: "ora-setup-log" });
	}

	reset(): void {
		this.logEl.empty();
	}

	done(): void {
		this.stepEl.empty();
		this.progressEl.addClass("ora-hidden");
	}

	show(event: SetupEvent): void {
		if (event.kind === "step") {
			this.stepEl.setText(`Step ${event.index} of ${event.total}: ${event.title}…`);
			this.progressEl.addClass("ora-hidden");
			return;
		}
		if (event.kind === "progress") {
			this.progressEl.removeClass("ora-hidden");
			this.progressEl.max = event.total || 1;
			this.progressEl.value = event.received;
			return;
		}
		this.logEl.appendText(event.line + "\n");
		while (this.logEl.childNodes.length > SHOWN_LINES) this.logEl.firstChild?.remove();
		this.logEl.scrollTop = this.logEl.scrollHeight;
	}
}

/** What set-up does and where, said before it starts. */
export function describeSetup(paths: ManagedPaths): string {
	return `The sidecar is a Python program; no Python is needed on this computer. Set-up fetches uv (a Python package installer, about 20 MB) from the package index, which installs a private Python (about 30 MB, python-build-standalone from GitHub), the ora-vault-sidecar package (a few hundred MB) and the embedding model. Every download is checked against the sha256 its source publishes. It all goes into ${paths.root}, shared by every vault on this computer: upgrading once upgrades them all, and each vault keeps only its .ora folder.`;
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
