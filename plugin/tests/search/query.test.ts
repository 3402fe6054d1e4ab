import { describe, expect, it } from "vitest";

import { chipLabels, mergeChips, parseQuery, toFilters } from "../../src/search/query";

describe("parseQuery", () => {
	it("takes type:, path: and tag: prefixes out of the words", () => {
		expect(parseQuery('deep sleep type:Engram path:"Daily notes/2024/" tag:#health/sleep caffeine')).toEqual({
			text: "deep sleep caffeine",
			chips: { types: ["engram"], folders: ["Daily notes/2024"], tags: ["health/sleep"] },
		});
	});

	it("ignores empty prefixes and leaves words that only contain a colon", () => {
		expect(parseQuery("type: ratio 3:1 note:x")).toEqual({ text: "ratio 3:1 note:x", chips: { types: [], folders: [], tags: [] } });
	});

	it("merges chips without repeats and sends only the set filters", () => {
		const merged = mergeChips({ types: ["engram"], folders: [], tags: ["a"] }, { types: ["engram", "chat"], folders: [], tags: [] });
		expect(merged).toEqual({ types: ["engram", "chat"], folders: [], tags: ["a"] });
		expect(toFilters(merged)).toEqual({ types: ["engram", "chat"], tags: ["a"] });
		expect(toFilters({ types: [], folders: [], tags: [] })).toBeUndefined();
	});

	it("labels each chip with the chips left when it is removed", () => {
		const labels = chipLabels({ types: ["engram"], folders: ["Inbox"], tags: [] });
		expect(labels.map((l) => l.label)).toEqual(["type:engram", "path:Inbox"]);
		expect(labels[0]?.without).toEqual({ types: [], folders: ["Inbox"], tags: [] });
	});
});
