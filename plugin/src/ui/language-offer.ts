import { Setting } from "obsidian";

import type { ModelsController, ModelsState } from "../models/controller";
import { pullFraction, pullText } from "../models/model";
import { languageOffer } from "../models/offer";

/** What the offer's button needs: the onboarding guide and the Models section both pass the controller. */
export type OfferActions = Pick<ModelsController, "downloading" | "downloadAndUse" | "cancel">;

/**
 * Draws the multilingual model offer into `el` (emptied first) for a vault mostly not in English:
 * what it costs, one button that downloads a catalogue model with progress (a packaged one is
 * there already) and then switches.
 * Draws nothing for an English vault, or while the sidecar has not said.
 */
export function drawLanguageOffer(el: HTMLElement, state: ModelsState, actions: OfferActions): void {
	el.empty();
	const offer = languageOffer(state.offer);
	if (offer === null) return;
	const setting = new Setting(el).setName(offer.title).setDesc(offer.text);
	setting.settingEl.addClass("ora-language-offer");
	const pull = state.pulls.get(offer.model);
	if (pull?.phase === "downloading") {
		const box = setting.settingEl.createDiv({ cls: "ora-model-pull" });
		const bar = box.createEl("progress", { cls: "ora-model-progress" });
		bar.max = 1;
		const fraction = pullFraction(pull);
		if (fraction !== null) bar.value = fraction;
		box.createDiv({ cls: "ora-models-note", text: pullText(pull) });
		setting.addButton((b) => b.setButtonText("Cancel").onClick(() => actions.cancel(offer.model)));
		return;
	}
	if (pull?.phase === "failed" || pull?.phase === "cancelled") {
		setting.settingEl.createDiv({ cls: pull.phase === "failed" ? "ora-models-error" : "ora-models-note", text: pullText(pull) });
	}
	if (state.switching === offer.model) {
		setting.settingEl.createDiv({ cls: "ora-models-note", text: `Restarting the sidecar with ${offer.model}…` });
		return;
	}
	setting.addButton((b) => {
		b.setButtonText(offer.button)
			.setCta()
			.onClick(() => void actions.downloadAndUse(offer.model, offer.model));
		if (actions.downloading || state.switching !== null) b.setDisabled(true);
	});
}
