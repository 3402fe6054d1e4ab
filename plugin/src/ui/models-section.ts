import { Setting } from "obsidian";

import type { ModelsController, ModelsState } from "../models/controller";
import type { ModelsReport } from "../api/types";
import {
	canSwitchToFastest,
	canSwitchToPackaged,
	embedderInUse,
	embedderLabel,
	englishEmbedderToUse,
	FASTEST_PACKAGED,
	modelRows,
	multilingualToOffer,
	PACKAGED_EMBEDDER,
	pullFraction,
	pullText,
	type ModelRow,
} from "../models/model";
import { drawLanguageOffer } from "./language-offer";

/**
 * Draws the Models section into `el` from the controller's state, again on every change, until
 * the returned function is called (the settings tab is hidden). Buttons only call the controller.
 */
export function showModels(el: HTMLElement, controller: ModelsController): () => void {
	const draw = (state: ModelsState): void => drawModels(el, state, controller);
	const stop = controller.subscribe(draw);
	draw(controller.state);
	void controller.refresh();
	void controller.refreshOffer();
	return stop;
}

function drawModels(el: HTMLElement, state: ModelsState, controller: ModelsController): void {
	el.empty();
	if (state.error !== null) {
		el.createDiv({ cls: "ora-models-error", text: state.error });
		return;
	}
	const report = state.report;
	if (report === null) {
		el.createDiv({ cls: "ora-models-note", text: "Loading the models…" });
		return;
	}
	const inUse = new Setting(el).setName(embedderInUse(report));
	if (state.switching !== null) inUse.setDesc(`Restarting the sidecar with ${state.switching}…`);
	else drawSwitches(inUse, report, state, controller);
	if (state.notice !== null) el.createDiv({ cls: "ora-models-note", text: state.notice });
	drawLanguageOffer(el.createDiv(), state, controller);
	for (const row of modelRows(report)) drawRow(el, row, state, controller);
}

/**
 * The in-use row's switches: back to the packaged embedder from a pulled one, its faster variant,
 * back to English from the packaged multilingual embedder, or to it once built (unless the language
 * offer below shows that switch). Each is the usual confirmed switch.
 */
function drawSwitches(inUse: Setting, report: ModelsReport, state: ModelsState, controller: ModelsController): void {
	const notes: string[] = [];
	const offer = (text: string, name: string, label: string): void => {
		inUse.addButton((b) => {
			b.setButtonText(text).onClick(() => void controller.switchTo(name, label));
			if (controller.downloading) b.setDisabled(true);
		});
	};
	if (canSwitchToPackaged(report)) offer("Use the packaged embedder", PACKAGED_EMBEDDER, "the packaged all-MiniLM-L6-v2");
	else if (canSwitchToFastest(report)) {
		notes.push("Its int8 variant (q8) indexes about 1.5 times as fast with the same search quality.");
		offer("Use the faster variant", FASTEST_PACKAGED, embedderLabel(report, FASTEST_PACKAGED));
	}
	const english = englishEmbedderToUse(report);
	if (english !== null) {
		notes.push("For a vault written in English, the packaged English embedder (all-MiniLM-L6-v2) is the default.");
		offer("Use the English embedder", english, embedderLabel(report, english));
	}
	const multilingual = multilingualToOffer(report, state.offer);
	if (multilingual !== null) {
		const about = report.embedder.multilingual.about.trim().replace(/\.$/, "");
		notes.push(`For notes in several languages, the multilingual embedder that comes with Ora is built (${about}).`);
		offer("Use the multilingual embedder", multilingual, embedderLabel(report, multilingual));
	}
	if (notes.length) inUse.setDesc(`${notes.join(" ")} Switching re-embeds the index once.`);
}

function drawRow(el: HTMLElement, row: ModelRow, state: ModelsState, controller: ModelsController): void {
	const setting = new Setting(el).setName(row.name).setDesc(`${row.summary}. ${row.about}`);
	setting.settingEl.addClass("ora-model");
	const pull = state.pulls.get(row.name);
	const running = pull?.phase === "downloading";
	if (pull !== undefined) {
		const box = setting.settingEl.createDiv({ cls: "ora-model-pull" });
		const fraction = pullFraction(pull);
		if (running) {
			const bar = box.createEl("progress", { cls: "ora-model-progress" });
			bar.max = 1;
			if (fraction !== null) bar.value = fraction; // without a value the bar is indeterminate
		}
		box.createDiv({ cls: pull.phase === "failed" ? "ora-models-error" : "ora-models-note", text: pullText(pull) });
	}
	if (running) {
		setting.addButton((b) => b.setButtonText("Cancel").onClick(() => controller.cancel(row.name)));
	} else if (!row.installed) {
		setting.addButton((b) => {
			b.setButtonText(pull?.phase === "failed" || pull?.phase === "cancelled" ? "Download again" : "Download").onClick(() => void controller.download(row.name));
			if (controller.downloading || state.switching !== null) b.setDisabled(true);
		});
	}
	if (row.switchable) {
		setting.addButton((b) => {
			b.setButtonText("Use").onClick(() => void controller.switchTo(row.name, row.name));
			if (state.switching !== null || controller.downloading) b.setDisabled(true);
		});
	}
}
