import { notSureText } from "../api/client";

/** What to add to `lint.ignore` in the vault's ora.yaml: the note itself, or its folder. */
export type IgnoreScope = "note" | "folder";

/**
 * The lint-ignore entry for a note path: the path itself, or its folder with a trailing `/`
 * (a note at the vault's root has no folder to ignore: null).
 */
export function lintIgnoreEntry(path: string, scope: IgnoreScope): string | null {
	if (scope === "note") return path;
	const slash = path.lastIndexOf("/");
	return slash > 0 ? `${path.slice(0, slash)}/` : null;
}

export interface LintIgnoreDeps {
	/** Adds the entry to `lint.ignore` in the vault's ora.yaml (the sidecar writes it). */
	ignore(entry: string): Promise<unknown>;
	/** Lints the open editors again: nothing else tells them, as no note changed. */
	relint(): void;
	notify(text: string): void;
}

/** Stops linting `entry` (a note, or a folder ending in `/`), and says so or why not; never throws. */
export async function addLintIgnore(entry: string, deps: LintIgnoreDeps): Promise<void> {
	try {
		await deps.ignore(entry);
	} catch (err) {
		const unsure = notSureText(err, `${entry} was added to lint.ignore`, "Check lint.ignore in ora.yaml in a moment.");
		deps.notify(unsure ?? `Could not update ora.yaml: ${err instanceof Error ? err.message : String(err)}`);
		return;
	}
	deps.relint();
	deps.notify(`Ora no longer lints ${entry} (lint.ignore in ora.yaml).`);
}
