import { App } from "obsidian";
import { describe, expect, it } from "vitest";

import type { PackageSource, SetupListener, SetupOutcome } from "../../src/setup/installer";
import { managedPaths } from "../../src/setup/paths";
import { SetupModal, type SetupHost } from "../../src/ui/setup-modal";

/** A host whose installer replays a scripted run (the real one is tested in tests/setup). */
function host(installedAtStart: boolean, outcome: SetupOutcome, answer = true) {
	const calls: string[] = [];
	let installed = installedAtStart;
	const script = async (what: string, listener?: SetupListener): Promise<SetupOutcome> => {
		calls.push(what);
		listener?.({ kind: "step", index: 1, total: 2, title: "Installing the sidecar with pip" });
		listener?.({ kind: "line", line: "Successfully installed ora-vault-sidecar-0.1.0" });
		if (outcome.ok) installed = what !== "remove";
		return outcome;
	};
	const h: SetupHost = {
		installer: {
			paths: managedPaths("/v/cfg/plugins/ora-vault", "linux"),
			running: false,
			installed: () => installed,
			install: (source: PackageSource, l) => script(`install ${JSON.stringify(source)}`, l),
			upgrade: (source: PackageSource, l) => script(`upgrade ${JSON.stringify(source)}`, l),
			remove: (l) => script("remove", l),
		},
		reason: "No ora command was found.",
		stopSidecar: async () => void calls.push("stop"),
		installed: async (command) => void calls.push(`installed ${command}`),
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
		const { el, button, modal } = host(false, { ok: true, oraCommand: "/x/ora", version: "0.1.0" });
		expect(el.textContent).toContain("No ora command was found.");
		expect(el.textContent).toContain("/v/cfg/plugins/ora-vault/venv");
		expect(button("Install")).toBeDefined();
		expect(button("Remove")).toBeUndefined();
		modal.close();
	});

	it("installs from the wheel typed in, shows the step and the log, then saves the command", async () => {
		const { el, button, calls, settle, modal } = host(false, { ok: true, oraCommand: "/x/ora", version: "0.1.0" });
		const input = el.querySelector("input") as HTMLInputElement;
		input.value = " /tmp/ora_vault_sidecar-0.1.0-py3-none-any.whl ";
		button("Install")!.click();
		await settle();
		expect(calls).toEqual([`install {"kind":"wheel","path":"/tmp/ora_vault_sidecar-0.1.0-py3-none-any.whl"}`, "installed /x/ora"]);
		expect(el.querySelector(".ora-setup-log")!.textContent).toBe("Successfully installed ora-vault-sidecar-0.1.0\n");
		expect(el.querySelector(".ora-setup-result")!.textContent).toBe("Done: ora 0.1.0 is ready.");
		expect(button("Upgrade")).toBeDefined();
		modal.close();
	});

	it("installs from the package index when no wheel is given, and shows a failure's message", async () => {
		const { el, button, calls, settle, modal } = host(false, { ok: false, message: "No Python found. Install Python 3.11 or newer…" });
		button("Install")!.click();
		await settle();
		expect(calls).toEqual([`install {"kind":"index"}`]);
		const result = el.querySelector(".ora-setup-result")!;
		expect(result.textContent).toContain("No Python found.");
		expect(result.classList.contains("ora-error")).toBe(true);
		expect(button("Install")).toBeDefined();
		modal.close();
	});

	it("stops the sidecar before an upgrade", async () => {
		const { button, calls, settle, modal } = host(true, { ok: true, oraCommand: "/x/ora", version: "0.1.1" });
		button("Upgrade")!.click();
		await settle();
		expect(calls).toEqual(["stop", `upgrade {"kind":"index"}`, "installed /x/ora"]);
		modal.close();
	});

	it("replaces or removes the sidecar's files only once the stopped sidecar has exited", async () => {
		for (const action of ["Upgrade", "Remove"]) {
			const { button, calls, modal } = host(true, { ok: true, oraCommand: "/x/ora", version: "0.1.1" });
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
		const declined = host(true, { ok: true, oraCommand: "", version: "" }, false);
		declined.button("Remove")!.click();
		await declined.settle();
		expect(declined.calls).toEqual(["confirm Remove the sidecar?"]);
		declined.modal.close();

		const { button, calls, settle, el, modal } = host(true, { ok: true, oraCommand: "", version: "" });
		button("Remove")!.click();
		await settle();
		expect(calls).toEqual(["confirm Remove the sidecar?", "stop", "remove", "removed"]);
		expect(el.querySelector(".ora-setup-result")!.textContent).toBe("Done: the sidecar is removed.");
		expect(button("Install")).toBeDefined();
		modal.close();
	});

	it("fills the wheel field from the file dialog", () => {
		const { el, button, modal } = host(false, { ok: true, oraCommand: "/x/ora", version: "0.1.0" });
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
});
