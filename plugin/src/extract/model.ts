import type { ExtractAccepted, ExtractAcceptRequest, ExtractDropped, ExtractPlan, ExtractProposal, ExtractSelector, ExtractUndone, ProposalEdit } from "../api/types";
import { carriedConversation } from "../ask/relink";
import { titleFromPath } from "../search/shape";

/** What the user decided for a proposal; nothing is written before they keep the accepted ones. */
export type Decision = "undecided" | "accepted" | "rejected";

/** A note the review links to, with the lines to select when it opens. */
export interface NoteLink {
	path: string;
	title: string;
	lineStart: number;
	lineEnd: number;
}

/** One proposal as the review lists it, the user's edit applied. */
export interface ProposalCard {
	id: string;
	title: string;
	text: string;
	edited: boolean;
	decision: Decision;
	aiDerived: boolean;
	private: boolean;
	/** e.g. "subtype: causal_claim · nexus: [[Sleep]]"; empty when neither was inferred. */
	meta: string;
	source: NoteLink & { lines: string };
	contradicts: NoteLink[];
}

export interface DroppedRow {
	text: string;
	reason: string;
	/** The engram a duplicate repeats. */
	of: NoteLink | null;
}

const REASONS: Record<string, string> = {
	pushback: "You pushed back on it later in the conversation",
	duplicate: "An engram already says this",
	"not-a-claim": "Not a claim (a question, a greeting or chatter)",
};

/**
 * The extraction a note asks for, named by its path: a note carrying a conversation in its
 * frontmatter (Ora's chat note, the test the sidecar and the Ask panel's relinking use), or a
 * document's resource note (`type: resource` with `source_file`, as "Process document into notes"
 * writes one), the two the sidecar extracts from.
 */
export function extractableNote(path: string, frontmatter: Readonly<Record<string, unknown>> | null | undefined): ExtractSelector | null {
	const documentNote = frontmatter?.type === "resource" && typeof frontmatter.source_file === "string";
	return documentNote || carriedConversation(path, frontmatter) ? { note: path } : null;
}

/** Which extractor proposed, in words; `fallback` says why the model's answer was not used. */
export function extractorLabel(extractor: string, fallback?: string): string {
	if (extractor.startsWith("llm:")) return `Proposed by the language model (${extractor.slice(4)})`;
	const rules = extractor === "rules" ? "the rule extractor (the claims as stated)" : extractor;
	return fallback ? `Proposed by ${rules}, because the language model's answer could not be used: ${fallback}` : `Proposed by ${rules}`;
}

export function droppedRow(dropped: ExtractDropped): DroppedRow {
	return {
		text: dropped.text,
		reason: REASONS[dropped.reason] ?? dropped.reason,
		of: dropped.of ? noteLink(dropped.of) : null,
	};
}

/**
 * The review's state: each proposal's decision and the user's edits, as plain values the modal
 * draws. Accepting writes nothing; `request` builds the body that keeps them.
 */
export class ExtractReview {
	private readonly proposals: ExtractProposal[];
	private readonly decisions = new Map<string, Decision>();
	private readonly edits = new Map<string, ProposalEdit>();

	/**
	 * `earlier`: the review this one replaces (the same conversation extracted again); the
	 * decisions and edits of the proposals still proposed, known by their id, carry over.
	 */
	constructor(
		readonly plan: ExtractPlan,
		earlier?: ExtractReview | null,
	) {
		this.proposals = [...plan.proposals];
		if (!earlier) return;
		for (const p of this.proposals) {
			const decision = earlier.decisions.get(p.id);
			if (decision !== undefined) this.decisions.set(p.id, decision);
			const edit = earlier.edits.get(p.id);
			if (edit !== undefined) this.edits.set(p.id, edit);
		}
	}

	/** The proposals not written yet, in the sidecar's order. */
	get cards(): ProposalCard[] {
		return this.proposals.map((p) => this.card(p));
	}

	/** The counts in a sentence, for the top of the review. */
	get headline(): string {
		const n = this.proposals.length;
		const d = this.plan.dropped.length;
		const dropped = d ? ` The quality gate dropped ${d} (see below).` : "";
		if (n === 0) return `Nothing new to keep from this note.${dropped}`;
		return `${n} proposed ${n === 1 ? "engram" : "engrams"}: accept the ones to keep, edit or reject the others.${dropped}`;
	}

	get dropped(): DroppedRow[] {
		return this.plan.dropped.map(droppedRow);
	}

	/** Sets the decision; choosing the one already made takes it back (a toggle button). */
	decide(id: string, decision: Exclude<Decision, "undecided">): void {
		if (!this.has(id)) return;
		this.decisions.set(id, this.decisions.get(id) === decision ? "undecided" : decision);
	}

	/** Records the user's wording; an error in words when a field is left empty. */
	edit(id: string, change: ProposalEdit): string | null {
		const proposal = this.proposals.find((p) => p.id === id);
		if (!proposal) return null;
		const title = change.title.trim();
		const text = change.text.trim();
		if (title === "") return "An engram needs a title.";
		if (text === "") return "An engram needs its text.";
		if (title === proposal.title && text === proposal.text) this.edits.delete(id);
		else this.edits.set(id, { title, text });
		return null;
	}

	/** The ids accepted so far. */
	get accepted(): string[] {
		return this.proposals.filter((p) => this.decisions.get(p.id) === "accepted").map((p) => p.id);
	}

	/** What "Accept all" keeps: every proposal not rejected. */
	get notRejected(): string[] {
		return this.proposals.filter((p) => this.decisions.get(p.id) !== "rejected").map((p) => p.id);
	}

