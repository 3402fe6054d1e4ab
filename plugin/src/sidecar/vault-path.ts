/**
 * Whether the vault a running sidecar reports is the vault Obsidian has open, as strings (the
 * caller resolves symlinks first). Windows and macOS file systems ignore case, so there
 * `C:\Users\Me\Vault` and `c:\users\me\vault` are one vault; Linux's do not.
 */

/** The platforms whose usual file systems (NTFS, APFS, HFS+) compare names without case. */
const CASE_INSENSITIVE: ReadonlySet<NodeJS.Platform> = new Set(["win32", "darwin"]);

/**
 * `path` in one spelling per folder: Unicode NFC (macOS hands out decomposed names), `/` for
 * Windows' `\` (elsewhere `\` is a character of a name), no Windows `\\?\` long-path prefix, no
 * repeated or trailing separator (a root keeps its own), case-folded where names ignore case.
 */
export function vaultPathKey(path: string, platform: NodeJS.Platform): string {
	let key = path.normalize("NFC");
	if (platform === "win32") key = key.replace(/\\/g, "/").replace(/^\/\/\?\//, "");
	// A Windows UNC path (//server/share) keeps its leading pair.
	const lead = platform === "win32" && key.startsWith("//") ? "/" : "";
	key = lead + key.replace(/\/{2,}/g, "/");
	while (key.length > 1 && key.endsWith("/") && !/^[A-Za-z]:\/$/.test(key)) key = key.slice(0, -1);
	return CASE_INSENSITIVE.has(platform) ? key.toLowerCase() : key;
}

export function sameVaultPath(a: string, b: string, platform: NodeJS.Platform): boolean {
	return vaultPathKey(a, platform) === vaultPathKey(b, platform);
}
