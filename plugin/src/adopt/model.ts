import type { AdoptOutcome, AdoptPlan, AdoptProposal } from "../api/types";
import { titleFromPath } from "../search/shape";

/** One note of the plan as the modal lists it. */
export interface ProposalRow {
	path: string;
	title: string;
	/** e.g. "type: resource · nexus: [[Home]] · tags: reading · dates · new frontmatter" */
	summary: string;
	/** Where the type came from, e.g. "folder rule Chats/". */
	typeWhy: string;
	diff: string;
}

/** The plan's counts in a few sentences, for the top of the modal. */
export function planHeadline(plan: AdoptPlan): string[] {
	const s = plan.summary;
	if (s.proposed === 0) {
		const hidden = s.private_hidden ? ` ${s.private_hidden} private ${notes(s.private_hidden)} left out.` : "";
		return [`Nothing to adopt: ${s.already_adopted} ${notes(s.already_adopted)} already carry Ora frontmatter.${hidden}`];
	}
	const types = Object.entries(s.by_type)
		.map(([type, n]) => `${n} ${type}`)
		.join(", ");
	const lines = [
		`${s.proposed} ${notes(s.proposed)} would get Ora frontmatter (${types}).`,
		`${s.new_frontmatter} get a new frontmatter block; ${s.with_nexus} get a nexus. Nothing else in any note changes.`,
	];
	if (s.skipped) lines.push(`${s.skipped} ${notes(s.skipped)} skipped (see below).`);
	if (s.private_hidden) {
		lines.push(`${s.private_hidden} private ${notes(s.private_hidden)} left out; adopt them with \`ora adopt\` on the command line.`);
	}
	return lines;
}

export function proposalRow(p: AdoptProposal): ProposalRow {
	const parts: string[] = [];
	for (const [key, value] of Object.entries(p.values)) {
		if (key.startsWith("date ")) continue;
		parts.push(`${key}: ${Array.isArray(value) ? value.join(", ") || "none" : String(value)}`);
	}
	if (Object.keys(p.values).some((k) => k.startsWith("date "))) parts.push("dates");
	if (p.new_block) parts.push("new frontmatter");
	return {
		path: p.path,
		title: titleFromPath(p.path),
		summary: parts.join(" · "),
		typeWhy: p.why.type ?? "",
		diff: p.diff,
	};
}

/** The notice after an apply or an undo. */
export function outcomeText(outcome: AdoptOutcome, verb: "Adopted" | "Restored"): string {
	const done = (verb === "Adopted" ? outcome.applied : outcome.restored) ?? [];
	const parts = [`${verb} ${done.length} ${notes(done.length)}.`];
	if (outcome.refused.length) {
		const first = outcome.refused[0];
		const more = outcome.refused.length > 1 ? ` and ${outcome.refused.length - 1} more` : "";
		parts.push(`Refused ${first?.path}${more}: ${first?.reason}`);
	}
	if (verb === "Adopted" && done.length) parts.push("Undo with the command “Undo the last Ora adoption”.");
	return parts.join(" ");
}

function notes(n: number): string {
	return n === 1 ? "note" : "notes";
}
