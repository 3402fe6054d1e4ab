// What onboarding and the Models section offer a vault mostly not in English: the multilingual
// embedder the sidecar suggests (GET /v1/models/suggestion), with what taking it costs: a download
// for a catalogue model, nothing for the one that comes with Ora; re-embedding the index for both.
import type { EmbedderSuggestion, ModelsSuggestion } from "../api/types";
import { formatBytes, formatDuration } from "./model";

/** The offer as the user reads it; null when there is nothing to offer (an English vault). */
export interface LanguageOffer {
	model: string;
	/** "Download the multilingual model (487 MB, re-embedding takes about 4 min)" */
	title: string;
	text: string;
	/** The offer's button: "Download and switch" for a catalogue model not pulled yet, else "Use it". */
	button: string;
}

/** "Spanish 75%, English 25%": the vault's languages, largest first, by their English names. */
export function languageMix(languages: Record<string, number>): string {
	const names = new Intl.DisplayNames(["en"], { type: "language" });
	const name = (code: string): string => {
		try {
			return names.of(code) ?? code;
		} catch {
			return code; // not a language tag Intl knows
		}
	};
	return Object.entries(languages)
		.sort((a, b) => b[1] - a[1])
		.slice(0, 3)
		.map(([code, share]) => `${name(code)} ${Math.round(share * 100)}%`)
		.join(", ");
}

export function languageOffer(found: ModelsSuggestion | null): LanguageOffer | null {
	const s = found?.suggestion;
	if (!found || !s) return null;
	const download = !s.packaged && !s.installed;
	const cost: string[] = [];
	if (download && s.download_mb !== null) cost.push(formatBytes(s.download_mb * 1_000_000));
	if (s.chunks > 0) cost.push(`re-embedding takes ${formatDuration(s.estimate_s)}`);
	const costText = cost.length ? ` (${cost.join(", ")})` : "";
	const about = s.about.trim();
	const described = about === "" ? "." : `: ${about}${about.endsWith(".") ? "" : "."}`;
	const reembed =
		s.chunks > 0
			? ` Switching re-embeds the index's ${s.chunks.toLocaleString("en-US")} chunks once, in the background; search keeps working meanwhile.`
			: "";
	return {
		model: s.model,
		title: `${download ? "Download" : "Use"} the multilingual model${costText}`,
		text:
			`Most notes of this vault are not in English (${languageMix(found.languages)}), and the embedder in use knows English only. ` +
			`Ora suggests ${s.model}${described}${reembed} ${whereFrom(s)}`,
		button: download ? "Download and switch" : "Use it",
	};
}

/** Where the model comes from, and whether it is there yet. */
function whereFrom(s: EmbedderSuggestion): string {
	if (s.packaged) {
		return s.installed
			? "It comes with Ora: nothing is downloaded."
			: "It comes with Ora, so nothing is downloaded, but it is not built yet: restart the sidecar, which builds it, or run `ora models build`.";
	}
	return s.installed ? "It is downloaded already." : "It comes from the Hugging Face hub, checksum-verified; Ora asks before switching.";
}
