import { App } from "obsidian";
import { afterEach, describe, expect, it, vi } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { TriageModal, type TriageDeps } from "../../src/ui/triage-modal";
import { shownNotices } from "../__mocks__/obsidian";
import type { HttpRequest, HttpResponse, HttpTransport } from "../../src/api/transport";
import { CALL_TIMEOUTS } from "../../src/api/timeouts";
import { aPair, HANG, json, ScriptedTransport } from "../builders";

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

/** A slow sidecar: each request waits until the test answers it, in any order. */
class HeldTransport implements HttpTransport {
	readonly held: { req: HttpRequest; answer: (response: HttpResponse) => void }[] = [];

	request(req: HttpRequest): Promise<HttpResponse> {
		return new Promise((answer) => this.held.push({ req, answer }));
	}

	answer(n: number, response: HttpResponse): void {
		this.held[n]?.answer(response);
	}
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
			json(200, { pair: { ...pair, status: "resolved", resolution: { action: "changed-mind" } }, changed: [pair.b.path, pair.a.path] }),
			json(200, { pairs: [aPair({ id: "p2" })] }),
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
		expect(shownNotices.at(-1)).toContain("Resolved: you changed your mind.");
		expect(shownNotices.at(-1)).toContain(pair.b.path);
		expect(shownNotices.at(-1)).not.toContain("changed-mind");
	});

	it("shows which claim is AI-derived and applies the suggestion after asking", async () => {
		const pair = aPair({
			provenance: { a: "ai-derived", b: "user" },
			suggested: { action: "changed-mind", newer: "Engrams/Coffee harms the heart.md", reason: "B is your own note" },
		});
		const transport = new ScriptedTransport([
			json(200, { pairs: [pair] }),
			json(200, { pair: { ...pair, status: "resolved", resolution: { action: "changed-mind" } }, changed: [pair.b.path] }),
			json(200, { pairs: [] }),
		]);
		const asked: string[] = [];
		const { modal } = await openModal(transport, { confirm: async (title) => (asked.push(title), true) });
		const origins = [...modal.contentEl.querySelectorAll(".ora-claim-origin")].map((e) => e.textContent);
		expect(origins).toEqual(["AI-derived", "Your own note"]);
		expect(modal.contentEl.querySelector(".ora-pair-suggestion")?.textContent).toContain("Suggested: B supersedes A. B is your own note.");
		button(modal, "Apply the suggestion").click();
		await settle();
		await settle();
		expect(asked).toEqual(["B supersedes A"]);
		expect(JSON.parse(transport.requests[1]?.body ?? "")).toEqual({ action: "changed-mind", newer: pair.b.path });
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
		expect(empty.modal.contentEl.querySelector(".ora-message")?.textContent).toBe("No open contradictions.");
		const failed = await openModal(new ScriptedTransport([json(401, { error: { code: "unauthorized", message: "missing or wrong token" } })]));
		expect(failed.modal.contentEl.querySelector(".ora-error")?.textContent).toBe("missing or wrong token");
	});

	it("keeps its toolbar when the sidecar does not answer, and tries again on request", async () => {
		const transport = new ScriptedTransport([new Error("connect ECONNREFUSED 127.0.0.1:1"), json(200, { pairs: [aPair()] })]);
		const { modal, counts } = await openModal(transport);
		expect(modal.contentEl.querySelector(".ora-error")?.textContent).toContain("ECONNREFUSED");
		expect(modal.contentEl.querySelector(".ora-triage-view")).not.toBeNull();
		expect(modal.contentEl.querySelector(".ora-triage-private input")).not.toBeNull();
		button(modal, "Try again").click();
		await settle();
		expect(modal.contentEl.querySelectorAll(".ora-pair")).toHaveLength(1);
		expect(counts).toEqual([1]);
	});

	it("shows the list of the last load when a slow sidecar answers an earlier one after it", async () => {
		const pair = aPair();
		const transport = new HeldTransport();
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const modal = new TriageModal(new App(), { client, open: async () => undefined, onOpenCount: () => undefined, confirm: async () => true });
		modal.open();
		transport.answer(0, json(200, { pairs: [pair] }));
		await settle();
		button(modal, "Flag for reflection").click(); // the resolution is slow to answer…
		await settle();
		const select = modal.contentEl.querySelector<HTMLSelectElement>(".ora-triage-view");
		if (!select) throw new Error("no view picker");
		select.value = "flagged"; // …so the user looks at the flagged pairs meanwhile
		select.dispatchEvent(new Event("change"));
		transport.answer(1, json(200, { pair: { ...pair, status: "flagged" }, changed: [] }));
		await settle();
		expect(transport.held.map((h) => h.req.url.replace(/^.*\/v1/, ""))).toEqual([
			"/contradictions?status=open",
			"/contradictions/p1/resolve",
			"/contradictions?status=flagged",
			"/contradictions?status=flagged",
		]);
		transport.answer(3, json(200, { pairs: [{ ...pair, status: "flagged" }] }));
		await settle();
		transport.answer(2, json(200, { pairs: [] })); // asked before the flag was written
		await settle();
		expect(modal.contentEl.querySelectorAll(".ora-pair")).toHaveLength(1);
	});

	it("lists and resolves private pairs only with private notes included", async () => {
		const secret = aPair({ id: "s1", private: true });
		const transport = new ScriptedTransport([
			json(200, { pairs: [] }),
			json(200, { pairs: [secret] }),
			json(200, { pair: { ...secret, status: "flagged" }, changed: [] }),
			json(200, { pairs: [] }),
		]);
		const { modal, counts } = await openModal(transport);
		const box = modal.contentEl.querySelector<HTMLInputElement>(".ora-triage-private input");
		if (!box) throw new Error("no private toggle");
		box.checked = true;
		box.dispatchEvent(new Event("change"));
		await settle();
		expect(transport.requests[1]?.url).toContain("status=open&private=true");
		expect(modal.contentEl.querySelector(".ora-badge-private")?.textContent).toBe("Private");
		button(modal, "Flag for reflection").click();
		await settle();
		await settle();
		expect(JSON.parse(transport.requests[2]?.body ?? "")).toEqual({ action: "flag", private: true });
		expect(counts).toEqual([0]); // private listings do not change the public count
	});

	it("names no note in a notice once private notes are unticked while the resolution, story or undo was answered", async () => {
		const secret = aPair({ id: "s1", private: true, kind: "news", batch: "news-s" });
		const transport = new HeldTransport();
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const modal = new TriageModal(new App(), { client, open: async () => undefined, onOpenCount: () => undefined, confirm: async () => true });
		/** Answers the last request whose URL holds `part`, and lets the modal draw. */
		const answer = async (part: string, response: HttpResponse) => {
			const held = transport.held.filter((h) => h.req.url.includes(part)).at(-1);
			if (!held) throw new Error(`no request to ${part}`);
			held.answer(response);
			await settle();
			await settle();
		};
		const include = async (on: boolean) => {
			if (on) {
				// The lists loaded meanwhile, outside private mode: no private pair in them.
				for (const held of transport.held) if (held.req.url.includes("/contradictions?")) held.answer(json(200, { pairs: [] }));
				await settle();
			}
			const box = modal.contentEl.querySelector<HTMLInputElement>(".ora-triage-private input");
			if (!box) throw new Error("no private toggle");
			box.checked = on;
			box.dispatchEvent(new Event("change"));
			if (on) await answer("private=true", json(200, { pairs: [secret] }));
		};
		const paths = [secret.a.path, secret.b.path];
		modal.open();
		await answer("/contradictions?status=open", json(200, { pairs: [] }));

		await include(true);
		button(modal, "B supersedes A").click();
		await settle();
		await include(false); // unticked while the sidecar writes
		await answer("/resolve", json(200, { pair: { ...secret, status: "resolved", resolution: { action: "changed-mind" } }, changed: paths }));
		expect(shownNotices.at(-1)).toBe("Resolved: you changed your mind. Changed 2 notes. You can undo this.");

		await include(true);
		button(modal, "Approve the story").click();
		await settle();
		await include(false);
		await answer("/approve", json(200, { pairs: [{ ...secret, status: "resolved" }], changed: paths }));
		expect(shownNotices.at(-1)).toBe("Approved 1 in this story. Changed 2 notes. You can undo this.");

		await include(true);
		button(modal, "Undo last resolution").click();
		await settle();
		await include(false);
		await answer("/undo", json(200, { pairs: [secret], changed: paths }));
		expect(shownNotices.at(-1)).toBe("Undone: the pair is open again. Restored 2 notes.");

		await include(true);
		button(modal, "Dismiss").click();
		await settle();
		await include(false);
		await answer("/resolve", json(409, { error: { code: "conflict", message: `${secret.b.path} changed since it was judged` } }));
		expect(shownNotices.at(-1)).toBe("Could not resolve: its details are not shown now that private notes are not included.");

		expect(shownNotices.filter((n) => paths.some((p) => n.includes(p)))).toEqual([]);
		// Still ticked when the answer comes: named as before.
		await include(true);
		button(modal, "Flag for reflection").click();
		await answer("/resolve", json(200, { pair: { ...secret, status: "flagged" }, changed: [secret.a.path] }));
		expect(shownNotices.at(-1)).toBe(`Flagged for reflection. Changed: ${secret.a.path}. You can undo this.`);
	});

	it("approves a news story as a batch", async () => {
		const news = (id: string) => aPair({ id, kind: "news", batch: "news-abc", judge: "news-sweep", evidence: { proposal: "b supersedes a", similarity: 0.9 } });
		const transport = new ScriptedTransport([
			json(200, { pairs: [news("n1"), news("n2")] }),
			json(200, { pairs: [{ ...news("n1"), status: "resolved" }, { ...news("n2"), status: "resolved" }], changed: ["a.md", "b.md", "c.md"] }),
			json(200, { pairs: [] }),
		]);
		const { modal } = await openModal(transport);
		expect(modal.contentEl.textContent).toContain("Found by the news sweep");
		expect(modal.contentEl.textContent).not.toContain("proposal");
		[...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === "Approve all 2 in this story")?.click();
		await settle();
		await settle();
		expect(transport.requests[1]?.url).toContain("/v1/contradictions/batches/news-abc/approve");
		expect(shownNotices.at(-1)).toContain("Approved 2 in this story");
	});

	it("undoes the last resolution and shows the pair open again", async () => {
		const pair = aPair();
		const transport = new ScriptedTransport([
			json(200, { pairs: [] }),
			json(200, { pairs: [pair], changed: [pair.a.path, pair.b.path] }),
			json(200, { pairs: [pair] }),
		]);
		const { modal, counts } = await openModal(transport);
		button(modal, "Undo last resolution").click();
		await settle();
		await settle();
		expect(transport.requests[1]?.url).toContain("/v1/contradictions/undo");
		expect(shownNotices.at(-1)).toContain("the pair is open again");
		expect(shownNotices.at(-1)).toContain(`Restored: ${pair.a.path}, ${pair.b.path}`);
		expect(counts).toEqual([0, 1]);
		expect(modal.contentEl.querySelectorAll(".ora-pair")).toHaveLength(1);
	});

	it("shows resolved pairs with their resolution in words and no actions", async () => {
		const done = aPair({ status: "resolved", resolution: { action: "wrong", note: "a.md", deleted: false } });
		const transport = new ScriptedTransport([json(200, { pairs: [] }), json(200, { pairs: [done] })]);
		const { modal } = await openModal(transport);
		const select = modal.contentEl.querySelector<HTMLSelectElement>(".ora-triage-view");
		if (!select) throw new Error("no view select");
		select.value = "resolved";
		select.dispatchEvent(new Event("change"));
		await settle();
		expect(transport.requests[1]?.url).toContain("status=resolved");
		expect(modal.contentEl.querySelector(".ora-pair-status")?.textContent).toBe("Resolved: one note was wrong, and archived");
		expect(modal.contentEl.querySelector(".ora-pair-actions")).toBeNull();
	});

	it("refreshes the list when a pair changed meanwhile (a note renamed), instead of failing on the stale one", async () => {
		const pair = aPair();
		const renamed = aPair({ id: "p9", a: { ...pair.a, path: "Engrams/Coffee is fine.md" } });
		const transport = new ScriptedTransport([
			json(200, { pairs: [pair] }),
			json(404, { error: { code: "not_found", message: "no contradiction with id 'p1': list them with `ora contradictions` (private ones with --private)" } }),
			json(200, { pairs: [renamed] }),
		]);
		const { modal, counts } = await openModal(transport);
		button(modal, "A supersedes B").click();
		await settle();
		await settle();
		expect(transport.requests.map((r) => r.method)).toEqual(["GET", "POST", "GET"]);
		expect(shownNotices.at(-1)).toContain("changed since the list was shown");
		expect(shownNotices.at(-1)).not.toContain("ora contradictions");
		expect(modal.contentEl.querySelector(".ora-claim-path")?.textContent).toBe("Engrams/Coffee is fine.md");
		expect(counts).toEqual([1, 1]);
	});

	it("leaves letter keys to a focused dropdown, text area or editable element, and takes them from a checkbox", async () => {
		const transport = new ScriptedTransport([json(200, { pairs: [aPair(), aPair({ id: "p2" })] })]);
		const { modal } = await openModal(transport);
		// Obsidian hands every keydown to the open modal's scope, whatever element has focus.
		const scope = modal.scope as unknown as { handle(evt: KeyboardEvent): boolean };
		const press = (el: HTMLElement, key: string) => {
			el.addEventListener("keydown", (evt) => scope.handle(evt), { once: true });
			el.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
		};
		const editable = modal.contentEl.createDiv({ attr: { contenteditable: "true" } });
		const owners = [modal.contentEl.querySelector<HTMLElement>("select.ora-triage-view"), modal.contentEl.createEl("textarea"), editable];
		for (const el of owners) for (const key of ["d", "f", "x", "j"]) press(el as HTMLElement, key);
		await settle();
		expect(transport.requests.map((r) => r.url).filter((u) => u.includes("/resolve"))).toEqual([]);
		expect(modal.contentEl.querySelectorAll(".ora-pair-select:checked")).toHaveLength(0);
		press(modal.contentEl.querySelector<HTMLElement>(".ora-pair-select") as HTMLElement, "j");
		expect([...modal.contentEl.querySelectorAll(".ora-pair")].map((el) => el.hasClass("is-focused"))).toEqual([false, true]);
	});

	it("says a timed-out resolution may still be applied, and loads the list again", async () => {
		const pair = aPair();
		const transport = new ScriptedTransport([json(200, { pairs: [pair] }), HANG, json(200, { pairs: [] })]);
		const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t", timeouts: { write: 200 } });
		const modal = new TriageModal(new App(), { client, open: async () => undefined, onOpenCount: () => undefined, confirm: async () => true });
		modal.open();
		await settle();
		button(modal, "A supersedes B").click();
		await new Promise((r) => setTimeout(r, 250));
		expect(shownNotices).toEqual([
			'Not sure the pair was resolved: The sidecar did not answer in 0.2 s, and may still apply the change. Check the list in a moment; if it was, "Undo last resolution" reverts it.',
		]);
		expect(transport.requests.map((r) => r.method)).toEqual(["GET", "POST", "GET"]);
	});

	it("says a resolution whose connection broke after sending may be applied, not that it failed, and loads the list again", async () => {
		const pair = aPair();
		const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
		const transport = new ScriptedTransport([json(200, { pairs: [pair] }), reset, json(200, { pairs: [] })]);
		const { modal } = await openModal(transport);
		button(modal, "A supersedes B").click();
		await settle();
		await settle();
		expect(shownNotices).toEqual([
			'Not sure the pair was resolved: The connection to the sidecar at http://127.0.0.1:1 broke before it answered (socket hang up), so it may have applied the change. Check the list in a moment; if it was, "Undo last resolution" reverts it.',
		]);
		expect(transport.requests.map((r) => r.method)).toEqual(["GET", "POST", "GET"]);
	});

	it("leaves its loading state when the sidecar does not answer, with Try again", async () => {
		vi.useFakeTimers();
		try {
			const transport = new ScriptedTransport([HANG, json(200, { pairs: [aPair()] })]);
			const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: () => "t" });
			const modal = new TriageModal(new App(), { client, open: async () => undefined, onOpenCount: () => undefined });
			modal.open();
			await vi.advanceTimersByTimeAsync(0);
			expect(modal.contentEl.textContent).toContain("Loading pairs…");
			await vi.advanceTimersByTimeAsync(CALL_TIMEOUTS.interactive);
			expect(modal.contentEl.textContent).not.toContain("Loading pairs…");
			expect(modal.contentEl.querySelector(".ora-error")?.textContent).toBe("The sidecar did not answer in 15 s.");
			button(modal, "Try again").click();
			await vi.advanceTimersByTimeAsync(0);
			expect(modal.contentEl.querySelectorAll(".ora-pair")).toHaveLength(1);
		} finally {
			vi.useRealTimers();
		}
	});
});
