import { App } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import type { HttpRequest, HttpResponse, HttpTransport } from "../../src/api/transport";
import type { ExtractSelector } from "../../src/api/types";
import { ExtractModal, undoExtraction, type ExtractDeps } from "../../src/ui/extract-modal";
import { noticeEls, shownNotices } from "../__mocks__/obsidian";
import { anExtractPlan, anExtractProposal, HANG, json, ScriptedTransport } from "../builders";

const settle = () => new Promise((r) => setTimeout(r, 0));
const NOTE: ExtractSelector = { note: "Chats/Ora/ask-1.md" };

afterEach(() => {
	document.body.empty();
	shownNotices.length = 0;
	noticeEls.length = 0;
});

const clash = "Engrams/Coffee is fine at night.md";
const plan = () =>
	anExtractPlan([
		anExtractProposal({ contradicts: [clash] }),
		anExtractProposal({ id: "x2", title: "I sleep better without screens", text: "I sleep better when screens go away an hour before bed.", ai_derived: false, subtype: null, nexus: null }),
	]);

async function openModal(transport: HttpTransport, change: Partial<ExtractDeps> = {}) {
	const opened: string[] = [];
	const triaged: number[] = [];
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const modal = new ExtractModal(new App(), {
		client,
		selector: NOTE,
		open: async (path, start, end) => void opened.push(`${path}:${start}-${end}`),
		triage: () => triaged.push(1),
		...change,
	});
	modal.open(); // extracts
	await settle();
	return { modal, opened, triaged };
}

function button(root: HTMLElement, label: string): HTMLButtonElement {
	const found = [...root.querySelectorAll("button")].find((b) => b.textContent === label);
	if (!found) throw new Error(`no button ${label} in ${[...root.querySelectorAll("button")].map((b) => b.textContent).join(", ")}`);
	return found;
}

function card(modal: ExtractModal, id: string): HTMLElement {
	const found = modal.contentEl.querySelector<HTMLElement>(`.ora-proposal[data-id="${id}"]`);
	if (!found) throw new Error(`no proposal ${id}`);
	return found;
}

function link(root: ParentNode, text: string): HTMLElement {
	const found = [...root.querySelectorAll<HTMLElement>("a")].find((a) => a.textContent === text);
	if (!found) throw new Error(`no link ${text}`);
	return found;
}

const key = (el: HTMLElement, k: string, mods: KeyboardEventInit = {}) => el.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, ...mods }));
const body = (t: ScriptedTransport, n: number) => JSON.parse(t.requests[n]?.body ?? "") as Record<string, unknown>;

/** A slow sidecar: each request waits until the test answers it, in any order. */
class HeldTransport implements HttpTransport {
	readonly held: { req: HttpRequest; answer: (response: HttpResponse) => void }[] = [];

	request(req: HttpRequest): Promise<HttpResponse> {
		return new Promise((answer) => this.held.push({ req, answer }));
	}
}

