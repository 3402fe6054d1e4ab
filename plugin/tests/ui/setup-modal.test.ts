import { App } from "obsidian";
import { describe, expect, it } from "vitest";

import type { InstallState, PackageSource, SetupListener, SetupOutcome } from "../../src/setup/installer";
import { managedPaths } from "../../src/setup/paths";
import { SetupModal, type SetupHost } from "../../src/ui/setup-modal";

/** A host whose installer replays a scripted run (the real one is tested in tests/setup). */
function host(start: InstallState | boolean, outcome: SetupOutcome, answer = true) {
	const calls: string[] = [];
	let state: InstallState = start === true ? "installed" : start === false ? "absent" : start;
	const script = async (what: string, listener?: SetupListener): Promise<SetupOutcome> => {
		calls.push(what);
		listener?.({ kind: "step", index: 1, total: 2, title: "Installing the sidecar with pip" });
		listener?.({ kind: "line", line: "Successfully installed ora-vault-sidecar-0.1.0" });
		if (outcome.ok) state = what === "remove" ? "absent" : "installed";
		return outcome;
	};
	const h: SetupHost = {
		installer: {
			paths: managedPaths("/home/u/.local/share/ora-vault", "linux"),
			running: false,
			state: () => state,
			install: (source: PackageSource, l) => script(`install ${JSON.stringify(source)}`, l),
			repair: (source: PackageSource, l) => script(`repair ${JSON.stringify(source)}`, l),
			upgrade: (source: PackageSource, l) => script(`upgrade ${JSON.stringify(source)}`, l),
			remove: (l) => script("remove", l),
			cancel: () => void calls.push("cancel"),
		},
		reason: "No ora command was found.",
		stopSidecar: async () => void calls.push("stop"),
		installed: async () => void calls.push("installed"),
		removed: async () => void calls.push("removed"),
		confirm: async (title) => (calls.push(`confirm ${title}`), answer),
	};
	const modal = new SetupModal(new App(), h);
	modal.open();
	const el = modal.contentEl;
	const button = (label: string) => [...el.querySelectorAll("button")].find((b) => b.textContent === label);
	const settle = () => new Promise((r) => setTimeout(r, 0));
	return { modal, el, calls, button, settle };
}

