import type { App, TFile } from "obsidian";

/** Obsidian's "Deleted files" setting (Settings → Files and links): system trash, .trash, or gone. */
export type TrashOption = "system" | "local" | "none";

/** The user's "Deleted files" setting; Obsidian's default, the system trash, when it cannot be read. */
export function trashOption(app: App): TrashOption {
	// Not in Obsidian's typed API; `trashOption` has been its name for years.
	const value = (app.vault as unknown as { getConfig?: (key: string) => unknown }).getConfig?.("trashOption");
	return value === "local" || value === "none" ? value : "system";
}

/** What deleting a note needs from Obsidian. */
export interface TrashDeps {
	file(path: string): TFile | null;
	readBinary(file: TFile): Promise<ArrayBuffer>;
	/** Obsidian's `FileManager.trashFile`: where the user's "Deleted files" setting says. */
	trashFile(file: TFile): Promise<void>;
	option(): TrashOption;
}

/** The deps for Obsidian's app. */
export function obsidianTrash(app: App): TrashDeps {
	return {
		file: (path) => app.vault.getFileByPath(path),
		readBinary: (file) => app.vault.readBinary(file),
		trashFile: (file) => app.fileManager.trashFile(file),
		option: () => trashOption(app),
	};
}

async function sha256Hex(data: ArrayBuffer): Promise<string> {
	const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
	return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const UNDO = "Undo last resolution brings it back.";

/**
 * Deletes a note the user chose to delete in triage, through Obsidian's own trash, so the
 * "Deleted files" setting holds. The sidecar has recorded the decision, checked the note against
 * the judged `hash` and kept its bytes for an undo; the note is trashed only while it still has
 * that hash (an edit since is never thrown away). Returns where it is now, in words.
 */
export async function trashNote(deps: TrashDeps, path: string, hash: string): Promise<string> {
	const file = deps.file(path);
	if (file === null) return `It was already gone. ${UNDO}`;
	try {
		if ((await sha256Hex(await deps.readBinary(file))) !== hash) {
			return `It changed after you chose to delete it, so it was kept. ${UNDO.replace("brings it back", "reopens the pair")}`;
		}
		await deps.trashFile(file);
	} catch (err) {
		return `It could not be deleted (${err instanceof Error ? err.message : String(err)}); it is still in the vault.`;
	}
	const where: Record<TrashOption, string> = {
		system: "It is in the system trash, as your Deleted files setting says.",
		local: "It is in the vault's .trash folder, as your Deleted files setting says.",
		none: "It is deleted for good, as your Deleted files setting says.",
	};
	return `${where[deps.option()]} ${UNDO}`;
}
