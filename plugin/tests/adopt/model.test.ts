import { describe, expect, it } from "vitest";

import { outcomeText, planHeadline, proposalRow } from "../../src/adopt/model";
import { anAdoptPlan, aProposal } from "../builders";

describe("adopt model", () => {
	it("summarises the plan's counts, skips and hidden private notes", () => {
		const plan = anAdoptPlan([aProposal(), aProposal({ path: "Ideas.md", new_block: true })], { private_hidden: 2 });
		expect(planHeadline(plan)).toEqual([
			"2 notes would get Ora frontmatter (2 resource).",
			"1 get a new frontmatter block; 2 get a nexus. Nothing else in any note changes.",
			"1 note skipped (see below).",
			"2 private notes left out; adopt them with `ora adopt` on the command line.",
		]);
	});

	it("says when there is nothing to adopt", () => {
		expect(planHeadline(anAdoptPlan([], { skipped: 0, already_adopted: 1 }))).toEqual([
			"Nothing to adopt: 1 note already carry Ora frontmatter.",
		]);
	});

	it("shows one line per note: properties, then dates and a new block as words", () => {
		const row = proposalRow(aProposal({ new_block: true }));
		expect(row.title).toBe("Dal");
		expect(row.summary).toBe("type: resource · nexus: [[Recipes index]] · tags: recipe · dates · new frontmatter");
		expect(row.typeWhy).toBe("the vault's type for untyped notes");
		expect(proposalRow(aProposal({ values: { nexus: [] } })).summary).toBe("nexus: none");
	});

	it("reports what was written and the first refusal", () => {
		const text = outcomeText(
			{
				applied: ["A.md"],
				unchanged: [],
				refused: [
					{ path: "B.md", reason: "changed since the plan" },
					{ path: "C.md", reason: "changed since the plan" },
				],
				journal: ".ora-journal/adopt-x.json",
				private_hidden: 0,
			},
			"Adopted",
		);
		expect(text).toBe(
			"Adopted 1 note. Refused B.md and 1 more: changed since the plan Undo with the command “Undo the last Ora adoption”.",
		);
		expect(outcomeText({ restored: [], unchanged: [], refused: [], journal: null, private_hidden: 0 }, "Restored")).toBe(
			"Restored 0 notes.",
		);
	});
});
