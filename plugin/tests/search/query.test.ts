import { describe, expect, it } from "vitest";

import { chipLabels, mergeChips, NO_CHIPS, parseQuery, toFilters, type FilterChips } from "../../src/search/query";

const chips = (set: Partial<FilterChips>): FilterChips => ({ ...NO_CHIPS, ...set });

describe("parseQuery", () => {
	it("takes type:, path: and tag: prefixes out of the words", () => {
		expect(parseQuery('deep sleep type:Engram path:"Daily notes/2024/" tag:#health/sleep caffeine')).toEqual({
			text: "deep sleep caffeine",
			chips: chips({ types: ["engram"], folders: ["Daily notes/2024"], tags: ["health/sleep"] }),
		});
	});

	it("takes cluster: and conversation: prefixes, a value keeping its own colons", () => {
		const parsed = parseQuery('tea cluster:auto:sleep-tips Conversation:cli:2026-12-01 cluster:"Deep work" more');
		expect(parsed).toEqual({
			text: "tea more",
			chips: chips({ clusters: ["auto:sleep-tips", "Deep work"], conversations: ["cli:2026-12-01"] }),
		});
		expect(toFilters(parsed.chips)).toEqual({ clusters: ["auto:sleep-tips", "Deep work"], conversations: ["cli:2026-12-01"] });
		expect(chipLabels(parsed.chips).map((l) => l.label)).toEqual([
			"cluster:auto:sleep-tips",
			"cluster:Deep work",
			"conversation:cli:2026-12-01",
		]);
	});

	it("ignores empty prefixes and leaves words that only contain a colon", () => {
		expect(parseQuery("type: cluster: ratio 3:1 note:x")).toEqual({ text: "ratio 3:1 note:x", chips: chips({}) });
	});

	it("merges chips without repeats and sends only the set filters", () => {
		const merged = mergeChips(chips({ types: ["engram"], tags: ["a"], clusters: ["sleep"] }), chips({ types: ["engram", "chat"], clusters: ["sleep"] }));
		expect(merged).toEqual(chips({ types: ["engram", "chat"], tags: ["a"], clusters: ["sleep"] }));
		expect(toFilters(merged)).toEqual({ types: ["engram", "chat"], tags: ["a"], clusters: ["sleep"] });
		expect(toFilters(chips({}))).toBeUndefined();
	});

	it("labels each chip with the chips left when it is removed", () => {
		const labels = chipLabels(chips({ types: ["engram"], folders: ["Inbox"], conversations: ["c1"] }));
		expect(labels.map((l) => l.label)).toEqual(["type:engram", "path:Inbox", "conversation:c1"]);
		expect(labels[0]?.without).toEqual(chips({ folders: ["Inbox"], conversations: ["c1"] }));
		expect(labels[2]?.without).toEqual(chips({ types: ["engram"], folders: ["Inbox"] }));
	});

	it("never changes the shared empty chips", () => {
		parseQuery("cluster:x");
		expect(NO_CHIPS).toEqual({ types: [], folders: [], tags: [], clusters: [], conversations: [] });
	});
});
