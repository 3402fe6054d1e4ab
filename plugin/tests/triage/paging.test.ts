import { describe, expect, it } from "vitest";

import { changesNotes, pageOf } from "../../src/triage/paging";

describe("pageOf", () => {
	it("cuts a long list into pages and says which pairs a page shows", () => {
		expect(pageOf(500, 0)).toEqual({ index: 0, pages: 25, start: 0, end: 20, label: "Pairs 1–20 of 500" });
		expect(pageOf(500, 24)).toMatchObject({ start: 480, end: 500, label: "Pairs 481–500 of 500" });
	});

	it("keeps a page that no longer exists (its last pair resolved) on the last one there is", () => {
		expect(pageOf(40, 2)).toMatchObject({ index: 1, start: 20, end: 40 });
		expect(pageOf(0, 3)).toMatchObject({ index: 0, pages: 1, start: 0, end: 0, label: "No pairs" });
	});
});

describe("changesNotes", () => {
	it("confirms only resolutions that write a note", () => {
		expect(["changed-mind", "wrong", "flag", "dismiss"].map(changesNotes)).toEqual([true, true, false, false]);
	});
});
