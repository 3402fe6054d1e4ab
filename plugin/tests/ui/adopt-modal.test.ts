import { App } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { AdoptModal, undoAdoption } from "../../src/ui/adopt-modal";
import { shownNotices } from "../__mocks__/obsidian";
import { anAdoptPlan, aProposal, HANG, json, ScriptedTransport } from "../builders";

const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
	document.body.empty();
	shownNotices.length = 0;
});

async function openModal(transport: ScriptedTransport) {
	const applied: number[] = [];
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
	const modal = new AdoptModal(new App(), { client, onApplied: (n) => applied.push(n) });
	modal.open(); // loads the plan
	await settle();
	return { modal, applied };
}

function button(modal: AdoptModal, label: string): HTMLButtonElement {
	const found = [...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === label);
	if (!found) throw new Error(`no button ${label}`);
	return found;
}

describe("AdoptModal", () => {
	it("shows the counts and each note with its diff, and writes nothing until confirmed", async () => {
		const plan = anAdoptPlan([aProposal(), aProposal({ path: "Ideas.md", digest: "d2", new_block: true })]);
		const transport = new ScriptedTransport([json(200, plan)]);
		const { modal } = await openModal(transport);
		expect(transport.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET http://127.0.0.1:1/v1/adopt"]);
		const text = modal.contentEl.textContent ?? "";
		expect(text).toContain("2 notes would get Ora frontmatter (2 resource).");
		expect(text).toContain("Skipped Books/Own type.md");
		const notes = [...modal.contentEl.querySelectorAll(".ora-adopt-note")];
		expect(notes.map((n) => n.querySelector(".ora-adopt-path")?.textContent)).toEqual(["Recipes/Dal.md", "Ideas.md"]);
		expect(notes[0]?.querySelector(".ora-adopt-diff")?.textContent).toContain("+type: resource");
		button(modal, "Cancel").click();
		expect(transport.requests).toHaveLength(1);
	});

	it("applies exactly the shown proposals on confirmation and reports refusals", async () => {
		const plan = anAdoptPlan([aProposal(), aProposal({ path: "Ideas.md", digest: "d2" })]);
		const outcome = {
			applied: ["Recipes/Dal.md"],
			unchanged: [],
			refused: [{ path: "Ideas.md", reason: "changed since the plan" }],
			journal: ".ora-journal/adopt-1.json",
			private_hidden: 0,
		};
		const transport = new ScriptedTransport([json(200, plan), json(200, outcome)]);
		const { modal, applied } = await openModal(transport);
		button(modal, "Adopt 2 notes").click();
		await settle();
		expect(transport.requests[1]?.url).toBe("http://127.0.0.1:1/v1/adopt/apply");
		expect(JSON.parse(transport.requests[1]?.body ?? "")).toEqual({
			notes: [
				{ path: "Recipes/Dal.md", digest: "d1" },
				{ path: "Ideas.md", digest: "d2" },
			],
		});
		expect(applied).toEqual([1]);
		expect(shownNotices.at(-1)).toContain("Adopted 1 note. Refused Ideas.md: changed since the plan");
	});

	it("offers no adopt button when nothing is left, and shows errors as text", async () => {
		const empty = await openModal(new ScriptedTransport([json(200, anAdoptPlan([]))]));
		expect([...empty.modal.contentEl.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Cancel"]);
		const failed = await openModal(
			new ScriptedTransport([json(500, { error: { code: "internal", message: "boom" } })]),
		);
		expect(failed.modal.contentEl.querySelector(".ora-error")?.textContent).toContain("boom");
	});

	it("says a timed-out adopt may still be applied, and how to check or undo it, not that it failed", async () => {
		const transport = new ScriptedTransport([json(200, anAdoptPlan([aProposal()])), HANG]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t", timeouts: { write: 200 } });
		const modal = new AdoptModal(new App(), { client });
		modal.open();
		await settle();
		button(modal, "Adopt 1 note").click();
		await new Promise((r) => setTimeout(r, 250));
		expect(shownNotices).toEqual([
			'Not sure the notes were adopted: The sidecar did not answer in 0.2 s, and may still apply the change. Check them in a moment, or run "Undo the last Ora adoption".',
		]);
	});

	it("says an undo whose connection broke after sending may have restored the notes, not that it could not", async () => {
		const client = new SidecarClient(new ScriptedTransport([new Error("net::ERR_CONNECTION_RESET")]), { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		await undoAdoption(client);
		expect(shownNotices).toEqual(["Not sure the adoption was undone: The connection to the sidecar at http://127.0.0.1:1 broke before it answered (net::ERR_CONNECTION_RESET), so it may have applied the change. Check the notes in a moment."]);
	});

	it("undo restores and says how many notes came back", async () => {
		const transport = new ScriptedTransport([
			json(200, { restored: ["A.md", "B.md"], unchanged: [], refused: [], journal: "j", private_hidden: 0 }),
			json(404, { error: { code: "not_found", message: "no adoption to undo in .ora-journal/" } }),
		]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		await undoAdoption(client);
		expect(shownNotices.at(-1)).toBe("Restored 2 notes.");
		await undoAdoption(client);
		expect(shownNotices.at(-1)).toBe("Could not undo: no adoption to undo in .ora-journal/");
	});
});
