import { FuzzySuggestModal, Setting, type App } from "obsidian";

import type { ExcludedFoldersController, ExcludedFoldersState } from "../vault/excluded-folders";

/** Obsidian's fuzzy finder over the folders that may still be excluded. */
export class FolderSuggestModal extends FuzzySuggestModal<string> {
	constructor(
		app: App,
		private readonly folders: string[],
		private readonly choose: (folder: string) => void,
	) {
		super(app);
		this.setPlaceholder("Pick a folder to leave out of the index");
		this.emptyStateText = "No folder left to exclude.";
	}

	getItems(): string[] {
		return this.folders;
	}

	getItemText(folder: string): string {
		return folder;
	}

	onChooseItem(folder: string): void {
		this.choose(folder);
	}
}

/**
 * Draws the excluded folders into `el`, each with a remove button, and "Add folder", again on
 * every change, until the returned function is called (the settings tab is hidden).
 */
export function showExcludedFolders(app: App, el: HTMLElement, controller: ExcludedFoldersController): () => void {
	const draw = (state: ExcludedFoldersState): void => drawList(app, el, state, controller);
	const stop = controller.subscribe(draw);
	draw(controller.state);
	void controller.refresh();
	return stop;
}

function drawList(app: App, el: HTMLElement, state: ExcludedFoldersState, controller: ExcludedFoldersController): void {
	el.empty();
	if (state.error !== null) {
		el.createDiv({ cls: "ora-models-error", text: state.error });
		return;
	}
	if (state.entries === null) {
		el.createDiv({ cls: "ora-models-note", text: "Loading the excluded folders…" });
		return;
	}
	if (state.problems.length) {
		const box = el.createDiv({ cls: "ora-models-error ora-excluded-problems" });
		box.createDiv({ text: "Problems with ora.yaml:" });
		const list = box.createEl("ul");
		for (const problem of state.problems) list.createEl("li", { text: problem });
	}
	if (state.locked !== null) {
		el.createDiv({ cls: "ora-models-note ora-excluded-locked", text: state.locked });
		// Once the file is fixed or saved, the picker reads it again on request.
		new Setting(el).addButton((b) => b.setButtonText("Check ora.yaml again").onClick(() => void controller.refresh()));
	}
	if (state.entries.length === 0) el.createDiv({ cls: "ora-models-note", text: "No folder is excluded." });
	for (const entry of state.entries) {
		const row = new Setting(el).setName(entry);
		// An edit the sidecar must refuse is not offered while ora.yaml cannot be used.
		if (state.locked !== null) continue;
		row.addExtraButton((b) =>
			b
				.setIcon("x")
				.setTooltip(`Include ${entry} again`)
				.onClick(() => void controller.remove(entry)),
		);
	}
	new Setting(el).addButton((b) => {
		b.setButtonText("Add folder").onClick(() => new FolderSuggestModal(app, controller.candidates(), (folder) => void controller.add(folder)).open());
		if (state.busy || state.locked !== null) b.setDisabled(true);
	});
}
