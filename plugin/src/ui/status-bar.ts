import { setTooltip } from "obsidian";

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
