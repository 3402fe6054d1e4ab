import type { App, Editor } from "obsidian";

import { datesFix, MANAGED_DATES } from "../lint/fixes";
import { vaultFile } from "./open-note";

/** `date created` and `date modified` (local YYYY-MM-DD) from the file's times, as `ora lint --fix` fills them. */
export function fileDates(app: App, path: string): Record<string, string> {
	const file = vaultFile(app, path);
	if (!file) return {};
	const [created, modified] = MANAGED_DATES;
	const out: Record<string, string> = {};
	if (created) out[created] = isoDay(file.stat.ctime);
	if (modified) out[modified] = isoDay(file.stat.mtime);
	return out;
}

function isoDay(ms: number): string {
	const d = new Date(ms);
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * "Fix dates in current note": the absent dates go into the open editor as one change (one undo
 * reverts it, and Obsidian saves it like typing), never onto the disk behind Obsidian's back.
 * Returns what to tell the user.
 */
export function fixDatesInEditor(editor: Pick<Editor, "getValue" | "replaceRange" | "offsetToPos">, dates: Record<string, string>, name: string): string {
	const change = datesFix(editor.getValue(), dates);
	if (!change) return `Dates in ${name} were already set.`;
	editor.replaceRange(change.insert, editor.offsetToPos(change.from), editor.offsetToPos(change.to));
	return `Dates fixed in ${name}.`;
}
