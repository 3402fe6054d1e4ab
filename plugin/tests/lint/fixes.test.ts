import { describe, expect, it } from "vitest";

import type { Diagnostic } from "../../src/api/types";
import { datesFix, MANAGED_DATES, quickFixes, type FixContext, type QuickFix } from "../../src/lint/fixes";
import { aDiagnostic } from "../builders";

const CONTEXT: FixContext = {
	path: "Engrams/Sleep.md",
	dates: () => ({ "date created": "2024-01-02", "date modified": "2024-03-04" }),
	canIgnore: false,
};

function apply(text: string, fix: QuickFix | undefined): string {
	if (!fix || !("changes" in fix)) throw new Error(`not a text fix: ${JSON.stringify(fix)}`);
	let out = text;
	for (const c of [...fix.changes].sort((a, b) => b.from - a.from)) out = out.slice(0, c.from) + c.insert + out.slice(c.to);
	return out;
}

function fix(text: string, diagnostic: Partial<Diagnostic>, context = CONTEXT): QuickFix[] {
	return quickFixes(text, aDiagnostic(diagnostic), context);
}

describe("quickFixes", () => {
	it("replaces an unknown type with the suggested one", () => {
		const text = "---\nnexus: []\ntype: engramm\ntags: []\n---\n# engramm stays in the body\n";
		const [replace] = fix(text, { line: 3, code: "type-unknown", message: "unknown type 'engramm' (did you mean 'engram'?); choose from: chat, engram" });
		expect(replace?.name).toBe("Replace with 'engram'");
		expect(apply(text, replace)).toBe("---\nnexus: []\ntype: engram\ntags: []\n---\n# engramm stays in the body\n");
	});

	it("replaces the misspelt tag in a block list, not a longer tag containing it", () => {
		const text = "---\ntype: engram\ntags:\n  - processing\n  - procss\nnexus: []\n---\n";
		const [replace] = fix(text, { line: 3, code: "tag-unknown", message: "tag 'procss' is not in the vocabulary or the vault's domain tags; did you mean 'process'?" });
		expect(apply(text, replace)).toBe("---\ntype: engram\ntags:\n  - processing\n  - process\nnexus: []\n---\n");
	});

	it("replaces an unknown relationship kind (a key under relationships)", () => {
		const text = '---\nrelationships:\n  suports: ["[[A]]"]\n---\n';
		const [replace] = fix(text, { line: 2, code: "relationship-unknown", message: "unknown relationship kind 'suports' (did you mean 'supports'?); choose from: …" });
		expect(apply(text, replace)).toBe('---\nrelationships:\n  supports: ["[[A]]"]\n---\n');
	});

	it("adds every missing linter-managed date before the closing fence, keeping CRLF", () => {
		const text = "---\r\ntype: engram\r\ndate modified: 2024-05-05\r\n---\r\nBody\r\n";
		const [add] = fix(text, { line: 1, code: "date-missing", message: "missing `date created`; `ora lint --fix` fills it from the file" });
		expect(add?.name).toBe("Add date created");
		expect(apply(text, add)).toBe("---\r\ntype: engram\r\ndate modified: 2024-05-05\r\ndate created: 2024-01-02\r\n---\r\nBody\r\n");
		const bare = "---\ntype: engram\n---\n";
		const [both] = fix(bare, { line: 1, code: "date-missing", message: "missing `date created`" });
		expect(both?.name).toBe("Add the missing dates");
		expect(apply(bare, both)).toBe("---\ntype: engram\ndate created: 2024-01-02\ndate modified: 2024-03-04\n---\n");
	});

	it("never adds a date the note has under another capitalisation (Date Created:)", () => {
		const text = "---\ntype: engram\nDate Created: 2021-03-04\n---\n";
		const [add] = fix(text, { line: 1, code: "date-missing", message: "missing `date modified`" });
		expect(add?.name).toBe("Add date modified");
		expect(apply(text, add)).toBe("---\ntype: engram\nDate Created: 2021-03-04\ndate modified: 2024-03-04\n---\n");
	});

	it("quotes unquoted wikilinks, making a lone one a list", () => {
		const text = "---\nnexus: [[Hub]]\nrelationships:\n  supports:\n    - [[A]]\n    - \"[[B]]\"\n  extends: [[[C]], [[D]]]\ntype: engram\n---\n";
		const [nexus] = fix(text, { line: 2, code: "wikilink-unquoted", message: 'nexus[0]: quote the wikilink, e.g. "[[Note]]"' });
		expect(apply(text, nexus).split("\n")[1]).toBe('nexus: ["[[Hub]]"]');
		const [rel] = fix(text, { line: 3, code: "wikilink-unquoted", message: "relationships.supports[0]: quote…" });
		expect(apply(text, rel).split("\n").slice(2, 7)).toEqual([
			"relationships:",
			"  supports:",
			'    - "[[A]]"',
			'    - "[[B]]"',
			'  extends: ["[[C]]", "[[D]]"]',
		]);
	});

	it("quotes only the links YAML reads as lists, leaving quoted strings, plain text and comments as they are", () => {
		const text = [
			"---",
			"nexus:",
			"  - [[Alpha]] # the map",
			'  - "see [[Beta]] too"',
			"  - 'and [[Gamma]]'",
			"  - see [[Delta]] here",
			'  - [[Say "hi"]]',
			"tags: [x]",
			"---",
			"",
		].join("\n");
		const [quote] = fix(text, { line: 2, code: "wikilink-unquoted", message: 'nexus[0]: quote the wikilink, e.g. "[[Note]]"' });
		expect(apply(text, quote).split("\n").slice(1, 8)).toEqual([
			"nexus:",
			'  - "[[Alpha]]" # the map',
			'  - "see [[Beta]] too"',
			"  - 'and [[Gamma]]'",
			"  - see [[Delta]] here",
			'  - "[[Say \\"hi\\"]]"',
			"tags: [x]",
		]);
	});

	it("makes a lone link with a comment after it a one-item list, keeping the comment", () => {
		const text = "---\nnexus: [[Alpha]] # the map\nrelationships:\n  supports: [[B]]  # why\n---\n";
		const [nexus] = fix(text, { line: 2, code: "wikilink-unquoted", message: 'nexus[0]: quote the wikilink, e.g. "[[Note]]"' });
		expect(apply(text, nexus).split("\n")[1]).toBe('nexus: ["[[Alpha]]"] # the map');
		const [rel] = fix(text, { line: 3, code: "wikilink-unquoted", message: "relationships.supports[0]: quote…" });
		expect(apply(text, rel).split("\n")[3]).toBe('  supports: ["[[B]]"]  # why');
	});

	it("keeps a flow mapping's lone link a list when quoting it, as in the block form", () => {
		const text = "---\nrelationships: {supports: [[A]], refutes: [[B]] }\n---\n";
		const [rel] = fix(text, { line: 2, code: "wikilink-unquoted", message: "relationships.supports[0]: quote…" });
		expect(apply(text, rel).split("\n")[1]).toBe('relationships: {supports: ["[[A]]"], refutes: ["[[B]]"] }');
	});

	it("replaces a whole tag only, never the end of a hyphenated one, in flow and block lists, quoted or not", () => {
		const message = "tag 'healt' is not in the vocabulary or the vault's domain tags; did you mean 'health'?";
		const cases: [string, string][] = [
			["tags: [my-healt, healt]", "tags: [my-healt, health]"],
			["tags: [my-healt, 'healt']", "tags: [my-healt, 'health']"],
			['tags: ["my-healt", "healt"] # two', 'tags: ["my-healt", "health"] # two'],
			["tags:\n  - my-healt\n  - healt", "tags:\n  - my-healt\n  - health"],
			['tags:\n  - "my-healt"\n  - "healt"', 'tags:\n  - "my-healt"\n  - "health"'],
		];
		for (const [tags, want] of cases) {
			const text = `---\ntype: engram\n${tags}\n---\n`;
			const [replace] = fix(text, { line: 3, code: "tag-unknown", message });
			expect(apply(text, replace)).toBe(`---\ntype: engram\n${want}\n---\n`);
		}
		const alone = "---\ntags: [my-healt, healt-x]\n---\n";
		expect(fix(alone, { line: 2, code: "tag-unknown", message })).toEqual([]);
	});

	it("offers ignoring the note and its folder only when the sidecar can write the vault settings", () => {
		const text = "---\ntype: engramm\n---\n";
		const d = { line: 2, code: "type-unknown", message: "unknown type 'engramm'; choose from: …" };
		expect(fix(text, d)).toEqual([]);
		expect(fix(text, d, { ...CONTEXT, canIgnore: true })).toEqual([
			{ name: "Ignore lint for this note", ignore: "Engrams/Sleep.md" },
			{ name: "Ignore lint for this folder", ignore: "Engrams/" },
		]);
	});
});

