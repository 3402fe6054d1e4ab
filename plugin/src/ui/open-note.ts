import { MarkdownView, normalizePath, Notice, type App, type PaneType, type TFile } from "obsidian";

/**
 * The vault's file at a path the sidecar reported. Obsidian keeps its paths normalized (NFC); the
 * sidecar reports the names as they are on disk, which files made on macOS often spell decomposed.
 */
export function vaultFile(app: App, path: string): TFile | null {
	return app.vault.getFileByPath(path) ?? app.vault.getFileByPath(normalizePath(path));
}

/**
 * Opens the note at `path` at lines `lineStart`..`lineEnd` (1-based, inclusive): the cursor at the
 * start of the first, the lines scrolled into view, nothing selected (a selection would be
 * replaced by the first key pressed); in a new tab (or split, window) when `newLeaf` says so, as
 * `Keymap.isModEvent` answers for a click.
 * A document kept in the vault (a PDF) opens at the place its `link` names (`paper.pdf#page=7`):
 * the file is the one already found, and only the part after the link's last `#` is handed on, so a
 * name holding `#` itself (`Invoice #12.pdf`, which `openLinkText` would cut there) opens too.
 */
export async function openAtLines(
	app: App,
	path: string,
	lineStart: number | null,
	lineEnd: number | null,
	newLeaf: PaneType | boolean = false,
	link: string | null = null,
): Promise<void> {
	const file = vaultFile(app, path);
	if (!file) {
		// The index follows the vault by itself; it is the shown list that is older than the deletion.
		new Notice(`“${path}” is not in the vault any more. Search again to refresh the results.`);
		return;
	}
	const leaf = app.workspace.getLeaf(newLeaf);
	if (link !== null || file.extension !== "md" || lineStart === null) {
		const at = link?.lastIndexOf("#") ?? -1;
		const subpath = at >= 0 ? (link ?? "").slice(at) : "";
		await leaf.openFile(file, { active: true, ...(subpath ? { eState: { subpath } } : {}) });
		return;
	}
	lineEnd ??= lineStart;
	// The ephemeral line scrolls in both modes: the cursor below only shows in the editor, and a
	// note opening in reading view (a user's default) would otherwise stay at its top.
	await leaf.openFile(file, { active: true, eState: { line: Math.max(0, lineStart - 1) } });
	const view = leaf.view;
	if (!(view instanceof MarkdownView)) return;
	const editor = view.editor;
	const last = editor.lastLine();
	const from = { line: clamp(lineStart - 1, 0, last), ch: 0 };
	const toLine = clamp(lineEnd - 1, from.line, last);
	const to = { line: toLine, ch: editor.getLine(toLine).length };
	editor.setCursor(from);
	editor.scrollIntoView({ from, to }, true);
}

function clamp(value: number, low: number, high: number): number {
	return Math.min(high, Math.max(low, value));
}
