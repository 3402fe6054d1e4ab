// Typed access to what only the `obsidian` stand-in has (recorded workspace calls, layout saves,
// events to trigger, files made from a path): tests see the real `obsidian` types otherwise.
import { TFile, type WorkspaceLeaf } from "obsidian";

import * as standIn from "./__mocks__/obsidian";

export interface StandInLeaf {
	leaf: WorkspaceLeaf;
	workspace: standIn.Workspace;
	vault: standIn.Vault;
}

export function aLeaf(): StandInLeaf {
	const leaf = new standIn.WorkspaceLeaf();
	return { leaf: leaf as unknown as WorkspaceLeaf, workspace: leaf.app.workspace, vault: leaf.app.vault };
}

export function aFile(path: string): TFile {
	// At run time `obsidian` is the stand-in, so this holds; it narrows the type honestly.
	const file: unknown = standIn.TFile.at(path);
	if (!(file instanceof TFile)) throw new Error("the obsidian alias does not point at the stand-in");
	return file;
}
