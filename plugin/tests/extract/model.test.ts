import { describe, expect, it } from "vitest";

import { extractableNote, droppedRow, extractorLabel, ExtractReview, keptText, namedCards, reviewKey, staleText, undoneText } from "../../src/extract/model";
import { anExtractPlan, anExtractProposal } from "../builders";

const two = () => anExtractPlan([anExtractProposal(), anExtractProposal({ id: "x2", title: "I sleep better without screens", text: "I sleep better when I put screens away an hour before bed.", ai_derived: false, subtype: null, nexus: null })]);

describe("extractableNote", () => {
	it("names a chat note carrying a conversation, or a document's resource note, by its path, and nothing else", () => {
		const chat = { type: "chat", conversation: "ask-1", namespace: "default" };
		expect(extractableNote("Chats/Ora/ask-1.md", chat)).toEqual({ note: "Chats/Ora/ask-1.md" });
		expect(extractableNote("Engrams/A.md", { type: "engram" })).toBeNull();
		expect(extractableNote("Chats/Mine.md", { type: "chat" })).toBeNull();
		expect(extractableNote("Chats/Bare.md", undefined)).toBeNull();
		const page = { type: "resource", source_file: "Tidal pumping.pdf", source_format: "pdf" };
		expect(extractableNote("Resources/Tidal pumping/Tidal pumping - page 06.md", page)).toEqual({ note: "Resources/Tidal pumping/Tidal pumping - page 06.md" });
		expect(extractableNote("Resources/Bread.md", { type: "resource" })).toBeNull();
		expect(extractableNote("Engrams/B.md", { type: "engram", source_file: "a.pdf" })).toBeNull();
	});
});

describe("labels", () => {
	it("says which extractor proposed", () => {
		expect(extractorLabel("llm:llama3.2")).toBe("Proposed by the language model (llama3.2)");
		expect(extractorLabel("rules")).toBe("Proposed by the rule extractor (the claims as stated)");
		expect(extractorLabel("rules", "the answer was not JSON")).toBe("Proposed by the rule extractor (the claims as stated), because the language model's answer could not be used: the answer was not JSON");
	});

	it("gives each drop reason in words, a duplicate with the note it repeats", () => {
		const [pushback, duplicate] = anExtractPlan().dropped.map(droppedRow);
		expect(pushback).toEqual({ text: "Decaf has no caffeine at all.", reason: "You pushed back on it later in the conversation", of: null });
		expect(duplicate?.reason).toBe("An engram already says this");
		expect(duplicate?.of).toMatchObject({ path: "Engrams/Caffeine after 2 pm reduces deep sleep.md", title: "Caffeine after 2 pm reduces deep sleep" });
		expect(droppedRow({ text: "Hello!", reason: "not-a-claim" }).reason).toContain("Not a claim");
	});

	it("counts what was kept and queued, and what an undo put back", () => {
		expect(keptText({ written: ["Engrams/A.md"], queued_contradictions: 0 })).toBe("Kept 1 engram.");
		expect(keptText({ written: ["Engrams/A.md", "Engrams/B.md"], queued_contradictions: 1 })).toBe("Kept 2 engrams. 1 contradiction queued for triage.");
		expect(undoneText({ restored: ["Chats/Ora/ask-1.md"], removed: ["Engrams/A.md"], refused: [] })).toBe("Undone: 1 engram moved to the trash; Chats/Ora/ask-1.md put back as it was.");
		expect(undoneText({ restored: [] })).toBe("Undone. No files changed.");
		const refused = [
			{ path: "Engrams/B.md", reason: "changed since it was written" },
			{ path: "Engrams/C.md", reason: "changed since it was written" },
		];
		expect(undoneText({ removed: ["Engrams/A.md", "Engrams/D.md"], restored: [], refused })).toBe(
			"Undone: 2 engrams moved to the trash. Left as they are, edited since: Engrams/B.md and 1 more (changed since it was written).",
		);
	});
});

