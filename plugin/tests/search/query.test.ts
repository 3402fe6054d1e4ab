import { describe, expect, it } from "vitest";

import { chipLabels, mergeChips, NO_CHIPS, parseQuery, toFilters, withoutTyped, type FilterChips } from "../../src/search/query";

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

	it.each([
		["tag：日記 睡眠", chips({ tags: ["日記"] })], // the full-width colon a Chinese or Japanese input method types
		["path：“日記 2024” 睡眠", chips({ folders: ["日記 2024"] })],
		["path:「日記 2024」 睡眠", chips({ folders: ["日記 2024"] })],
		["path：『日記 2024』 睡眠", chips({ folders: ["日記 2024"] })],
		["path：＂日記 2024＂ 睡眠", chips({ folders: ["日記 2024"] })],
		["Type：Engram　睡眠", chips({ types: ["engram"] })], // an ideographic space ends the value
		["cluster：auto:sleep 睡眠", chips({ clusters: ["auto:sleep"] })],
	])("takes prefixes typed through an input method: %s", (input, want) => {
		expect(parseQuery(input)).toEqual({ text: "睡眠", chips: want });
	});

	it("keeps an unclosed quote as part of a bare value, as with ASCII quotes", () => {
		expect(parseQuery("path：“日記 睡眠").chips.folders).toEqual(["“日記"]);
		expect(parseQuery('path:"Daily notes').chips.folders).toEqual(['"Daily']);
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

	it("removes a chip's typed prefixes from the box, however they were typed", () => {
		const box = 'sleep path:"Daily notes/" tag：#日記 TYPE:Chat more path：「Daily notes」';
		expect(withoutTyped(box, "folders", "Daily notes")).toBe("sleep tag：#日記 TYPE:Chat more");
		expect(withoutTyped(box, "tags", "日記")).toBe('sleep path:"Daily notes/" TYPE:Chat more path：「Daily notes」');
		expect(withoutTyped(box, "types", "chat")).toBe('sleep path:"Daily notes/" tag：#日記 more path：「Daily notes」');
		expect(withoutTyped("type:chat sleep", "types", "chat")).toBe("sleep");
		expect(withoutTyped("sleep type:chat", "types", "engram")).toBe("sleep type:chat");
	});

	it("never changes the shared empty chips", () => {
		parseQuery("cluster:x");
		expect(NO_CHIPS).toEqual({ types: [], folders: [], tags: [], clusters: [], conversations: [] });
	});
});
