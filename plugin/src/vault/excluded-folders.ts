import { notSureText, SidecarError } from "../api/client";
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
	/** What the sidecar found wrong with ora.yaml (its `problems`), as it says them. */
	problems: string[];
	/**
	 * Why ora.yaml cannot be edited from here now (the sidecar would refuse: it cannot use the file
	 * as it is, and `entries` are the settings it last had); null when it can.
	 */
	locked: string | null;
}

/**
 * The sidecar's `problems` that mean ora.yaml cannot be used as it is (docs/vault-settings.md):
 * it keeps the settings the file last had (or none), and refuses an edit until the file is fixed
 * by hand or saved again. Other problems (a value left at its default) leave it editable.
 */
const UNUSABLE = [
	"its settings are those it last had until it can be used",
	"the file is larger than",
	"cannot read the file",
	"invalid YAML",
	"the file must be a mapping",
	"the file is missing",
	"the file is empty where it had settings",
	"exclude must be a list",
	"private must be a list",
];

/** Why the picker cannot edit ora.yaml with these problems; null when it can. */
export function lockedBy(problems: readonly string[]): string | null {
	if (!problems.some((p) => UNUSABLE.some((marker) => p.includes(marker)))) return null;
	return "Ora cannot use ora.yaml as it is, so the excluded folders cannot be changed here until it can: fix the file by hand (its problems are listed with the excluded folders), or wait for a save in progress to finish. The list shows the settings Ora uses meanwhile.";
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

/** How to see whether an edit whose answer was lost (`SidecarError.unsure`) changed ora.yaml. */
const RECHECK = "Open Ora's settings again in a moment to see whether ora.yaml changed.";

/** The message for a failed read or edit, one per cause the user can act on. */
export function excludedFoldersError(err: unknown): string {
	if (err instanceof SidecarError) {
		// Checked first: an edit whose connection broke has status 0 too, but the sidecar took it.
		if (err.unsure) return `${err.message} ${RECHECK}`;
		if (err.unreachable) return "The sidecar is not running. Start it and try again.";
		// The sidecar says what happened and what to do (e.g. "ora.yaml is missing where it had settings a moment ago…: try again").
		if (err.code === "conflict") return err.message.trim() || "ora.yaml changed while Ora was editing it (perhaps it is being saved), so nothing was written. Try again in a moment.";
		return `ora.yaml was not changed: ${err.message}`;
	}
	return `Unexpected error: ${err instanceof Error ? err.message : String(err)}`;
}

function read(settings: VaultSettings): Pick<ExcludedFoldersState, "entries" | "problems" | "locked"> {
	const problems = settings.problems ?? [];
	// The sidecar's own editor says whether it would refuse; older sidecars leave only the problems.
	const refused = settings.exclude_refused;
	return { entries: settings.exclude, problems, locked: refused === undefined ? lockedBy(problems) : refused === null ? null : `${refused} (the list shows the settings Ora uses meanwhile).` };
}

export class ExcludedFoldersController {
	private current: ExcludedFoldersState = { entries: null, error: null, busy: false, problems: [], locked: null };
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
			this.set({ ...read(await this.deps.vaultSettings()), error: null });
		} catch (err) {
			this.set({ entries: null, error: excludedFoldersError(err), problems: [], locked: null });
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
		// The lock may be stale (the file fixed or saved since): read again before refusing.
		if (this.current.locked !== null) await this.refresh();
		const locked = this.current.locked;
		if (locked !== null) {
			this.deps.notify(`Could not ${excluded ? "exclude" : "include"} ${path}: ${locked}`);
			return;
		}
		if (this.current.busy) return;
		this.set({ busy: true });
		try {
			this.set({ ...read(await this.deps.setExcluded(path, excluded)), error: null, busy: false });
		} catch (err) {
			this.set({ busy: false });
			const unsure = notSureText(err, `${path} was ${excluded ? "excluded" : "included"}`, RECHECK);
			this.deps.notify(unsure ?? `Could not ${excluded ? "exclude" : "include"} ${path}: ${excludedFoldersError(err)}`);
		}
	}

	private set(change: Partial<ExcludedFoldersState>): void {
		this.current = { ...this.current, ...change };
		for (const listener of this.listeners) listener(this.current);
	}
}