describe("ExtractReview", () => {
	it("shows each proposal with its source lines, inferred properties and contradicted notes", () => {
		const plan = anExtractPlan([anExtractProposal({ contradicts: ["Engrams/Coffee is fine at night.md"], nexus: ["[[Sleep]]", "[[Energy]]"] })]);
		const [card] = new ExtractReview(plan).cards;
		expect(card).toMatchObject({
			id: "x1",
			decision: "undecided",
			aiDerived: true,
			edited: false,
			meta: "subtype: fact · nexus: [[Sleep]], [[Energy]]",
			source: { path: "Chats/Ora/ask-1.md", title: "ask-1", lines: "lines 12–14", lineStart: 12, lineEnd: 14 },
		});
		expect(card?.contradicts.map((c) => c.title)).toEqual(["Coffee is fine at night"]);
	});

	it("toggles a decision, and accept all keeps everything not rejected", () => {
		const review = new ExtractReview(two());
		review.decide("x1", "accepted");
		expect(review.accepted).toEqual(["x1"]);
		review.decide("x1", "accepted");
		expect(review.accepted).toEqual([]);
		review.decide("x2", "rejected");
		expect(review.notRejected).toEqual(["x1"]);
		review.decide("x2", "accepted");
		expect(review.cards.map((c) => c.decision)).toEqual(["undecided", "accepted"]);
	});

	it("sends the accepted ids by name with the edits of those only", () => {
		const review = new ExtractReview(two());
		expect(review.edit("x1", { title: " Caffeine lasts ", text: "Caffeine lasts into the night." })).toBeNull();
		expect(review.edit("x2", { title: "Screens", text: "No screens after 10." })).toBeNull();
		expect(review.cards[0]).toMatchObject({ title: "Caffeine lasts", text: "Caffeine lasts into the night.", edited: true });
		expect(review.request(["x1"])).toEqual({ accept: ["x1"], edits: { x1: { title: "Caffeine lasts", text: "Caffeine lasts into the night." } } });
		expect(new ExtractReview(two()).request(["x1", "x2"])).toEqual({ accept: ["x1", "x2"] });
	});

	it("refuses an empty title or text as a message, and forgets an edit back to the original", () => {
		const review = new ExtractReview(two());
		expect(review.edit("x1", { title: "  ", text: "t" })).toBe("An engram needs a title.");
		expect(review.edit("x1", { title: "t", text: "" })).toBe("An engram needs its text.");
		review.edit("x1", { title: "Other", text: "Other text." });
		const original = anExtractProposal();
		review.edit("x1", { title: original.title, text: original.text });
		expect(review.cards[0]?.edited).toBe(false);
	});

	it("drops the kept proposals and is finished when only rejected ones are left", () => {
		const review = new ExtractReview(two());
		review.decide("x1", "accepted");
		review.decide("x2", "rejected");
		review.kept(["x1"]);
		expect(review.cards.map((c) => c.id)).toEqual(["x2"]);
		expect(review.headline).toContain("1 proposed engram:");
		expect(review.finished).toBe(true);
		expect(new ExtractReview(anExtractPlan([])).headline).toBe("Nothing new to keep from this note. The quality gate dropped 2 (see below).");
	});

	it("takes over an earlier review's decisions and edits for the proposals still proposed, by id", () => {
		const earlier = new ExtractReview(two());
		earlier.decide("x1", "accepted");
		earlier.edit("x1", { title: "Caffeine lasts", text: "Caffeine lasts into the night (my wording)." });
		earlier.decide("x2", "rejected");
		// Extracted again: x2's turn changed (a new id), x1 is still proposed.
		const again = new ExtractReview(anExtractPlan([anExtractProposal(), anExtractProposal({ id: "x9", title: "Screens keep me up" })]), earlier);
		expect(again.cards.map((c) => [c.id, c.decision, c.title, c.edited])).toEqual([
			["x1", "accepted", "Caffeine lasts", true],
			["x9", "undecided", "Screens keep me up", false],
		]);
		expect(again.request(again.accepted)).toEqual({ accept: ["x1"], edits: { x1: { title: "Caffeine lasts", text: "Caffeine lasts into the night (my wording)." } } });
	});
});

describe("staleText", () => {
	it("names the refused proposals by title, never by id, or says the conversation changed", () => {
		const cards = new ExtractReview(two()).cards;
		const named = namedCards("x2: not among the proposals of ask-1.md now (extracted already, or the note changed); extract again to see them", cards);
		expect(named.map((c) => c.id)).toEqual(["x2"]);
		const text = staleText(named);
		expect(text).toContain(`"${cards[1]?.title ?? ""}" is no longer proposed as shown`);
		expect(text).not.toContain("x2:");
		expect(staleText(namedCards("the chat note changed since the extraction", cards))).toBe(
			"Could not keep the engrams: the conversation changed since the review. Nothing was written. Extract again to see what it proposes now; your decisions and edits are kept for the proposals that did not change.",
		);
	});
});

describe("reviewKey", () => {
	it("maps the documented keys and leaves modified keys alone", () => {
		const key = (k: string, mods: Partial<KeyboardEvent> = {}) => reviewKey({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods });
		expect(["ArrowDown", "j", "ArrowUp", "k", "a", "r", "e", "o", "x"].map((k) => key(k))).toEqual(["next", "next", "previous", "previous", "accept", "reject", "edit", "open", null]);
		expect(key("a", { ctrlKey: true })).toBeNull();
	});
});
