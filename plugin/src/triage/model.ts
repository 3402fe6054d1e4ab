import type { Claim, Pair, Provenance, Resolution } from "../api/types";
import { titleFromPath } from "../search/shape";
import { evidenceRows, judgeLabel, kindHeading, originLabel, statusLabel } from "./labels";

export { evidenceRows } from "./labels";

/** One side of a pair as the modal shows it. */
export interface ClaimCard {
	side: "a" | "b";
	path: string;
	title: string;
	lines: string;
	lineStart: number;
	lineEnd: number;
	text: string;
	/** "AI-derived" or "Your own note"; null when the sidecar does not say. */
	origin: string | null;
}

/** The resolution the sidecar suggests: the button it matches, why, and the request. */
export interface SuggestionCard {
	label: string;
	reason: string;
	resolution: Resolution;
}

export interface PairCard {
	id: string;
	heading: string;
	/** What the sidecar proposes, e.g. for news "B supersedes A". */
	proposal: string;
	a: ClaimCard;
	b: ClaimCard;
	/** Who found it, in words ("Found by the wording rules"). */
	judge: string;
	score: string;
	/** Where it stands, in words ("Open", "Resolved: you changed your mind"). */
	status: string;
	/** Either note is private (shown only in private mode). */
	private: boolean;
	/** The news story it belongs to, approvable as a whole. */
	batch: string | null;
	evidence: { label: string; value: string }[];
	/** When one side is AI-derived: the resolution keeping the user's own note. */
	suggestion: SuggestionCard | null;
}

/** The three triage answers of the spec (plus dismiss), before a note is chosen. */
export type TriageAction = "changed-mind" | "flag" | "wrong" | "dismiss";

export function pairCard(pair: Pair): PairCard {
	return {
		id: pair.id,
		heading: kindHeading(pair.kind),
		proposal:
			pair.kind === "news"
				? "Proposed: B supersedes A (B is newer)."
				: "These claims disagree. Decide which one you hold now.",
		a: claimCard("a", pair.a, pair.provenance?.a),
		b: claimCard("b", pair.b, pair.provenance?.b),
		judge: `Found by ${judgeLabel(pair.judge)}`,
		score: pair.score.toFixed(2),
		status: statusLabel(pair),
		private: pair.private === true,
		batch: pair.kind === "news" && pair.batch ? pair.batch : null,
		evidence: evidenceRows(pair.evidence ?? {}),
		suggestion: suggestionCard(pair),
	};
}

/** The suggestion as the button it matches ("B supersedes A", "Archive B") would send it. */
function suggestionCard(pair: Pair): SuggestionCard | null {
	const s = pair.suggested;
	if (!s) return null;
	const letter = (path: string) => (path === pair.a.path ? "A" : "B");
	if (s.action === "changed-mind") {
		const newer = letter(s.newer);
		return { label: `${newer} supersedes ${newer === "A" ? "B" : "A"}`, reason: s.reason, resolution: resolution("changed-mind", s.newer) };
	}
	return { label: `Archive ${letter(s.note)}`, reason: s.reason, resolution: resolution("wrong", s.note) };
}

function claimCard(side: "a" | "b", claim: Claim, origin: Provenance | undefined): ClaimCard {
	const lines =
		claim.line_start === claim.line_end ? `line ${claim.line_start}` : `lines ${claim.line_start}–${claim.line_end}`;
	return {
		side,
		path: claim.path,
		title: titleFromPath(claim.path),
		lines,
		lineStart: claim.line_start,
		lineEnd: claim.line_end,
		text: claim.text,
		origin: origin ? originLabel(origin) : null,
	};
}

/**
 * The request body for an action; `chosen` is the note the user picked (newer, or the wrong one);
 * `clientTrash`: a deleted note is left for the plugin to trash (Obsidian's Deleted files setting).
 */
export function resolution(action: TriageAction, chosen: string | null, deleteNote = false, clientTrash = false): Resolution {
	switch (action) {
		case "changed-mind":
			if (!chosen) throw new Error("Choose which note supersedes the other");
			return { action, newer: chosen };
		case "wrong":
			if (!chosen) throw new Error("Choose which note is wrong");
			if (!deleteNote) return { action, note: chosen };
			return clientTrash ? { action, note: chosen, delete: true, client_trash: true } : { action, note: chosen, delete: true };
		case "flag":
		case "dismiss":
			return { action };
	}
}

/** The sentence the confirmation dialog shows: what will be written, and where. */
export function confirmText(res: Resolution, pair: Pair): string {
	switch (res.action) {
		case "changed-mind": {
			const older = res.newer === pair.a.path ? pair.b.path : pair.a.path;
			return `"${res.newer}" will get a supersedes link to [[${titleFromPath(older)}]], and "${older}" will be tagged archived (kept as a record, out of default search).`;
		}
		case "flag":
			return "The pair will be flagged for your reflection; no note changes automatically.";
		case "wrong":
			return res.delete
				? `"${res.note}" will be deleted.`
				: `"${res.note}" will be tagged archived and drop out of search.`;
		case "dismiss":
			return "The pair will be dismissed; no note changes.";
	}
}
