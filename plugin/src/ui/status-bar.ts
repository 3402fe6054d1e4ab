import { Notice, setTooltip } from "obsidian";

import type { StatusView } from "../sidecar/status-model";

/** Draws the status bar item: a phase label and, when pairs are open, a count badge. */
export function renderStatus(el: HTMLElement, view: StatusView): void {
	el.empty();
	el.addClass("ora-status");
	el.setAttr("data-phase", view.phase);
	el.createSpan({ cls: `ora-status-text ora-status-${view.phase}`, text: view.text });
	if (view.openPairs > 0) {
		const badge = el.createSpan({ cls: "ora-status-badge", text: String(view.openPairs) });
		setTooltip(badge, `${view.openPairs} open ${view.openPairs === 1 ? "contradiction" : "contradictions"}: click to triage`);
	}
	setTooltip(el, view.detail, { placement: "top" });
}

/**
 * Says that the sidecar stopped answering (the status bar alone is easy to miss), with the way out
 * the status bar offers as a link: restart it, or read which process holds its port and how to stop it.
 */
export function noticeNotResponding(view: StatusView, act: () => void): void {
	const fragment = createFragment((f) => {
		f.appendText("Ora's sidecar is not responding. ");
		f.createEl("a", { text: view.action === "restart" ? "Restart it" : "Show details", href: "#" }, (a) =>
			a.addEventListener("click", (evt) => {
				evt.preventDefault();
				act();
			}),
		);
	});
	new Notice(fragment, 15_000);
}