describe("ExtractModal", () => {
	it("lists the proposals with their source, contradictions and the dropped ones folded, writing nothing", async () => {
		const transport = new ScriptedTransport([json(200, plan())]);
		const { modal, opened } = await openModal(transport);
		expect(transport.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST http://127.0.0.1:1/v1/extract"]);
		expect(body(transport, 0)).toEqual({ note: "Chats/Ora/ask-1.md", private: false });
		const el = modal.contentEl;
		expect(el.querySelector(".ora-extract-extractor")?.textContent).toContain("rule extractor");
		expect([...el.querySelectorAll(".ora-proposal-title")].map((t) => t.textContent)).toEqual(["Caffeine's half-life is five to six hours", "I sleep better without screens"]);
		const first = card(modal, "x1");
		expect(first.querySelector(".ora-badge-ai")?.textContent).toBe("AI-derived");
		expect(card(modal, "x2").querySelector(".ora-badge-ai")).toBeNull();
		expect(first.querySelector(".ora-proposal-meta")?.textContent).toBe("subtype: fact · nexus: [[Sleep and Energy]]");
		expect(first.querySelector(".ora-proposal-source")?.textContent).toBe("From ask-1, lines 12–14");
		expect(first.querySelector(".ora-proposal-contradicts")?.textContent).toContain("Contradicts Coffee is fine at night");
		link(first, "Coffee is fine at night").click();
		link(first, "ask-1").click();
		const dropped = el.querySelector("details.ora-extract-dropped");
		expect(dropped?.hasAttribute("open")).toBe(false);
		expect(dropped?.querySelector("summary")?.textContent).toBe("Dropped by the quality gate (2)");
		const reasons = [...(dropped?.querySelectorAll(".ora-dropped-reason") ?? [])].map((r) => r.textContent);
		expect(reasons).toEqual(["You pushed back on it later in the conversation", "An engram already says this: Caffeine after 2 pm reduces deep sleep"]);
		link(dropped as HTMLElement, "Caffeine after 2 pm reduces deep sleep").click();
		expect(opened).toEqual([`${clash}:1-1`, "Chats/Ora/ask-1.md:12-14", "Engrams/Caffeine after 2 pm reduces deep sleep.md:1-1"]);
		expect(button(el, "Keep 0 accepted").disabled).toBe(true);
		expect(transport.requests).toHaveLength(1);
	});

	it("accept all writes every proposal, then a notice links the notes, the triage queue and undo", async () => {
		const written = ["Engrams/Caffeine's half-life is five to six hours.md", "Engrams/I sleep better without screens.md"];
		const transport = new ScriptedTransport([json(200, plan()), json(200, { written, queued_contradictions: 1 })]);
		const { modal, opened, triaged } = await openModal(transport);
		button(modal.contentEl, "Accept all").click();
		await settle();
		expect(transport.requests[1]?.url).toBe("http://127.0.0.1:1/v1/extract/accept");
		expect(body(transport, 1)).toEqual({ note: "Chats/Ora/ask-1.md", accept: ["x1", "x2"], private: false });
		expect(document.body.contains(modal.containerEl)).toBe(false); // nothing left to keep: closed
		expect(shownNotices.at(-1)).toBe(`Kept 2 engrams. 1 contradiction queued for triage. ${written.join(", ")}. Triage · Undo`);
		const notice = noticeEls.at(-1) as HTMLElement;
		link(notice, written[1] ?? "").click();
		link(notice, "Triage").click();
		expect(opened).toEqual([`${written[1]}:1-1`]);
		expect(triaged).toEqual([1]);
	});

	it("keeps the accepted proposal with the user's edit and leaves the other to decide", async () => {
		const transport = new ScriptedTransport([json(200, plan()), json(200, { written: ["Engrams/Caffeine lasts into the night.md"], queued_contradictions: 0 })]);
		const { modal } = await openModal(transport);
		button(card(modal, "x1"), "Edit").click();
		const title = card(modal, "x1").querySelector("input") as HTMLInputElement;
		const text = card(modal, "x1").querySelector("textarea") as HTMLTextAreaElement;
		expect(document.activeElement).toBe(title);
		title.value = "Caffeine lasts into the night";
		text.value = "Caffeine taken at 3 pm is still half there at 9 pm.";
		button(card(modal, "x1"), "Save").click();
		expect(card(modal, "x1").querySelector(".ora-proposal-title")?.textContent).toBe("Caffeine lasts into the night");
		expect(card(modal, "x1").textContent).toContain("Edited");
		button(card(modal, "x1"), "Accept").click();
		expect(button(card(modal, "x1"), "Accept").getAttribute("aria-pressed")).toBe("true");
		button(modal.contentEl, "Keep 1 accepted").click();
		await settle();
		expect(body(transport, 1)).toEqual({
			note: "Chats/Ora/ask-1.md",
			accept: ["x1"],
			edits: { x1: { title: "Caffeine lasts into the night", text: "Caffeine taken at 3 pm is still half there at 9 pm." } },
			private: false,
		});
		expect([...modal.contentEl.querySelectorAll(".ora-proposal")].map((c) => c.getAttribute("data-id"))).toEqual(["x2"]);
		expect(document.activeElement).toBe(card(modal, "x2")); // the keyboard carries on with what is left
		expect(shownNotices.at(-1)).toBe("Kept 1 engram. Engrams/Caffeine lasts into the night.md. Undo");
	});

	it("says why an edit cannot be saved and keeps the editor open", async () => {
		const { modal } = await openModal(new ScriptedTransport([json(200, plan())]));
		button(card(modal, "x1"), "Edit").click();
		(card(modal, "x1").querySelector("input") as HTMLInputElement).value = " ";
		button(card(modal, "x1"), "Save").click();
		expect(card(modal, "x1").querySelector(".ora-error")?.textContent).toBe("An engram needs a title.");
		expect(card(modal, "x1").querySelector("textarea")).not.toBeNull();
		button(card(modal, "x1"), "Cancel").click();
		expect(card(modal, "x1").querySelector("textarea")).toBeNull();
		expect(card(modal, "x1").querySelector(".ora-proposal-title")?.textContent).toBe("Caffeine's half-life is five to six hours");
	});

	it("leaves a rejected proposal out of accept all, and closes when only rejected ones remain", async () => {
		const transport = new ScriptedTransport([json(200, plan()), json(200, { written: ["Engrams/A.md"], queued_contradictions: 0 })]);
		const { modal } = await openModal(transport);
		button(card(modal, "x2"), "Reject").click();
		expect(card(modal, "x2").classList.contains("is-rejected")).toBe(true);
		expect(card(modal, "x2").textContent).toContain("Rejected");
		button(modal.contentEl, "Accept all 1 not rejected").click();
		await settle();
		expect(body(transport, 1).accept).toEqual(["x1"]);
		expect(document.body.contains(modal.containerEl)).toBe(false);
	});

	it("is usable from the keyboard: arrows move, a, r and e act, typing in the editor is typing", async () => {
		const { modal, opened } = await openModal(new ScriptedTransport([json(200, plan())]));
		expect(modal.contentEl.querySelector(".ora-extract-keys")?.textContent).toContain("a accept");
		expect(document.activeElement).toBe(card(modal, "x1")); // focused on open
		key(card(modal, "x1"), "ArrowDown");
		expect(document.activeElement).toBe(card(modal, "x2"));
		key(card(modal, "x2"), "r");
		expect(card(modal, "x2").classList.contains("is-rejected")).toBe(true);
		expect(document.activeElement).toBe(card(modal, "x2")); // focus stays on the card after it is drawn again
		key(card(modal, "x2"), "k");
		expect(document.activeElement).toBe(card(modal, "x1"));
		key(card(modal, "x1"), "a");
		expect(card(modal, "x1").classList.contains("is-accepted")).toBe(true);
		key(card(modal, "x1"), "o");
		expect(opened).toEqual(["Chats/Ora/ask-1.md:12-14"]);
		key(card(modal, "x1"), "e");
		const title = document.activeElement as HTMLInputElement;
		expect(title.tagName).toBe("INPUT");
		title.value = "Caffeine lingers";
		key(title, "a"); // a letter typed in the title: no command
		expect(card(modal, "x1").classList.contains("is-accepted")).toBe(true);
		key(title, "Enter", { ctrlKey: true });
		expect(card(modal, "x1").querySelector(".ora-proposal-title")?.textContent).toBe("Caffeine lingers");
		expect(document.activeElement).toBe(card(modal, "x1"));
		const buttons = [...card(modal, "x1").querySelectorAll("button")].map((b) => b.textContent);
		expect(buttons).toEqual(["Accept", "Edit", "Reject"]); // native buttons: Tab reaches them, Enter and Space press them
		button(card(modal, "x2"), "Accept").click(); // as Enter or Space on it does
		expect(document.activeElement).toBe(button(card(modal, "x2"), "Accept"));
		expect(button(card(modal, "x2"), "Accept").getAttribute("aria-pressed")).toBe("true");
	});

	it("says the sidecar is down, and extracts again on request", async () => {
		const transport = new ScriptedTransport([new Error("connect ECONNREFUSED 127.0.0.1:1"), json(200, plan())]);
		const { modal } = await openModal(transport);
		const error = modal.contentEl.querySelector(".ora-error")?.textContent ?? "";
		expect(error).toContain("Could not extract: No sidecar at http://127.0.0.1:1");
		expect(error).toContain("ECONNREFUSED");
		expect(modal.contentEl.querySelector(".ora-extract-toolbar")).not.toBeNull();
		button(modal.contentEl, "Try again").click();
		await settle();
		expect(modal.contentEl.querySelectorAll(".ora-proposal")).toHaveLength(2);
	});

	it("shows the sidecar's error message, and keeps the decisions when a write is refused", async () => {
		const missing = await openModal(new ScriptedTransport([json(404, { error: { code: "not_found", message: "no conversation is recorded in Chats/Ora/ask-1.md" } })]));
		expect(missing.modal.contentEl.querySelector(".ora-error")?.textContent).toBe(
			"Could not extract: no conversation is recorded in Chats/Ora/ask-1.md. If the conversation is private, turn on private mode.",
		);
		const refused = await openModal(new ScriptedTransport([json(400, { error: { code: "bad_request", message: "the body must name a conversation or a note" } })]));
		expect(refused.modal.contentEl.querySelector(".ora-error")?.textContent).toBe("Could not extract: the body must name a conversation or a note");
		const transport = new ScriptedTransport([
			json(200, plan()),
			json(409, { error: { code: "conflict", message: "the chat note changed since the extraction" } }),
			json(200, anExtractPlan([anExtractProposal({ id: "x3" })])),
		]);
		const { modal } = await openModal(transport);
		button(card(modal, "x1"), "Accept").click();
		button(modal.contentEl, "Keep 1 accepted").click();
		await settle();
		expect(modal.contentEl.querySelector(".ora-extract-write-error")?.textContent).toContain("Could not keep the engrams: the conversation changed since the review.");
		expect(card(modal, "x1").classList.contains("is-accepted")).toBe(true);
		// It would fail the same way: keeping waits for "Extract again".
		expect(button(modal.contentEl, "Keep 1 accepted").disabled).toBe(true);
		expect(button(modal.contentEl, "Accept all").disabled).toBe(true);
		button(modal.contentEl, "Extract again").click();
		await settle();
		expect(transport.requests[2]?.url).toBe("http://127.0.0.1:1/v1/extract");
		expect([...modal.contentEl.querySelectorAll(".ora-proposal")].map((c) => c.getAttribute("data-id"))).toEqual(["x3"]);
	});

	it("names the refused proposal by title, marks its card, and blocks keeping until extracted again", async () => {
		const transport = new ScriptedTransport([
			json(200, plan()),
			json(409, { error: { code: "conflict", message: "x2: not among the proposals of ask-1.md now (extracted already, or the note changed); extract again to see them" } }),
			json(200, plan()),
		]);
		const { modal } = await openModal(transport);
		button(modal.contentEl, "Accept all").click();
		await settle();
		const error = modal.contentEl.querySelector(".ora-extract-write-error")?.textContent ?? "";
		expect(error).toContain('"I sleep better without screens" is no longer proposed as shown');
		expect(error).not.toContain("x2:");
		expect(card(modal, "x2").classList.contains("is-conflict")).toBe(true);
		expect(card(modal, "x2").querySelector(".ora-badge-conflict")?.textContent).toBe("Changed");
		expect(card(modal, "x1").classList.contains("is-conflict")).toBe(false);
		expect(button(modal.contentEl, "Accept all").disabled).toBe(true);
		button(modal.contentEl, "Extract again").click();
		await settle();
		expect(modal.contentEl.querySelector(".is-conflict")).toBeNull();
		expect(button(modal.contentEl, "Accept all").disabled).toBe(false);
	});

	it("keeps the user's decisions and edits across extract again for the proposals still proposed", async () => {
		const transport = new ScriptedTransport([
			json(200, plan()),
			json(409, { error: { code: "conflict", message: "x2: not among the proposals of ask-1.md now (extracted already, or the note changed); extract again to see them" } }),
			json(200, anExtractPlan([anExtractProposal(), anExtractProposal({ id: "x3", title: "I sleep better without a phone" })])),
			json(200, { written: ["Engrams/Caffeine lasts.md"], queued_contradictions: 0 }),
		]);
		const { modal } = await openModal(transport);
		button(card(modal, "x1"), "Edit").click();
		const editor = card(modal, "x1");
		editor.querySelector("input")!.value = "Caffeine lasts";
		editor.querySelector("textarea")!.value = "Caffeine lasts into the night (my wording).";
		button(editor, "Save").click();
		button(card(modal, "x1"), "Accept").click();
		button(card(modal, "x2"), "Accept").click();
		button(modal.contentEl, "Keep 2 accepted").click();
		await settle();
		button(modal.contentEl, "Extract again").click();
		await settle();
		expect(card(modal, "x1").classList.contains("is-accepted")).toBe(true);
		expect(card(modal, "x1").textContent).toContain("my wording");
		expect(card(modal, "x3").classList.contains("is-undecided")).toBe(true);
		button(modal.contentEl, "Keep 1 accepted").click();
		await settle();
		expect(body(transport, 3)).toMatchObject({ accept: ["x1"], edits: { x1: { title: "Caffeine lasts", text: "Caffeine lasts into the night (my wording)." } } });
	});

	it("says a timed-out keep may still write the engrams, and how to check or undo it", async () => {
		const client = new SidecarClient(new ScriptedTransport([json(200, plan()), HANG]), { baseUrl: "http://127.0.0.1:1", token: () => "t", timeouts: { write: 200 } });
		const modal = new ExtractModal(new App(), { client, selector: NOTE, open: async () => undefined });
		modal.open();
		await settle();
		button(card(modal, "x1"), "Accept").click();
		button(modal.contentEl, "Keep 1 accepted").click();
		await new Promise((r) => setTimeout(r, 250));
		expect(modal.contentEl.querySelector(".ora-extract-write-error")?.textContent).toBe(
			'Not sure the engrams were kept: The sidecar did not answer in 0.2 s, and may still apply the change. Check them in a moment, or run "Undo the last engram extraction".',
		);
	});

	it("says when nothing is new, still showing what was dropped", async () => {
		const { modal } = await openModal(new ScriptedTransport([json(200, anExtractPlan([], { extractor: "llm:llama3.2" }))]));
		expect(modal.contentEl.querySelector(".ora-extract-extractor")?.textContent).toBe("Proposed by the language model (llama3.2)");
		expect(modal.contentEl.querySelector(".ora-extract-headline")?.textContent).toContain("Nothing new to keep");
		expect(modal.contentEl.querySelector(".ora-extract-dropped")).not.toBeNull();
		button(modal.contentEl, "Close").click();
		expect(document.body.contains(modal.containerEl)).toBe(false);
	});

	it("undoes from the notice and extracts again while the dialog is open", async () => {
		const transport = new ScriptedTransport([
			json(200, plan()),
			json(200, { written: ["Engrams/A.md"], queued_contradictions: 0 }),
			json(200, { restored: ["Chats/Ora/ask-1.md"], removed: ["Engrams/A.md"] }),
			json(200, plan()),
		]);
		const { modal } = await openModal(transport);
		button(card(modal, "x1"), "Accept").click();
		button(modal.contentEl, "Keep 1 accepted").click();
		await settle();
		link(noticeEls.at(-1) as HTMLElement, "Undo").click();
		await settle();
		await settle();
		expect(transport.requests[2]?.url).toBe("http://127.0.0.1:1/v1/extract/undo");
		expect(shownNotices.at(-1)).toBe("Undone: 1 engram moved to the trash; Chats/Ora/ask-1.md put back as it was.");
		expect(transport.requests[3]?.url).toBe("http://127.0.0.1:1/v1/extract");
		expect(modal.contentEl.querySelectorAll(".ora-proposal")).toHaveLength(2);
	});

	it("says an undo whose connection broke after sending may have undone the extraction, not that it could not", async () => {
		const client = new SidecarClient(new ScriptedTransport([new Error("net::ERR_CONNECTION_RESET")]), { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		expect(await undoExtraction(client)).toBe(false);
		expect(shownNotices).toEqual(["Not sure the extraction was undone: The connection to the sidecar at http://127.0.0.1:1 broke before it answered (net::ERR_CONNECTION_RESET), so it may have applied the change. Check its engrams in a moment."]);
	});

	it("says why an undo failed", async () => {
		const client = new SidecarClient(new ScriptedTransport([json(409, { error: { code: "conflict", message: "Engrams/A.md changed since it was written" } })]), { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		expect(await undoExtraction(client, true)).toBe(false);
		expect(shownNotices.at(-1)).toBe("Could not undo: Engrams/A.md changed since it was written");
	});

	it("extracts in private mode on request, and drops a private answer once private mode is off", async () => {
		const transport = new HeldTransport();
		const { modal } = await openModal(transport, { privateMode: true, selector: { conversation: "ask-1" } });
		expect(JSON.parse(transport.held[0]?.req.body ?? "")).toEqual({ conversation: "ask-1", private: true });
		const toggle = modal.contentEl.querySelector<HTMLElement>(".checkbox-container");
		expect(toggle?.classList.contains("is-enabled")).toBe(true);
		toggle?.click(); // private mode off before the private answer came
		expect(JSON.parse(transport.held[1]?.req.body ?? "")).toEqual({ conversation: "ask-1", private: false });
		transport.held[0]?.answer(json(200, anExtractPlan([anExtractProposal({ id: "secret", title: "A private claim", private: true })])));
		await settle();
		expect(modal.contentEl.textContent).not.toContain("A private claim");
		transport.held[1]?.answer(json(200, plan()));
		await settle();
		expect(modal.contentEl.querySelectorAll(".ora-proposal")).toHaveLength(2);
	});

	it("keeps private proposals in private mode, marked private", async () => {
		const transport = new ScriptedTransport([json(200, anExtractPlan([anExtractProposal({ private: true })])), json(200, { written: ["Engrams/Secret.md"], queued_contradictions: 0 })]);
		const { modal } = await openModal(transport, { privateMode: true });
		expect(card(modal, "x1").querySelector(".ora-flag-private")?.textContent).toBe("Private");
		button(modal.contentEl, "Accept all").click();
		await settle();
		expect(body(transport, 1)).toMatchObject({ accept: ["x1"], private: true });
	});
});
