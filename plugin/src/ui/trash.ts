import type { App, DataAdapter } from "obsidian";

/** Obsidian's "Deleted files" setting (Settings → Files and links): system trash, .trash, or gone. */
export type TrashOption = "system" | "local" | "none";

/** The user's "Deleted files" setting; Obsidian's default, the system trash, when it cannot be read. */
export function trashOption(app: App): TrashOption {
	// Not in Obsidian's typed API; `trashOption` has been its name for years.
	const value = (app.vault as unknown as { getConfig?: (key: string) => unknown }).getConfig?.("trashOption");
	return value === "local" || value === "none" ? value : "system";
}

/**
 * A note the sidecar deleted is moved, as Obsidian itself does, into the vault's `.trash/` (which
 * keeps Undo possible). Where the user's "Deleted files" setting says otherwise, it goes on from
 * there: to the system trash, or away for good. Returns where it is now, in words.
 */
export async function honourTrashSetting(option: TrashOption, adapter: Pick<DataAdapter, "trashSystem" | "remove">, trashPath: string): Promise<string> {
	const local = `It is in the vault's .trash folder (Undo last resolution brings it back).`;
	try {
		if (option === "system") {
			return (await adapter.trashSystem(trashPath)) ? "It is in the system trash, as your Deleted files setting says." : `${local} The system trash could not be used.`;
		}
		if (option === "none") {
			await adapter.remove(trashPath);
			return "It is deleted for good, as your Deleted files setting says.";
		}
	} catch (err) {
		return `${local} Moving it on as your Deleted files setting says failed: ${err instanceof Error ? err.message : String(err)}`;
	}
	return local;
}