	/**
	 * The accept body for `ids`, named one by one (never "all": what is written is exactly what
	 * was shown), with the edits of those proposals.
	 */
	request(ids: readonly string[]): ExtractAcceptRequest {
		const edits: Record<string, ProposalEdit> = {};
		for (const id of ids) {
			const edit = this.edits.get(id);
			if (edit) edits[id] = edit;
		}
		return Object.keys(edits).length ? { accept: [...ids], edits } : { accept: [...ids] };
	}

	/** The proposals `ids` were written: they leave the list. */
	kept(ids: readonly string[]): void {
		const gone = new Set(ids);
		for (let i = this.proposals.length - 1; i >= 0; i--) {
			const id = this.proposals[i]?.id;
			if (id !== undefined && gone.has(id)) {
				this.proposals.splice(i, 1);
				this.decisions.delete(id);
				this.edits.delete(id);
			}
		}
	}

	/** Nothing is left to keep: every proposal left was rejected (or none is left). */
	get finished(): boolean {
		return this.notRejected.length === 0;
	}

	private has(id: string): boolean {
		return this.proposals.some((p) => p.id === id);
	}

	private card(p: ExtractProposal): ProposalCard {
		const edit = this.edits.get(p.id);
		const nexus = p.nexus === null ? [] : Array.isArray(p.nexus) ? p.nexus : [p.nexus];
		const meta = [p.subtype ? `subtype: ${p.subtype}` : "", nexus.length ? `nexus: ${nexus.join(", ")}` : ""].filter(Boolean).join(" · ");
		const { path, line_start: start, line_end: end } = p.source;
		return {
			id: p.id,
			title: edit?.title ?? p.title,
			text: edit?.text ?? p.text,
			edited: edit !== undefined,
			decision: this.decisions.get(p.id) ?? "undecided",
			aiDerived: p.ai_derived,
			private: p.private === true,
			meta,
			source: { ...noteLink(path, start, end), lines: start === end ? `line ${start}` : `lines ${start}–${end}` },
			contradicts: p.contradicts.map((c) => noteLink(c)),
		};
	}
}

function noteLink(path: string, lineStart = 1, lineEnd = lineStart): NoteLink {
	return { path, title: titleFromPath(path), lineStart, lineEnd };
}

/** The notice after keeping: how many were written and queued (the written notes are linked beside it). */
export function keptText(answer: ExtractAccepted): string {
	const n = answer.written.length;
	const parts = [`Kept ${n} ${n === 1 ? "engram" : "engrams"}.`];
	const q = answer.queued_contradictions;
	if (q > 0) parts.push(`${q} ${q === 1 ? "contradiction" : "contradictions"} queued for triage.`);
	return parts.join(" ");
}

/**
 * The cards a refused write names: the sidecar's message carries the id of a proposal it no
 * longer has (e.g. "476e…: not among the proposals of c.md now").
 */
export function namedCards(message: string, cards: readonly ProposalCard[]): ProposalCard[] {
	return cards.filter((c) => c.id !== "" && message.includes(c.id));
}

/** The message for a write refused because the conversation changed since the review (a 409). */
export function staleText(named: readonly ProposalCard[]): string {
	const again = "Extract again to see what it proposes now; your decisions and edits are kept for the proposals that did not change.";
	if (!named.length) return `Could not keep the engrams: the conversation changed since the review. Nothing was written. ${again}`;
	const titles = named.map((c) => `"${c.title}"`);
	const list = titles.length === 1 ? titles[0] : `${titles.slice(0, -1).join(", ")} and ${titles[titles.length - 1]}`;
	const verb = named.length === 1 ? "is" : "are";
	return `Could not keep the engrams: the conversation changed since the review, and ${list} ${verb} no longer proposed as shown. Nothing was written. ${again}`;
}

/** The notice after an undo. */
export function undoneText(answer: ExtractUndone): string {
	const removed = answer.removed?.length ?? 0;
	const parts: string[] = [];
	if (removed) parts.push(`${removed} ${removed === 1 ? "engram" : "engrams"} moved to the trash`);
	if (answer.restored.length) parts.push(`${answer.restored.join(", ")} put back as it was`);
	const text = parts.length ? `Undone: ${parts.join("; ")}.` : "Undone. No files changed.";
	const refused = answer.refused ?? [];
	const first = refused[0];
	if (!first) return text;
	const more = refused.length > 1 ? ` and ${refused.length - 1} more` : "";
	return `${text} Left as they are, edited since: ${first.path}${more} (${first.reason}).`;
}

/** What a key does in the review (outside a text field); null for the keys it leaves alone. */
export type ReviewKey = "next" | "previous" | "accept" | "reject" | "edit" | "open";

export function reviewKey(evt: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey">): ReviewKey | null {
	if (evt.ctrlKey || evt.metaKey || evt.altKey) return null;
	switch (evt.key) {
		case "ArrowDown":
		case "j":
			return "next";
		case "ArrowUp":
		case "k":
			return "previous";
		case "a":
			return "accept";
		case "r":
			return "reject";
		case "e":
			return "edit";
		case "o":
			return "open";
		default:
			return null;
	}
}

/** The keys, as the review lists them. */
export const REVIEW_KEYS: { keys: string; does: string }[] = [
	{ keys: "↑ ↓ (or k j)", does: "move between proposals" },
	{ keys: "a", does: "accept" },
	{ keys: "r", does: "reject" },
	{ keys: "e", does: "edit the title and text" },
	{ keys: "o", does: "open the turn it comes from" },
	{ keys: "Mod+Enter", does: "save an edit" },
];
