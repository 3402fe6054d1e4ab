// The triage dialog with many pairs: paging under a DOM budget, no confirmation for actions that
// change no note, keys, bulk dismissal, and the page and scroll position kept after an action.
import { App } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import type { Pair } from "../../src/api/types";
import { TriageModal } from "../../src/ui/triage-modal";
import { shownNotices } from "../__mocks__/obsidian";
import { aPair, json, ScriptedTransport } from "../builders";

const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
	document.body.empty();
	shownNotices.length = 0;
});

function pairs(n: number): Pair[] {
	return Array.from({ length: n }, (_, i) => aPair({ id: `p${i + 1}` }));
}

async function openWith(transport: ScriptedTransport) {
	const confirms: string[] = [];
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const modal = new TriageModal(new App(), {
		client,
		open: async () => undefined,
		onOpenCount: () => undefined,
		confirm: async (title) => (confirms.push(title), true),
	});
	modal.open();
	await settle();
	return { modal, confirms };
}

function button(modal: TriageModal, label: string, within: ParentNode = modal.contentEl): HTMLButtonElement {
	const found = [...within.querySelectorAll("button")].find((b) => b.textContent === label);
	if (!found) throw new Error(`no button ${label}`);
	return found;
}

const key = (modal: TriageModal, k: string) => (modal.scope as unknown as { handle(evt: KeyboardEvent): boolean }).handle(new KeyboardEvent("keydown", { key: k }));
const resolved = (t: ScriptedTransport) => t.requests.filter((r) => r.url.endsWith("/resolve")).map((r) => [r.url.split("/").at(-2), JSON.parse(r.body ?? "") as unknown]);
const ok = (id: string, status: Pair["status"]) => json(200, { pair: aPair({ id, status }), changed: [] });