describe("datesFix", () => {
	const dates = Object.fromEntries(MANAGED_DATES.map((key, i) => [key, `2026-0${i + 1}-15`]));
	const apply = (text: string) => {
		const change = datesFix(text, dates);
		return change ? text.slice(0, change.from) + change.insert + text.slice(change.to) : null;
	};

	it("adds the absent dates before the closing fence, keeping every other byte", () => {
		const [created, modified] = MANAGED_DATES;
		expect(apply(`---\ntype: engram\n${created}: 2025-12-01\n---\nBody\n`)).toBe(`---\ntype: engram\n${created}: 2025-12-01\n${modified}: 2026-02-15\n---\nBody\n`);
	});

	it("gives a note without frontmatter one holding the dates, with the note's line endings", () => {
		expect(apply("Body\r\n")).toBe(`---\r\n${MANAGED_DATES.map((k, i) => `${k}: 2026-0${i + 1}-15\r\n`).join("")}---\r\nBody\r\n`);
	});

	it("finds a date under a quoted key, single or double, and adds no second one", () => {
		const [created, modified] = MANAGED_DATES;
		expect(apply(`---\ntype: engram\n"${created}": 2024-01-02\n---\n`)).toBe(`---\ntype: engram\n"${created}": 2024-01-02\n${modified}: 2026-02-15\n---\n`);
		expect(apply(`---\n'${created}': 2024-01-02\n"${modified}" : 2024-01-03\n---\n`)).toBeNull();
	});

	it("finds a date under a key spelt with YAML escapes or as an explicit `? key`", () => {
		const [created, modified] = MANAGED_DATES;
		const escaped = (key: string) => key.replace(" ", "\\x20");
		expect(apply(`---\n"${escaped(created!)}": 2024-01-02\n"${modified!.replace(" ", "\\u0020")}": 2024-01-03\n---\n`)).toBeNull();
		expect(apply(`---\n? ${created}\n: 2024-01-02\n? "${modified}" # why\n: 2024-01-03\n---\n`)).toBeNull();
	});

	it("changes nothing when every date is there", () => {
		expect(apply(`---\n${MANAGED_DATES.map((k) => `${k}: 2025-01-01`).join("\n")}\n---\n`)).toBeNull();
	});
});
