import { App } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { TriageModal, type TriageDeps } from "../../src/ui/triage-modal";
import { shownNotices } from "../__mocks__/obsidian";
import { aPair, json, ScriptedTransport } from "../builders";

const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
	document.body.empty();
	shownNotices.length = 0;
});

async function openModal(transport: ScriptedTransport, change: Partial<TriageDeps> = {}) {
	const counts: number[] = [];
	const opened: string[] = [];
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const modal = new TriageModal(new App(), {
		client,
		open: async (path, start, end) => void opened.push(`${path}:${start}-${end}`),
		onOpenCount: (n) => counts.push(n),
		confirm: async () => true,
		...change,
	});
	modal.open(); // loads the open pairs
	await settle();
	return { modal, counts, opened };
}

function button(modal: TriageModal, label: string): HTMLButtonElement {
	const found = [...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === label);
	if (!found) throw new Error(`no button ${label}`);
	return found;
}

describe("TriageModal", () => {
	it("shows both claims side by side with clickable paths and the judge evidence", async () => {
		const pair = aPair();
		const { modal, counts, opened } = await openModal(new ScriptedTransport([json(200, { pairs: [pair] })]));
		const claims = [...modal.contentEl.querySelectorAll(".ora-claim")];
		expect(claims.map((c) => c.querySelector(".ora-claim-text")?.textContent)).toEqual([pair.a.text, pair.b.text]);
		expect(modal.contentEl.querySelector(".ora-evidence")?.textContent).toContain("lowers/raises");
		expect(counts).toEqual([1]);
		(claims[1]?.querySelector("a.ora-claim-path") as HTMLElement).click();
		expect(opened).toEqual([`${pair.b.path}:6-7`]);
	});

	it("asks before writing, sends the chosen resolution and drops the pair", async () => {
		const pair = aPair();
		const transport = new ScriptedTransport([
			json(200, { pairs: [pair, aPair({ id: "p2" })] }),
			json(200, { pair: { ...pair, status: "resolved" }, changed: [pair.b.path, pair.a.path] }),
		]);
		const asked: string[] = [];
		const { modal, counts } = await openModal(transport, { confirm: async (_t, text) => (asked.push(text), true) });
		button(modal, "B supersedes A").click();
		await settle();
		await settle();
		expect(asked[0]).toContain(`"${pair.b.path}" will get a supersedes link`);
		expect(transport.requests[1]?.url).toContain("/v1/contradictions/p1/resolve");
		expect(JSON.parse(transport.requests[1]?.body ?? "")).toEqual({ action: "changed-mind", newer: pair.b.path });
		expect(counts).toEqual([2, 1]);
		expect(modal.contentEl.querySelectorAll(".ora-pair")).toHaveLength(1);
		expect(shownNotices.at(-1)).toContain(pair.b.path);
	});

	it("writes nothing when the user cancels", async () => {
		const transport = new ScriptedTransport([json(200, { pairs: [aPair()] })]);
		const { modal } = await openModal(transport, { confirm: async () => false });
		button(modal, "Delete A").click();
		await settle();
		expect(transport.requests).toHaveLength(1);
		expect(modal.contentEl.querySelectorAll(".ora-pair")).toHaveLength(1);
	});

	it("shows the empty and error states", async () => {
		const empty = await openModal(new ScriptedTransport([json(200, { pairs: [] })]));
		expect(empty.modal.contentEl.textContent).toBe("No open contradictions.");
		const failed = await openModal(new ScriptedTransport([json(401, { error: { code: "unauthorized", message: "missing or wrong token" } })]));
		expect(failed.modal.contentEl.querySelector(".ora-error")?.textContent).toBe("missing or wrong token");
	});
});
