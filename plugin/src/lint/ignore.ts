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
