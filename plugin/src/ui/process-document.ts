import { Notice, TFile, type App, type Menu, type TAbstractFile } from "obsidian";

import type { SidecarClient } from "../api/client";
import { PROCESSABLE } from "../search/place";
import { errorText } from "./adopt-modal";
import { confirmWrite } from "./confirm-modal";

/** "Process document into notes" on the file menu of a document the sidecar can process (a PDF…). */
export function addDocumentMenu(menu: Menu, file: TAbstractFile, process: (path: string) => void): void {
	if (!(file instanceof TFile) || !PROCESSABLE.has(file.extension.toLowerCase())) return;
	menu.addItem((item) =>
		item
			.setTitle("Process document into notes")
			.setIcon("file-text")
			.onClick(() => process(file.path)),
	);
}

/**
 * `ora ingest` for one document: shows what it would write, writes it once confirmed (one
 * `type: resource` note per page, docs/documents.md) and says what was written.
 */
export async function processDocument(app: App, client: SidecarClient, path: string): Promise<void> {
	try {
		const plan = await client.ingestPlan(path);
		if (plan.unchanged) {
			new Notice(`The notes of ${path} are up to date.`);
			return;
		}
		const first = plan.notes[0]?.path ?? "";
		const folder = first.slice(0, first.lastIndexOf("/"));
		const ok = await confirmWrite(
			app,
			"Process document into notes",
			`Write ${plan.notes.length} resource notes, one per page, into ${folder}? The document stays where it is; search then finds the notes instead of it.`,
			"Write notes",
		);
		if (!ok) return;
		const done = await client.ingestApply(path);
		new Notice(`Wrote ${done.written.length} notes into ${folder}.`);
	} catch (err) {
		new Notice(`Could not process ${path}: ${errorText(err)}`);
	}
}
