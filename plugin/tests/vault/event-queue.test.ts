import { describe, expect, it } from "vitest";

import type { VaultEvent } from "../../src/api/types";
import { EventQueue } from "../../src/vault/event-queue";

function fold(events: VaultEvent[]): VaultEvent[] {
	const q = new EventQueue();
	for (const e of events) q.push(e);
	return q.drain();
}

const mod = (path: string): VaultEvent => ({ kind: "modified", path });
const add = (path: string): VaultEvent => ({ kind: "created", path });
const del = (path: string): VaultEvent => ({ kind: "deleted", path });
const mv = (old_path: string, path: string): VaultEvent => ({ kind: "renamed", path, old_path });

describe("EventQueue", () => {
	it.each<[string, VaultEvent[], VaultEvent[]]>([
		["repeated saves become one modify", [mod("a"), mod("a"), mod("a")], [mod("a")]],
		["a new file that is then edited is still just created", [add("a"), mod("a")], [add("a")]],
		["a file created and deleted in one batch is never sent", [add("a"), mod("a"), del("a")], []],
		["an edit before a delete is dropped", [mod("a"), del("a")], [del("a")]],
		["rename chains collapse to first → last", [mv("a", "b"), mv("b", "c")], [mv("a", "c")]],
		["a rename back to the start is no event", [mv("a", "b"), mv("b", "a")], []],
		["an edit after a rename keeps both", [mv("a", "b"), mod("b")], [mv("a", "b"), mod("b")]],
		["a renamed then deleted file is deleted under its old path", [mv("a", "b"), del("b")], [del("a")]],
		["a created file renamed is created at its new path", [add("a"), mv("a", "b")], [add("b")]],
		["delete then create is a change of content", [del("a"), add("a")], [mod("a")]],
		["files keep their first-seen order", [mod("b"), mod("a"), mod("b")], [mod("b"), mod("a")]],
	])("%s", (_name, events, expected) => {
		expect(fold(events)).toEqual(expected);
	});

	it("is empty after a drain", () => {
		const q = new EventQueue();
		q.push(mod("a"));
		expect(q.size).toBe(1);
		q.drain();
		expect(q.size).toBe(0);
		expect(q.drain()).toEqual([]);
	});
});
