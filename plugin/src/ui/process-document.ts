import { Notice, TFile, type App, type Menu, type TAbstractFile } from "obsidian";

import { notSureText, type SidecarClient } from "../api/client";
import type { IngestPlan } from "../api/types";
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
	let folder = "";
	try {
		const plan = await client.ingestPlan(path);
		if (plan.unchanged) {
			new Notice(`The notes of ${path} are up to date.`);
			return;
		}
		if (plan.conflicts.length > 0) {
			// Writing would be refused: say which notes stand in the way before asking anything.
			new Notice(
				`Cannot process ${path}: ${plan.conflicts.length} of its notes were edited since they were written, or are notes of your own (${plan.conflicts[0]}). Move them away, then process it again.`,
			);
			return;
		}
		const first = plan.notes[0]?.path ?? "";
		folder = first.slice(0, first.lastIndexOf("/"));
		const ok = await confirmWrite(app, "Process document into notes", confirmText(plan, folder), "Write notes");
		if (!ok) return;
		const done = await client.ingestApply(path);
		const trashed = done.trashed.length > 0 ? `; moved ${done.trashed.length} notes of pages no longer in it to the trash` : "";
		const kept = done.kept?.length ? `; kept ${done.kept.length} you edited of pages no longer in it (${done.kept[0]})` : "";
		new Notice(`Wrote ${done.written.length} notes into ${folder}${trashed}${kept}.`);
	} catch (err) {
		// Only the write can be unsure: the sidecar may have written the notes before its answer was lost.
		const unsure = notSureText(err, `the notes of ${path} were written`, `Check ${folder} in a moment; processing ${path} again says whether its notes are up to date.`);
		if (unsure) new Notice(unsure, 15_000);
		else new Notice(`Could not process ${path}: ${errorText(err)}`);
	}
}

/** What the confirmation says an apply of `plan` does: the notes, the trash, what is not read. */
export function confirmText(plan: IngestPlan, folder: string): string {
	const parts = [
		`Write ${plan.notes.length} resource notes, one per page, into ${folder}? The document stays where it is; search then finds the notes instead of it.`,
	];
	if (plan.stale.length > 0) parts.push(`${plan.stale.length} notes of pages no longer in it go to the trash.`);
	if (plan.kept.length > 0) parts.push(`${plan.kept.length} notes of pages no longer in it stay, as you edited them (${plan.kept[0]}).`);
	if (plan.cut) parts.push(`Only part of the document is read: ${plan.cut}.`);
	return parts.join(" ");
}