describe("SetupModal", () => {
	it("says why it opened and where everything goes, and offers install when nothing is installed", () => {
		const { el, button, modal } = host(false, { ok: true, version: "0.1.0" });
		expect(el.textContent).toContain("No ora command was found.");
		expect(el.textContent).toContain("no Python is needed on this computer");
		expect(el.textContent).toContain("into /home/u/.local/share/ora-vault, shared by every vault");
		expect(button("Install")).toBeDefined();
		expect(button("Remove")).toBeUndefined();
		expect(button("Repair")).toBeUndefined();
		modal.close();
	});

	it("installs from the wheel typed in, shows the step and the log, then saves the command", async () => {
		const { el, button, calls, settle, modal } = host(false, { ok: true, version: "0.1.0" });
		const input = el.querySelector("input") as HTMLInputElement;
		input.value = " /tmp/ora_vault_sidecar-0.1.0-py3-none-any.whl ";
		button("Install")!.click();
		await settle();
		expect(calls).toEqual(["stop", `install {"kind":"wheel","path":"/tmp/ora_vault_sidecar-0.1.0-py3-none-any.whl"}`, "installed"]);
		expect(el.querySelector(".ora-setup-log")!.textContent).toBe("Successfully installed ora-vault-sidecar-0.1.0\n");
		expect(el.querySelector(".ora-setup-result")!.textContent).toBe("Done: ora 0.1.0 is ready.");
		expect(button("Upgrade")).toBeDefined();
		modal.close();
	});

	it("installs from the package index when no wheel is given, and shows a failure's message", async () => {
		const { el, button, calls, settle, modal } = host(false, { ok: false, message: "No Python found. Install Python 3.11 or newer…" });
		button("Install")!.click();
		await settle();
		expect(calls).toEqual(["stop", `install {"kind":"index"}`]);
		const result = el.querySelector(".ora-setup-result")!;
		expect(result.textContent).toContain("No Python found.");
		expect(result.classList.contains("ora-error")).toBe(true);
		expect(button("Install")).toBeDefined();
		modal.close();
	});

	it("stops the sidecar before an upgrade", async () => {
		const { button, calls, settle, modal } = host(true, { ok: true, version: "0.1.1" });
		button("Upgrade")!.click();
		await settle();
		expect(calls).toEqual(["stop", `upgrade {"kind":"index"}`, "installed"]);
		modal.close();
	});

	it("replaces or removes the sidecar's files only once the stopped sidecar has exited", async () => {
		for (const action of ["Upgrade", "Remove"]) {
			const { button, calls, modal } = host(true, { ok: true, version: "0.1.1" });
			let exited!: () => void;
			(modal as unknown as { host: SetupHost }).host.stopSidecar = () => {
				calls.push("stop");
				// The process still runs (its files open) until it has finished shutting down.
				return new Promise<void>((ok) => (exited = () => (calls.push("exited"), ok())));
			};
			button(action)!.click();
			await new Promise((r) => setTimeout(r, 20));
			expect(calls.filter((c) => !c.startsWith("confirm"))).toEqual(["stop"]);
			exited();
			await new Promise((r) => setTimeout(r, 0));
			expect(calls.filter((c) => !c.startsWith("confirm")).slice(0, 3)).toEqual(["stop", "exited", action === "Upgrade" ? `upgrade {"kind":"index"}` : "remove"]);
			modal.close();
		}
	});

	it("removes only after confirmation", async () => {
		const declined = host(true, { ok: true, version: "" }, false);
		declined.button("Remove")!.click();
		await declined.settle();
		expect(declined.calls).toEqual(["confirm Remove the sidecar?"]);
		declined.modal.close();

		const { button, calls, settle, el, modal } = host(true, { ok: true, version: "" });
		button("Remove")!.click();
		await settle();
		expect(calls).toEqual(["confirm Remove the sidecar?", "stop", "remove", "removed"]);
		expect(el.querySelector(".ora-setup-result")!.textContent).toBe("Done: the sidecar is removed.");
		expect(button("Install")).toBeDefined();
		modal.close();
	});

	it("fills the wheel field from the file dialog", () => {
		const { el, button, modal } = host(false, { ok: true, version: "0.1.0" });
		button("Choose…")!.click();
		const picker = el.querySelector('input[type="file"]') as HTMLInputElement;
		expect(picker.accept).toBe(".whl");
		const file = Object.assign(new File(["wheel"], "ora_vault_sidecar-0.1.0-py3-none-any.whl"), { path: "/dl/ora_vault_sidecar-0.1.0-py3-none-any.whl" });
		Object.defineProperty(picker, "files", { value: [file] });
		picker.dispatchEvent(new Event("change"));
		expect((el.querySelector('input[type="text"]') as HTMLInputElement).value).toBe("/dl/ora_vault_sidecar-0.1.0-py3-none-any.whl");
		expect(el.querySelector('input[type="file"]')).toBeNull();
		modal.close();
	});

	it("offers Install, Repair and Remove after an interrupted set-up, and no Upgrade", async () => {
		const { button, calls, settle, modal, el } = host("partial", { ok: true, version: "0.1.0" });
		expect(el.textContent).toContain("An earlier set-up did not finish.");
		expect(["Install", "Repair", "Remove"].every((label) => button(label))).toBe(true);
		expect(button("Upgrade")).toBeUndefined();
		button("Repair")!.click();
		await settle();
		expect(calls).toEqual(["stop", `repair {"kind":"index"}`, "installed"]);
		expect(button("Upgrade")).toBeDefined();
		modal.close();
	});

	it("shows a Cancel button and download progress while an operation runs", async () => {
		const { el, button, calls, modal } = host(false, { ok: true, version: "0.1.0" });
		let finish!: (o: SetupOutcome) => void;
		(modal as unknown as { host: SetupHost }).host.installer.install = (_source, listener) => {
			listener?.({ kind: "step", index: 1, total: 5, title: "Fetching uv 0.13.9" });
			listener?.({ kind: "progress", received: 5, total: 20 });
			return new Promise((r) => (finish = r));
		};
		button("Install")!.click();
		await new Promise((r) => setTimeout(r, 0));
		const progress = el.querySelector("progress")!;
		expect(progress.classList.contains("ora-hidden")).toBe(false);
		expect([progress.value, progress.max]).toEqual([5, 20]);
		expect(el.querySelector(".ora-setup-step")!.textContent).toBe("Step 1 of 5: Fetching uv 0.13.9…");
		button("Cancel")!.click();
		expect(calls).toContain("cancel");
		finish({ ok: false, cancelled: true, message: "Cancelled." });
		await new Promise((r) => setTimeout(r, 0));
		expect(el.querySelector(".ora-setup-result")!.textContent).toBe("Cancelled.");
		expect(button("Cancel")).toBeUndefined();
		expect(calls).not.toContain("installed");
		modal.close();
	});

	it("starts the installed sidecar even when only its model build failed", async () => {
		const { button, calls, settle, modal } = host("partial", { ok: false, message: "The sidecar 0.1.0 is installed, but the embedding model could not be built" });
		(modal as unknown as { host: SetupHost }).host.installer.state = () => "installed";
		button("Install")!.click();
		await settle();
		expect(calls).toEqual(["stop", `install {"kind":"index"}`, "installed"]);
		modal.close();
	});
});
