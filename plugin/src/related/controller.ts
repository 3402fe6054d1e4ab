import { SidecarError } from "../api/client";
import type { RelatedDocument, RelatedRequest } from "../api/types";
import { GoneNotes, listsNote } from "../search/controller";
import { groupByNote } from "../search/group";
import { shapeResult, titleFromPath, withoutPrivate, type ResultList } from "../search/shape";
import { debounce, live, type Debounced, type Live } from "../util/debounce";

/** What the related panel shows; errors are values. Shown results stay while a refresh runs. */
export type RelatedState =
	| { kind: "none" }
	| { kind: "loading"; path: string; title: string }
	| { kind: "results"; path: string; title: string; list: ResultList; pending?: boolean }
	| { kind: "empty"; path: string; title: string }
	| { kind: "message"; path: string; title: string; message: string; error: boolean };

export interface RelatedControllerOptions {
	related: (request: RelatedRequest) => Promise<RelatedDocument>;
	onState: (state: RelatedState) => void;
	/** Live: the Results per search setting may change while the panel is open. */
	k: Live<number>;
	/** Quiet time after switching notes before asking. */
	openDelayMs: number;
	/** Quiet time after an edit before asking again (the sidecar re-indexes the saved file first). */
	editDelayMs: number;
}

/**
 * Follows the active note: asks for its related notes when it opens and again after edits
 * (debounced), drops answers for a note that is no longer active, and says why a list is empty
 * (a note not indexed yet, or a private note outside private mode: the sidecar does not say which).
 */
export class RelatedController {
	private path: string | null = null;
	private privateMode = false;
	private sequence = 0;
	private shown: RelatedState = { kind: "none" };
	private readonly onOpen: Debounced<[]>;
	private readonly onEdit: Debounced<[]>;
	private readonly gone = new GoneNotes();

	constructor(private readonly config: RelatedControllerOptions) {
		this.onOpen = debounce(() => void this.run(), config.openDelayMs);
		this.onEdit = debounce(() => void this.run(), config.editDelayMs);
	}

	get activePath(): string | null {
		return this.path;
	}

	/** The active note changed (null: no note, e.g. a canvas or an empty tab). */
	follow(path: string | null): void {
		if (path === this.path) return;
		this.path = path;
		this.onEdit.cancel();
		this.sequence++;
		if (path === null) {
			this.onOpen.cancel();
			this.emit({ kind: "none" });
			return;
		}
		this.onOpen();
	}

	/**
	 * A note was renamed or moved (Obsidian opens nothing anew): when it is the active one, follow it
	 * under its new path, asked after the edit delay so the sidecar has indexed it there.
	 */
	renamed(oldPath: string, path: string | null): void {
		if (oldPath !== this.path) return;
		if (path === null) {
			this.follow(null);
			return;
		}
		this.path = path;
		this.sequence++; // an answer for the old path is no answer for this one
		this.onOpen.cancel();
		this.onEdit();
	}

	/**
	 * A note was edited: the active one, or one the list shows (it may have been tagged private,
	 * or lost the passage shown). Asked again after the edit delay, the list kept meanwhile.
	 */
	edited(path: string): void {
		if (path === this.path || this.listed(path)) this.onEdit();
	}

	/** A note was deleted: its row goes at once (an answer asked before leaves it out too), and the list is asked again. */
	removed(path: string): void {
		this.gone.add(path);
		const shown = this.shown;
		if (shown.kind !== "results" || !this.listed(path)) return;
		const list = this.gone.filter(shown.list);
		this.emit(list.cards.length ? { ...shown, list } : { kind: "loading", path: shown.path, title: shown.title });
		this.onEdit();
	}

	/** A note was created: a path deleted before may be a note again. */
	created(path: string): void {
		this.gone.delete(path);
	}

	/** A note other than the active one was renamed or moved: its row goes from the old path, and the list is asked again. */
	moved(oldPath: string, path: string): void {
		this.created(path);
		if (oldPath !== this.path) this.removed(oldPath);
	}

	/** Whether the list shown is this note's and holds `path`. */
	private listed(path: string): boolean {
		const shown = this.shown;
		return shown.kind === "results" && shown.path === this.path && listsNote(shown.list, path);
	}

	/**
	 * The vault's settings changed (ora.yaml): a folder may have become private or excluded, so the
	 * list is asked again after the edit delay (a burst of saves asks once), the list kept meanwhile.
	 */
	settingsChanged(): void {
		if (this.path !== null) this.onEdit();
	}

	setPrivate(on: boolean): void {
		const leavingPrivate = this.privateMode && !on;
		this.privateMode = on;
		if (leavingPrivate) this.hidePrivate();
		if (this.path !== null) this.onOpen();
	}

	/** Private mode is off: no answer asked in it may still land, and no private note stays shown. */
	private hidePrivate(): void {
		this.sequence++;
		const shown = this.shown;
		if (shown.kind !== "results") return;
		const list = withoutPrivate(shown.list);
		this.emit(list.cards.length ? { ...shown, list, pending: true } : { kind: "loading", path: shown.path, title: shown.title });
	}

	/** The sidecar has become ready: a note that could not be asked (it was not there yet) is asked again. */
	retry(): Promise<void> {
		if (this.shown.kind !== "message" || !this.shown.error || this.path !== this.shown.path) return Promise.resolve();
		return this.refresh();
	}

	/** Asks now (the refresh button). */
	refresh(): Promise<void> {
		this.onOpen.cancel();
		this.onEdit.cancel();
		return this.run();
	}

	dispose(): void {
		this.onOpen.cancel();
		this.onEdit.cancel();
		this.sequence++;
	}

	private emit(state: RelatedState): void {
		this.shown = state;
		this.config.onState(state);
	}

	private async run(): Promise<void> {
		const path = this.path;
		if (path === null) return;
		const mine = ++this.sequence;
		const title = titleFromPath(path);
		const shown = this.shown;
		this.emit(shown.kind === "results" && shown.path === path ? { ...shown, pending: true } : { kind: "loading", path, title });
		let next: RelatedState;
		try {
			const doc = await this.config.related({ path, k: live(this.config.k), private: this.privateMode });
			// Nothing to highlight: the notes were found by meaning and links, not by words.
			const shaped = doc.results.map((r) => shapeResult(r, []));
			const list = this.gone.filter({ cards: shaped, groups: groupByNote(shaped), rerankNote: "", indexingNote: null });
			next = list.cards.length ? { kind: "results", path, title, list } : { kind: "empty", path, title };
		} catch (err) {
			next = { kind: "message", path, title, ...explain(err) };
		}
		if (mine === this.sequence) this.emit(next);
	}
}

function explain(err: unknown): { message: string; error: boolean } {
	// Outside private mode the sidecar answers a private note exactly as a missing one (a
	// different answer would tell that a private note of that name exists): one message for both.
	if (err instanceof SidecarError && err.status === 404) {
		return { message: "This note is not indexed yet, or it is private: turn on private mode to see notes related to a private note.", error: false };
	}
	return { message: err instanceof Error ? err.message : String(err), error: true };
}
