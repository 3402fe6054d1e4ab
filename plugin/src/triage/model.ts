import type { Claim, Pair, Resolution } from "../api/types";
import { titleFromPath } from "../search/shape";

/** One side of a pair as the modal shows it. */
export interface ClaimCard {
	side: "a" | "b";
	path: string;
	title: string;
	lines: string;
	lineStart: number;
	lineEnd: number;
	text: string;
}

export interface PairCard {
	id: string;
	heading: string;
	/** What the sidecar proposes, e.g. for news "B supersedes A". */
	proposal: string;
	a: ClaimCard;
	b: ClaimCard;
	judge: string;
	score: string;
	evidence: { label: string; value: string }[];
}

/** The three triage answers of the spec (plus dismiss), before a note is chosen. */
export type TriageAction = "changed-mind" | "flag" | "wrong" | "dismiss";

export function pairCard(pair: Pair): PairCard {
	return {
		id: pair.id,
		heading: `${capitalise(pair.kind)} contradiction`,
		proposal:
			pair.kind === "news"
				? "Proposed: B supersedes A (B is newer)."
				: "These claims disagree. Decide which one you hold now.",
		a: claimCard("a", pair.a),
		b: claimCard("b", pair.b),
		judge: pair.judge,
		score: pair.score.toFixed(2),
		evidence: evidenceRows(pair.evidence ?? {}),
	};
}

function claimCard(side: "a" | "b", claim: Claim): ClaimCard {
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
	};
}

/** Judge evidence as label/value rows: numbers rounded, nested values as compact JSON. */
export function evidenceRows(evidence: Record<string, unknown>): { label: string; value: string }[] {
	return Object.entries(evidence).map(([key, value]) => ({
		label: capitalise(key.replace(/_/g, " ")),
		value: formatValue(value),
	}));
}

/** The request body for an action; `chosen` is the note the user picked (newer, or the wrong one). */
export function resolution(action: TriageAction, chosen: string | null, deleteNote = false): Resolution {
	switch (action) {
		case "changed-mind":
			if (!chosen) throw new Error("Choose which note supersedes the other");
			return { action, newer: chosen };
		case "wrong":
			if (!chosen) throw new Error("Choose which note is wrong");
			return deleteNote ? { action, note: chosen, delete: true } : { action, note: chosen };
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

function formatValue(value: unknown): string {
	if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
	if (typeof value === "string") return value;
	if (value === null || value === undefined) return "–";
	return JSON.stringify(value);
}

function capitalise(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
