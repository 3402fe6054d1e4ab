import type { Pair, Provenance } from "../api/types";

// Plain words for what the sidecar reports in identifiers: statuses, resolutions, judges and the
// judges' evidence keys (docs/http-api.md, Pair). The triage dialog shows only these.

const KIND_HEADINGS: Record<string, string> = {
	engram: "Two of your notes disagree",
	resource: "Two sources disagree",
	news: "A newer article on the same story",
};

const CUES: Record<string, string> = {
	negation: "one of them says the opposite (a “not”)",
	antonym: "they use opposite words",
	comparative: "they compare the other way round",
	order: "they put things in the opposite order",
	number: "their numbers differ",
	value: "they give the same thing a different value (a place, a day, a date, a name)",
	contradiction: "the model judged them contradictory",
	entailment: "the model judged them in agreement",
	neutral: "the model found no relation",
};

/** Evidence keys in the order shown, with their plain label and how to show the value. */
const EVIDENCE: [key: string, label: string, show: (value: unknown) => string][] = [
	["cue", "Why they clash", (v) => CUES[String(v)] ?? String(v)],
	["swapped", "Opposite words", (v) => pairs(v)],
	["negations", "Negations", (v) => list(v)],
	["order_swapped_around", "Order swapped around", (v) => String(v)],
	["unit", "Numbers measured in", (v) => String(v)],
	["values", "The values", (v) => list(v, " / ")],
	["clauses", "The clashing parts", (v) => list(v, " — ")],
	["label", "The model's verdict", (v) => CUES[String(v)] ?? String(v)],
	["confidence", "The model's confidence", percent],
	["contradiction", "Chance of contradiction", percent],
	["fallback", "Judged by", (v) => `${judgeLabel(String(v))}, because the chosen judge failed on this pair`],
	["judge_error", "What went wrong", (v) => String(v)],
	["told_provenance", "The model knew", () => "which claim is AI-derived"],
	["overlap", "Words in common", percent],
	["note_similarity", "How alike the notes are", percent],
	["claim_similarity", "How alike the claims are", percent],
	["similarity", "How alike the articles are", percent],
	["dates", "Dates (A, B)", (v) => list(v, ", ", "no date")],
];
/** Evidence already said elsewhere on the card (provenance is on each claim). */
const HIDDEN = new Set(["proposal", "titles", "ai_derived"]);

/** Where a claim's note came from, in words. */
export function originLabel(origin: Provenance): string {
	return origin === "ai-derived" ? "AI-derived" : "Your own note";
}

export function kindHeading(kind: string): string {
	return KIND_HEADINGS[kind] ?? "Two notes disagree";
}

/** Who found the pair, e.g. "the wording rules" or "the language model (gpt-4o-mini)". */
export function judgeLabel(judge: string): string {
	if (judge === "rules") return "the wording rules";
	if (judge === "news-sweep") return "the news sweep";
	if (judge.startsWith("llm:")) return `the language model (${judge.slice(4)})`;
	if (judge.startsWith("onnx-nli:")) return "the local entailment model";
	return judge;
}

/** Where a pair stands, in words: "Open", "Resolved: you changed your mind", … */
export function statusLabel(pair: Pick<Pair, "status" | "resolution">): string {
	const action = pair.resolution?.action;
	switch (pair.status) {
		case "open":
			return "Open";
		case "flagged":
			return "Flagged for reflection";
		case "dismissed":
			return "Dismissed: not a contradiction";
		case "resolved":
			if (action === "changed-mind") return "Resolved: you changed your mind";
			if (action === "wrong") return pair.resolution?.deleted === true ? "Resolved: one note was wrong, and deleted" : "Resolved: one note was wrong, and archived";
			return "Resolved";
	}
}

/** The judge's evidence as rows: known keys in plain words, others humanised, in a fixed order. */
export function evidenceRows(evidence: Record<string, unknown>): { label: string; value: string }[] {
	const rows: { label: string; value: string }[] = [];
	for (const [key, label, show] of EVIDENCE) {
		if (key in evidence && evidence[key] !== null && evidence[key] !== undefined) rows.push({ label, value: show(evidence[key]) });
	}
	const known = new Set(EVIDENCE.map(([key]) => key));
	for (const [key, value] of Object.entries(evidence)) {
		if (known.has(key) || HIDDEN.has(key)) continue;
		rows.push({ label: capitalise(key.replace(/_/g, " ")), value: formatValue(value) });
	}
	return rows;
}

export function capitalise(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

function percent(value: unknown): string {
	return typeof value === "number" ? `${Math.round(value * 100)} %` : formatValue(value);
}

function list(value: unknown, sep = ", ", empty = "–"): string {
	if (!Array.isArray(value)) return formatValue(value);
	return value.map((v) => (v === null || v === undefined ? empty : typeof v === "boolean" ? (v ? "yes" : "no") : String(v))).join(sep);
}

function pairs(value: unknown): string {
	if (!Array.isArray(value)) return formatValue(value);
	return value.map((p) => (Array.isArray(p) ? p.map(String).join(" / ") : String(p))).join(", ");
}

function formatValue(value: unknown): string {
	if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
	if (typeof value === "string") return value;
	if (value === null || value === undefined) return "–";
	return JSON.stringify(value);
}