describe("TriageModal at scale", () => {
	it("draws 500 pairs a page at a time, under a DOM budget, and pages through them", async () => {
		const { modal } = await openWith(new ScriptedTransport([json(200, { pairs: pairs(500) })]));
		const elements = modal.contentEl.querySelectorAll("*").length;
		expect(elements).toBeLessThan(1500); // all 500 at once drew 20,010
		expect(modal.contentEl.querySelectorAll(".ora-pair")).toHaveLength(20);
		expect(modal.contentEl.querySelector(".ora-triage-page")?.textContent).toBe("Pairs 1–20 of 500");
		expect(button(modal, "Previous").disabled).toBe(true);
		button(modal, "Next").click();
		expect(modal.contentEl.querySelector(".ora-triage-page")?.textContent).toBe("Pairs 21–40 of 500");
		expect(modal.contentEl.querySelector(".ora-pair")?.getAttribute("data-pair")).toBe("p21");
		key(modal, "n");
		expect(modal.contentEl.querySelector(".ora-triage-page")?.textContent).toBe("Pairs 41–60 of 500");
		key(modal, "p");
		key(modal, "p");
		key(modal, "p"); // no page before the first
		expect(modal.contentEl.querySelector(".ora-triage-page")?.textContent).toBe("Pairs 1–20 of 500");
	});

	it("dismisses and flags at once, without a confirmation (no note changes), and still confirms a write", async () => {
		const transport = new ScriptedTransport([
			json(200, { pairs: pairs(3) }),
			ok("p1", "dismissed"),
			json(200, { pairs: pairs(3).slice(1) }),
			ok("p2", "flagged"),
			json(200, { pairs: pairs(3).slice(2) }),
			ok("p3", "resolved"),
			json(200, { pairs: [] }),
		]);
		const { modal, confirms } = await openWith(transport);
		button(modal, "Dismiss").click();
		await settle();
		button(modal, "Flag for reflection").click();
		await settle();
		expect(confirms).toEqual([]);
		button(modal, "Archive A").click();
		await settle();
		await settle();
		expect(confirms).toEqual(["Archive A"]);
		expect(resolved(transport)).toEqual([
			["p1", { action: "dismiss" }],
			["p2", { action: "flag" }],
			["p3", { action: "wrong", note: "Engrams/Coffee is healthy.md" }],
		]);
	});

	it("keeps the page and the scroll position after an action", async () => {
		const all = pairs(60);
		const transport = new ScriptedTransport([json(200, { pairs: all }), ok("p22", "dismissed"), json(200, { pairs: all.filter((p) => p.id !== "p22") })]);
		const { modal } = await openWith(transport);
		button(modal, "Next").click();
		modal.modalEl.scrollTop = 420;
		const second = modal.contentEl.querySelectorAll(".ora-pair")[1] as HTMLElement;
		expect(second.getAttribute("data-pair")).toBe("p22");
		button(modal, "Dismiss", second).click();
		await settle();
		await settle();
		expect(modal.contentEl.querySelector(".ora-triage-page")?.textContent).toBe("Pairs 21–40 of 59");
		expect(modal.contentEl.querySelectorAll(".ora-pair")[1]?.getAttribute("data-pair")).toBe("p23");
		expect(modal.modalEl.scrollTop).toBe(420);
	});

	it("moves through the pairs with j and k, and dismisses or flags the focused one with d and f", async () => {
		const transport = new ScriptedTransport([json(200, { pairs: pairs(3) }), ok("p2", "dismissed"), json(200, { pairs: [aPair({ id: "p1" }), aPair({ id: "p3" })] }), ok("p3", "flagged"), json(200, { pairs: [aPair({ id: "p1" })] })]);
		const { modal, confirms } = await openWith(transport);
		const focused = () => modal.contentEl.querySelector(".ora-pair.is-focused")?.getAttribute("data-pair");
		expect(focused()).toBe("p1");
		key(modal, "j");
		expect(focused()).toBe("p2");
		key(modal, "d");
		await settle();
		await settle();
		expect(focused()).toBe("p3"); // the same place on the page: the next pair
		key(modal, "f");
		await settle();
		await settle();
		key(modal, "k");
		expect(focused()).toBe("p1");
		expect(resolved(transport)).toEqual([
			["p2", { action: "dismiss" }],
			["p3", { action: "flag" }],
		]);
		expect(confirms).toEqual([]);
	});

	it("dismisses the selected pairs together, ticked by hand, by x or a whole page", async () => {
		const all = pairs(25);
		const transport = new ScriptedTransport([json(200, { pairs: all }), ok("p1", "dismissed"), ok("p2", "dismissed"), ok("p3", "dismissed"), json(200, { pairs: all.slice(3) })]);
		const { modal, confirms } = await openWith(transport);
		const boxes = [...modal.contentEl.querySelectorAll<HTMLInputElement>(".ora-pair-select")];
		boxes[0]?.click();
		key(modal, "j");
		key(modal, "x");
		boxes[2]?.click();
		expect(button(modal, "Dismiss selected (3)").disabled).toBe(false);
		button(modal, "Dismiss selected (3)").click();
		for (let i = 0; i < 6; i++) await settle();
		expect(resolved(transport).map(([id]) => id)).toEqual(["p1", "p2", "p3"]);
		expect(confirms).toEqual([]);
		expect(shownNotices.at(-1)).toBe("Dismissed 3 pairs. No note changed.");
		expect(modal.contentEl.querySelector(".ora-triage-page")?.textContent).toBe("Pairs 1–20 of 22");
		button(modal, "Select this page").click();
		expect(button(modal, "Dismiss selected (20)").disabled).toBe(false);
	});

	it("deletes a note through Obsidian's trash once the sidecar has recorded the decision, and says where it went", async () => {
		const pair = aPair();
		const resolved = { action: "wrong", note: pair.a.path, deleted: true, client_trash: true, hash: "h1" };
		const transport = new ScriptedTransport([
			json(200, { pairs: [pair] }),
			json(200, { pair: { ...pair, status: "resolved", resolution: resolved }, changed: [pair.a.path] }),
			json(200, { pairs: [] }),
		]);
		const trashed: [string, string][] = [];
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const modal = new TriageModal(new App(), {
			client,
			open: async () => undefined,
			onOpenCount: () => undefined,
			confirm: async () => true,
			trash: async (path, hash) => (trashed.push([path, hash]), "It is in the system trash, as your Deleted files setting says."),
		});
		modal.open();
		await settle();
		button(modal, "Delete A").click();
		for (let i = 0; i < 4; i++) await settle();
		// The sidecar is asked to leave the note for the plugin's trash, and the plugin trashes the note it checked.
		expect(JSON.parse(transport.requests[1]?.body ?? "{}")).toEqual({ action: "wrong", note: pair.a.path, delete: true, client_trash: true });
		expect(trashed).toEqual([[pair.a.path, "h1"]]);
		expect(shownNotices.at(-1)).toContain("It is in the system trash, as your Deleted files setting says.");
	});
});

