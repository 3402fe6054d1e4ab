import { describe, expect, it } from "vitest";

import { SseParser, toStreamEvent } from "../../src/api/sse";

describe("SseParser", () => {
	it("parses named events split across arbitrary chunks", () => {
		const parser = new SseParser();
		const text = 'event: progress\ndata: {"phase": "embed", "done": 3, "total": 10}\n\nevent: index\ndata: {"files": 4, "chunks": 9}\n\n';
		const events = [...text].flatMap((ch) => parser.feed(ch));
		expect(events).toEqual([
			{ event: "progress", data: '{"phase": "embed", "done": 3, "total": 10}' },
			{ event: "index", data: '{"files": 4, "chunks": 9}' },
		]);
	});

	it("drops ping comments and joins multi-line data", () => {
		const parser = new SseParser();
		expect(parser.feed(": ping\n\ndata: one\ndata: two\n\n")).toEqual([{ event: "message", data: "one\ntwo" }]);
	});

	it("accepts CRLF line ends even when a chunk ends between CR and LF", () => {
		const parser = new SseParser();
		expect(parser.feed("event: contradictions\r\ndata: {\"open\": 2}\r")).toEqual([]);
		expect(parser.feed("\n\r\n")).toEqual([{ event: "contradictions", data: '{"open": 2}' }]);
	});

	it("holds an unfinished event until its blank line arrives", () => {
		const parser = new SseParser();
		expect(parser.feed("event: index\ndata: {}\n")).toEqual([]);
		expect(parser.feed("\n")).toHaveLength(1);
	});
});

describe("toStreamEvent", () => {
	it("types the three documented events", () => {
		expect(toStreamEvent({ event: "progress", data: '{"phase":"scan","done":1,"total":4}' })).toEqual({
			type: "progress",
			phase: "scan",
			done: 1,
			total: 4,
		});
		expect(toStreamEvent({ event: "contradictions", data: '{"open":3}' })).toEqual({ type: "contradictions", open: 3 });
	});

	it("ignores unknown events and malformed data", () => {
		expect(toStreamEvent({ event: "other", data: "{}" })).toBeNull();
		expect(toStreamEvent({ event: "index", data: "not json" })).toBeNull();
		expect(toStreamEvent({ event: "index", data: "[1]" })).toBeNull();
	});
});
