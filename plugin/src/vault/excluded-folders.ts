import { SidecarError } from "../api/client";
import type { VaultSettings } from "../api/types";

/**
 * The excluded-folders picker's logic: `exclude` in the vault's ora.yaml, read and edited through
 * the sidecar (the file the CLI reads too, edited round-trip there), and the folders that could
 * be added. Obsidian (the settings row, the folder suggester, Notices) stays behind `deps`.
 */
export interface ExcludedFoldersDeps {
	vaultSettings(): Promise<VaultSettings>;
	setExcluded(path: string, excluded: boolean): Promise<VaultSettings>;
	/** Every folder of the vault, vault-relative, the root left out. */
	folders(): string[];
	/** Tells the user something went wrong (a Notice in Obsidian). */
	notify(text: string): void;
}

/** The list as last read (null before the first read or when it failed), and why it failed. */
export interface ExcludedFoldersState {
	entries: string[] | null;
	error: string | null;
	busy: boolean;
}

/** An entry as ora.yaml matches it: `Scratch`, `Scratch/` and `/Scratch/` name one folder. */
function entryKey(entry: string): string {
	return entry.trim().replace(/^\/+|\/+$/g, "");
}

/** True when an `exclude` entry already covers `folder` (names it or a folder above it). */
function covered(entries: readonly string[], folder: string): boolean {
	return entries.some((entry) => {
		const key = entryKey(entry);
		return key !== "" && (folder === key || folder.startsWith(`${key}/`));
	});
}

/**
 * Folders the user may add: not hidden (dot-folders are never indexed), not already covered by
 * an entry, sorted as a person reads them.
 */
export function candidateFolders(folders: readonly string[], entries: readonly string[]): string[] {
	return folders
		.filter((folder) => folder !== "" && folder !== "/" && !folder.split("/").some((part) => part.startsWith(".")))
		.filter((folder) => !covered(entries, folder))
		.sort((a, b) => a.localeCompare(b));
}

/** The message for a failed read or edit, one per cause the user can act on. */
export function excludedFoldersError(err: unknown): string {
	if (err instanceof SidecarError) {
		if (err.unreachable) return "The sidecar is not running. Start it and try again.";
		if (err.code === "conflict") return `ora.yaml changed while Ora was editing it (perhaps it is being saved). Nothing was written; try again. ${err.message}`;
		return `ora.yaml was not changed: ${err.message}`;
	}
	return `Unexpected error: ${err instanceof Error ? err.message : String(err)}`;
}

export class ExcludedFoldersController {
	private current: ExcludedFoldersState = { entries: null, error: null, busy: false };
	private readonly listeners = new Set<(state: ExcludedFoldersState) => void>();

	constructor(private readonly deps: ExcludedFoldersDeps) {}

	get state(): ExcludedFoldersState {
		return this.current;
	}

	/** Calls `listener` on every change; returns the function that stops it. */
	subscribe(listener: (state: ExcludedFoldersState) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	async refresh(): Promise<void> {
		try {
			this.set({ entries: (await this.deps.vaultSettings()).exclude, error: null });
		} catch (err) {
			this.set({ entries: null, error: excludedFoldersError(err) });
		}
	}

	/** The folders "Add folder" offers. */
	candidates(): string[] {
		return candidateFolders(this.deps.folders(), this.current.entries ?? []);
	}

	/** Excludes a folder (written as `folder/`, so it reads as a folder in ora.yaml). */
	add(folder: string): Promise<void> {
		return this.edit(`${entryKey(folder)}/`, true);
	}

	/** Removes an entry as listed (every spelling of it, as the sidecar removes them). */
	remove(entry: string): Promise<void> {
		return this.edit(entry, false);
	}

	private async edit(path: string, excluded: boolean): Promise<void> {
		if (this.current.busy) return;
		this.set({ busy: true });
		try {
			this.set({ entries: (await this.deps.setExcluded(path, excluded)).exclude, error: null, busy: false });
		} catch (err) {
			this.set({ busy: false });
			this.deps.notify(`Could not ${excluded ? "exclude" : "include"} ${path}: ${excludedFoldersError(err)}`);
		}
	}

	private set(change: Partial<ExcludedFoldersState>): void {
		this.current = { ...this.current, ...change };
		for (const listener of this.listeners) listener(this.current);
	}
}
