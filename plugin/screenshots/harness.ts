// Screenshot harness: the plugin's real view code, bundled against the test stand-in for
// `obsidian`, fed with answers shaped like a real `ora serve` (docs/http-api.md).
// location.hash picks the scene: #search, #lint, #triage, #related, #quick, #ask, #lintfix, #models, #extract, #onboarding, #onboarding-models, #ask-stream or #triage-pages.
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { App, WorkspaceLeaf, type Plugin } from "obsidian";

import { aFile, aLeaf } from "../tests/stand-in";

import { SidecarClient } from "../src/api/client";
import type { HttpRequest, HttpResponse, HttpTransport } from "../src/api/transport";
import type { AskDocument, Diagnostic, ExtractPlan, ModelsReport, ModelsSuggestion, Pair, PulledModel, PullProgress, RelatedDocument, SearchDocument } from "../src/api/types";
import { frontmatterLinter } from "../src/lint/extension";
import { ModelsController } from "../src/models/controller";
import { mergeSettings } from "../src/settings";
import { StatusModel } from "../src/sidecar/status-model";
import { AskView } from "../src/ui/ask-view";
import { ExtractModal } from "../src/ui/extract-modal";
import { QuickSearchModal } from "../src/ui/quick-search-modal";
import { RelatedView } from "../src/ui/related-view";
import { SearchView } from "../src/ui/search-view";
import { OraSettingTab } from "../src/ui/settings-tab";
import { renderStatus } from "../src/ui/status-bar";
import { TriageModal } from "../src/ui/triage-modal";
import { OnboardingModal, type OnboardingHost } from "../src/ui/onboarding-modal";

const why = (dense: number | null, bm25: number | null, sim: number, weight: number, decay: number, newer = 0) => ({
	dense_rank: dense, bm25_rank: bm25, fused: 0.0325, rerank: null, similarity: sim, type_weight: weight, decay, cluster: null, newer_in_cluster: newer,
});

const SEARCH: SearchDocument = {
	query: "caffeine deep sleep",
	namespace: "default",
	rerank: "none",
	rerank_reason: "no local cross-encoder",
	results: [
		{
			path: "Engrams/Caffeine after 2 pm reduces deep sleep.md", title: "Caffeine after 2 pm reduces deep sleep", type: "engram",
			score: 0.94, flags: [], private: false, heading_path: ["Caffeine after 2 pm reduces deep sleep"], line_start: 18, line_end: 23,
			text: "Caffeine taken after 2 pm measurably reduces deep sleep, even in people who fall asleep without trouble. Caffeine's half-life is five to six hours, so 200 mg at 3 pm still leaves about 100 mg in the body at 9 pm.",
			why: why(1, 1, 0.94, 1.0, 1.0),
		},
		{
			path: "Engrams/Caffeine after 2 pm reduces deep sleep.md", title: "Caffeine after 2 pm reduces deep sleep", type: "engram",
			score: 0.58, flags: [], private: false, heading_path: ["Caffeine after 2 pm reduces deep sleep", "Evidence"], line_start: 25, line_end: 30,
			text: "## Evidence\n\nIn a **two-week** self-experiment, deep sleep was 12 percent lower after an afternoon coffee.",
			why: why(4, 3, 0.58, 1.0, 1.0),
		},
		{
			path: "Transcripts/2024-03-20 Sleep podcast.md", title: "2024-03-20 Sleep podcast", type: "transcript",
			score: 0.52, flags: ["incubating"], private: false, heading_path: ["Sleep podcast", "Caffeine"], line_start: 40, line_end: 52,
			text: "…and the surprising part is how little people notice: deep sleep drops after an afternoon coffee even when they report sleeping fine.",
			why: why(3, 2, 0.74, 0.7, 1.0),
		},
		{
			path: "Chats/Evening routine.md", title: "Evening routine", type: "chat",
			score: 0.31, flags: [], private: true, heading_path: ["Evening routine"], line_start: 9, line_end: 15,
			text: "I asked whether decaf in the evening still affects sleep; the answer was that decaf carries a few mg of caffeine, usually too little to matter.",
			why: why(2, null, 0.62, 0.6, 0.85, 1),
		},
	],
};

const RELATED: RelatedDocument = {
	path: "Engrams/Caffeine after 2 pm reduces deep sleep.md",
	namespace: "default",
	results: [
		{
			path: "Engrams/Caffeine after 2 pm does not affect sleep quality.md", title: "Caffeine after 2 pm does not affect sleep quality", type: "engram",
			score: 0.86, flags: [], private: false, heading_path: ["Caffeine after 2 pm does not affect sleep quality"], line_start: 14, line_end: 17,
			text: "Coffee in the afternoon does not change how well I sleep. During a two-week self-experiment my tracker's sleep score averaged 83 on coffee days.",
			why: { ...why(1, null, 0.86, 1.0, 1.0), linked: true },
		},
		{
			path: "Resources/Adenosine and sleep pressure.md", title: "Adenosine and sleep pressure", type: "resource",
			score: 0.61, flags: [], private: false, heading_path: ["Adenosine and sleep pressure", "Caffeine"], line_start: 31, line_end: 38,
			text: "Caffeine blocks adenosine receptors, masking the sleep pressure that builds during the day; the effect lasts as long as caffeine circulates.",
			why: why(2, null, 0.76, 0.8, 1.0),
		},
		{
			path: "Chats/Evening routine.md", title: "Evening routine", type: "chat",
			score: 0.4, flags: ["incubating"], private: false, heading_path: ["Evening routine"], line_start: 9, line_end: 15,
			text: "I asked whether decaf in the evening still affects sleep; the answer was that decaf carries a few mg of caffeine.",
			why: why(3, null, 0.67, 0.6, 1.0),
		},
	],
};

const ANSWER: AskDocument = {
	question: "Does an afternoon coffee hurt my sleep?",
	answer: "Probably yes, though you may not notice it: caffeine after 2 pm measurably reduces deep sleep [1], because its half-life of five to six hours keeps it blocking adenosine well into the night [2]. Your own two-week experiment found no change in the tracker's sleep score [3], which measures sleep quality rather than deep sleep.",
	generator: "llm:llama3.2",
	conversation: "ask-20260301T090000-k3c1",
	citations: [
		{ n: 1, path: "Engrams/Caffeine after 2 pm reduces deep sleep.md", title: "Caffeine after 2 pm reduces deep sleep", line_start: 18, line_end: 23, text: "…", private: false, cited: true },
		{ n: 2, path: "Resources/Adenosine and sleep pressure.md", title: "Adenosine and sleep pressure", line_start: 31, line_end: 38, text: "…", private: false, cited: true },
		{ n: 3, path: "Engrams/Caffeine after 2 pm does not affect sleep quality.md", title: "Caffeine after 2 pm does not affect sleep quality", line_start: 14, line_end: 17, text: "…", private: false, cited: true },
	],
};

// Pairs as the sidecar reports them (docs/http-api.md, Pair): the judge's own evidence keys.
const PAIRS: Pair[] = [
	{
		id: "c7f1", kind: "engram", judge: "rules", score: 0.93, status: "open",
		a: { path: "Engrams/Caffeine after 2 pm does not affect sleep quality.md", line_start: 14, line_end: 17, text: "Coffee in the afternoon does not change how well I sleep. During a two-week self-experiment my tracker's sleep score averaged 83 on coffee days and 82 on the other days." },
		b: { path: "Engrams/Caffeine after 2 pm reduces deep sleep.md", line_start: 18, line_end: 22, text: "Caffeine taken after 2 pm measurably reduces deep sleep, even in people who fall asleep without trouble. Deep sleep was 12 percent lower after an afternoon coffee." },
		evidence: {
			cue: "negation", overlap: 0.71, negations: ["not"], fallback: "rules",
			judge_error: "the language model at http://127.0.0.1:8080/v1/chat/completions did not answer within 30.0 s",
			note_similarity: 0.81, claim_similarity: 0.74, dates: ["2023-11-02", "2024-05-19"], ai_derived: [false, false],
		},
	},
	{
		id: "n204", kind: "news", judge: "news-sweep", score: 0.78, status: "open", batch: "news-3b1f0a9c2d4e",
		a: { path: "Web/2023-06 Library opening hours.md", line_start: 8, line_end: 8, text: "The city library is open until 8 pm on weekdays." },
		b: { path: "Web/2024-02 Library opening hours.md", line_start: 8, line_end: 8, text: "From March the city library closes at 6 pm on weekdays." },
		evidence: { proposal: "b supersedes a", similarity: 0.78, dates: ["2023-06-12", "2024-02-20"], titles: ["2023-06 Library opening hours", "2024-02 Library opening hours"] },
	},
];

const NOTE = `---
nexus:
  - "[[Sleep and Energy]]"
type: engramm
subtype: causal_claim
tags:
  - atomic
  - sleep
date created: 2024-03-21
date modified: 2024-02-30
---
# Caffeine after 2 pm reduces deep sleep

Caffeine taken after 2 pm measurably reduces deep sleep, even in
people who fall asleep without trouble.
`;

const DIAGNOSTICS: Diagnostic[] = [
	{ path: "Engrams/Caffeine.md", line: 4, severity: "error", code: "unknown-type", message: "type 'engramm' is not a known type; did you mean 'engram'?" },
	{ path: "Engrams/Caffeine.md", line: 10, severity: "warning", code: "invalid-date", message: "date modified '2024-02-30' is not a calendar date (YYYY-MM-DD)" },
];

// Engrams proposed from the Ask conversation above (docs/http-api.md, POST /v1/extract).
const CHAT = "Chats/Ora/ask-20260301T090000-k3c1.md";
const EXTRACT: ExtractPlan = {
	extractor: "llm:llama3.2",
	proposals: [
		{
			id: "e1", title: "Caffeine's half-life is five to six hours", ai_derived: true, subtype: "fact", nexus: ["[[Sleep and Energy]]"],
			text: "Caffeine's half-life is five to six hours, so a coffee at 3 pm still leaves about half its caffeine at 9 pm.",
			source: { path: CHAT, line_start: 14, line_end: 16 }, contradicts: [],
		},
		{
			id: "e2", title: "My sleep tracker measures quality, not deep sleep", ai_derived: false, subtype: "observation", nexus: ["[[Sleep and Energy]]"],
			text: "My tracker's sleep score measures overall sleep quality; it does not show how much deep sleep I get.",
			source: { path: CHAT, line_start: 20, line_end: 20 }, contradicts: [],
		},
		{
			id: "e3", title: "An afternoon coffee does not hurt my sleep", ai_derived: false, subtype: "causal_claim", nexus: ["[[Sleep and Energy]]"],
			text: "An afternoon coffee does not hurt my sleep: I feel rested the next morning either way.",
			source: { path: CHAT, line_start: 24, line_end: 25 }, contradicts: ["Engrams/Caffeine after 2 pm reduces deep sleep.md"],
		},
	],
	dropped: [
		{ text: "Decaf contains no caffeine at all.", reason: "pushback" },
		{ text: "Caffeine taken after 2 pm reduces deep sleep.", reason: "duplicate", of: "Engrams/Caffeine after 2 pm reduces deep sleep.md" },
		{ text: "Does an afternoon coffee hurt my sleep?", reason: "not-a-claim" },
	],
};

/** Answers each route from the fixtures above, as the real sidecar would. */
class FixtureTransport implements HttpTransport {
	async request(req: HttpRequest): Promise<HttpResponse> {
		const path = new URL(req.url).pathname;
		const bodies: Record<string, unknown> = {
			"/v1/search": SEARCH,
			"/v1/contradictions": { pairs: PAIRS },
			"/v1/related": RELATED,
			"/v1/ask": ANSWER,
			"/v1/extract": EXTRACT,
		};
		const body = bodies[path] ?? { diagnostics: DIAGNOSTICS };
		return { status: 200, text: JSON.stringify(body) };
	}
}

const client = new SidecarClient(new FixtureTransport(), { baseUrl: "http://127.0.0.1:47113", token: () => "token" });

async function searchScene(root: HTMLElement): Promise<void> {
	const sidebar = root.createDiv({ cls: "harness-sidebar" });
	sidebar.createDiv({ cls: "harness-tab", text: "Ora search" });
	const view = new SearchView(new WorkspaceLeaf(), { client: () => client, delayMs: 0, k: 10, open: async () => undefined });
	sidebar.appendChild(view.containerEl);
	await view.onOpen();
	// Private mode on: the fixture's last result is a private chat, shown only in private mode.
	await view.setState({ query: `${SEARCH.query} tag:sleep`, private: true }, { history: false });
	const input = view.contentEl.querySelector("input.ora-search-input") as HTMLInputElement;
	input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
	view.contentEl.querySelector<HTMLElement>(".ora-fold")?.click();
	// Obsidian draws tooltips as a floating .tooltip element; show the first "why" one.
	const info = view.contentEl.querySelector(".ora-why");
	const tip = root.createDiv({ cls: "tooltip mod-left harness-tooltip", text: info?.getAttribute("aria-label") ?? "" });
	const box = info?.getBoundingClientRect();
	if (box) {
		tip.setAttr("data-top", String(box.top));
		tip.addClass("harness-placed");
		tip.setCssProps({ "--harness-top": `${box.top - 8}px`, "--harness-left": `${box.left - 250}px` });
	}
	const status = root.createDiv({ cls: "status-bar" });
	const item = status.createDiv({ cls: "status-bar-item" });
	renderStatus(item, StatusModel.initial().connected().fromStatus({
		vault: "/vault", pid: 4242, files: 214, chunks: 1630, queue: 0, indexing: false, reconcile: { running: false, phase: "done", done: 214, total: 214 },
		model: "all-MiniLM-L6-v2", reranker: { name: "none", reason: null }, contradictions_open: 2, last_error: null,
		cleaning: { running: false, phase: "done", done: 12, total: 12, scans: 3, last_finished: null, fallbacks: 0 },
	}).view);
}

async function lintScene(root: HTMLElement): Promise<void> {
	const pane = root.createDiv({ cls: "harness-editor markdown-source-view" });
	pane.createDiv({ cls: "harness-tab", text: "Caffeine after 2 pm reduces deep sleep" });
	new EditorView({
		parent: pane,
		state: EditorState.create({
			doc: NOTE,
			extensions: [frontmatterLinter({ pathOf: () => "Engrams/Caffeine.md", lint: (p, t) => client.lint(p, t) }, 0)],
		}),
	});
}

async function triageScene(root: HTMLElement): Promise<void> {
	root.addClass("harness-modal-scene");
	new TriageModal(new App(), { client, open: async () => undefined, onOpenCount: () => undefined }).open();
}

function sidebar(root: HTMLElement, tab: string): HTMLElement {
	root.addClass("harness-search");
	const bar = root.createDiv({ cls: "harness-sidebar" });
	bar.createDiv({ cls: "harness-tab", text: tab });
	return bar;
}

async function relatedScene(root: HTMLElement): Promise<void> {
	const { leaf, workspace } = aLeaf();
	const view = new RelatedView(leaf, { client: () => client, k: 10, open: async () => undefined, linkText: () => null, openDelayMs: 0 });
	sidebar(root, "Related notes").appendChild(view.containerEl);
	await view.onOpen();
	workspace.trigger("file-open", aFile(RELATED.path));
	await new Promise((ok) => setTimeout(ok, 50));
	view.contentEl.querySelector(".ora-result")?.addClass("is-selected");
}

async function quickScene(root: HTMLElement): Promise<void> {
	root.addClass("harness-modal-scene");
	const modal = new QuickSearchModal(new App(), {
		client: () => client, k: 10, delayMs: 0, privateMode: () => false,
		choose: async () => undefined, toPanel: async () => undefined,
	});
	modal.modalEl.addClass("prompt");
	modal.open();
	modal.inputEl.value = "caffeine deep sleep";
	modal.inputEl.dispatchEvent(new Event("input"));
	await new Promise((ok) => setTimeout(ok, 50));
}

async function askScene(root: HTMLElement): Promise<void> {
	const { leaf } = aLeaf();
	let conversations = [{ id: "ask-20260228T180000-a1b2", title: "What did I decide about evening screens?", updated: 1 }];
	const view = new AskView(leaf, {
		client: () => client, open: async () => undefined, conversations: () => conversations,
		saveConversations: async (list) => void (conversations = list), llmConfigured: () => true,
	});
	sidebar(root, "Ask Ora").appendChild(view.containerEl);
	await view.onOpen();
	await view.ask(ANSWER.question);
}

/** Ask with a Markdown answer, then a second answer still being written: its Stop button shown. */
async function askStreamScene(root: HTMLElement): Promise<void> {
	const { leaf } = aLeaf();
	const markdown: AskDocument = {
		...ANSWER,
		answer: "**Probably yes**, though you may not notice it:\n\n- caffeine after 2 pm measurably reduces deep sleep [1];\n- its half-life of five to six hours keeps it blocking adenosine well into the night [2].\n\nYour own two-week experiment found no change in the tracker's sleep score [3], which measures sleep quality rather than deep sleep.",
	};
	let asked = 0;
	const view = new AskView(leaf, {
		client: () => client,
		stream: async (request, onDelta) => {
			if (asked++ === 0) return { ...markdown, question: request.question };
			onDelta("Move the last coffee **before noon**: with a half-life of five to six hours, a noon coffee is down to a quarter by bedtime.\n\nKeep the tracker, but read its deep-sleep minutes");
			return new Promise<AskDocument>(() => undefined); // still being written
		},
		open: async () => undefined, conversations: () => [], saveConversations: async () => undefined,
		llmConfigured: () => true, webConfigured: () => true, insert: () => undefined,
	});
	sidebar(root, "Ask Ora").appendChild(view.containerEl);
	await view.onOpen();
	await view.ask(ANSWER.question);
	void view.ask("So when should I have my last coffee?");
	await new Promise((ok) => setTimeout(ok, 50));
}

/** Triage with many pairs: a page of 20, two ticked for a bulk dismissal, the second focused, the pager. */
async function triagePagesScene(root: HTMLElement): Promise<void> {
	root.addClass("harness-modal-scene");
	const many: Pair[] = Array.from({ length: 137 }, (_, i) => ({ ...(PAIRS[i % PAIRS.length] ?? PAIRS[0]!), id: `p${i}` }));
	const pages = new SidecarClient(
		{ request: async () => ({ status: 200, text: JSON.stringify({ pairs: many }) }) },
		{ baseUrl: "http://127.0.0.1:47113", token: () => "token" },
	);
	const modal = new TriageModal(new App(), { client: pages, open: async () => undefined, onOpenCount: () => undefined });
	modal.open();
	await new Promise((ok) => setTimeout(ok, 50));
	modal.contentEl.querySelector<HTMLButtonElement>(".ora-triage-next")?.click();
	for (const box of [...modal.contentEl.querySelectorAll<HTMLInputElement>(".ora-pair-select")].slice(0, 2)) box.click();
	(modal.scope as unknown as { handle(evt: KeyboardEvent): boolean }).handle(new KeyboardEvent("keydown", { key: "j" }));
	modal.modalEl.scrollTop = 0; // the title in view
}

async function lintFixScene(root: HTMLElement): Promise<void> {
	const pane = root.createDiv({ cls: "harness-editor markdown-source-view" });
	pane.createDiv({ cls: "harness-tab", text: "Caffeine after 2 pm reduces deep sleep" });
	const fixes = { dates: () => ({ "date created": "2024-03-21", "date modified": "2024-03-21" }), ignore: async () => undefined };
	new EditorView({
		parent: pane,
		state: EditorState.create({
			doc: NOTE,
			extensions: [frontmatterLinter({ pathOf: () => "Engrams/Caffeine.md", lint: (p, t) => client.lint(p, t), fixes }, 0)],
		}),
	});
}

const MODELS: ModelsReport = {
	models_dir: "/home/me/.local/share/ora-vault/models",
	embedder: {
		setting: "auto",
		chosen: "fp32",
		available: ["fp32", "int8"],
		multilingual: { name: "use-multilingual-v3", available: false, about: "Universal Sentence Encoder multilingual v3 by Google: 16 languages, 512 dimensions, 69M parameters", file: null, model_id: null },
	},
	catalogue: [
		{ name: "ms-marco-minilm-l6", kind: "reranker", repo: "cross-encoder/ms-marco-MiniLM-L-6-v2", about: "MS MARCO cross-encoder (MiniLM-L6, 22M parameters): re-ranks search results.", folder: "", installed: true, size: 91_614_234, download_mb: 91, active: true },
		{ name: "nli-deberta-v3-xsmall", kind: "nli", repo: "cross-encoder/nli-deberta-v3-xsmall", about: "NLI cross-encoder (DeBERTa-v3 xsmall): the contradiction judge.", folder: "", installed: false, size: null, download_mb: null, active: false },
		{ name: "bge-small-en-v1.5", kind: "embedder", repo: "BAAI/bge-small-en-v1.5", about: "BGE small English v1.5 (33M parameters, 384 dimensions): a stronger embedder.", folder: "", installed: false, size: null, download_mb: 134, active: false },
		{ name: "multilingual-e5-small", kind: "embedder", repo: "intfloat/multilingual-e5-small", about: "Multilingual E5 small (118M parameters, 384 dimensions, ~100 languages): for vaults not in English.", folder: "", installed: false, size: null, download_mb: 487, active: false },
	],
};

async function modelsScene(root: HTMLElement): Promise<void> {
	let progress: (p: PullProgress) => void = () => undefined;
	const models = new ModelsController({
		models: async () => MODELS,
		suggestion: async () => ({ languages: { en: 1 }, suggestion: null }),
		switchEstimate: async (name) => ({ name, from: "a", to: "b", chunks: 1562, estimate_s: 95, reembeds: true }),
		pull: (_name, onProgress) => {
			progress = onProgress;
			return new Promise<PulledModel>(() => undefined);
		},
		confirm: async () => false,
		switchEmbedder: async () => undefined,
	});
	const host = { settings: mergeSettings(null), saveSettings: async () => undefined, token: () => "t", tokenPath: () => "/v/.ora/token", reindex: async () => undefined, restartSidecar: async () => undefined, models };
	const tab = new OraSettingTab(new App(), {} as Plugin, host);
	tab.display();
	root.appendChild(tab.containerEl);
	await models.refresh();
	void models.download("bge-small-en-v1.5");
	progress({ file: "model.onnx", done: 49_400_000, total: 133_093_490 });
	tab.containerEl.querySelector(".ora-models-setting")?.scrollIntoView();
}

/** The review mid-way: one proposal accepted, one being edited, the contradicting one rejected, the dropped ones unfolded. */
async function extractScene(root: HTMLElement): Promise<void> {
	root.addClass("harness-modal-scene");
	const modal = new ExtractModal(new App(), { client, selector: { note: CHAT }, open: async () => undefined });
	modal.open();
	await new Promise((ok) => setTimeout(ok, 50));
	const press = (id: string, label: string) =>
		[...modal.contentEl.querySelectorAll<HTMLButtonElement>(`.ora-proposal[data-id="${id}"] button`)].find((b) => b.textContent === label)?.click();
	press("e1", "Accept");
	press("e3", "Reject");
	press("e2", "Edit");
	const text = modal.contentEl.querySelector<HTMLTextAreaElement>(".ora-proposal-text-input");
	if (text) text.value = "My tracker's sleep score measures overall sleep quality, not how much deep sleep I get.";
	modal.contentEl.querySelector("details")?.setAttr("open", true);
}

/** A mostly Spanish vault as GET /v1/models/suggestion reads it: the help vault in Spanish (1,923 chunks), offered the packaged multilingual embedder (an illustrative re-embedding time). */
const SPANISH: ModelsSuggestion = {
	languages: { es: 0.94, en: 0.06 },
	suggestion: {
		model: "use-multilingual-v3",
		about: "Universal Sentence Encoder multilingual v3 (Google; 16 languages, 512 dimensions, 69M parameters, 31 MB packaged): for vaults not in English, no download.",
		packaged: true,
		share_not_english: 0.94,
		download_mb: null,
		installed: true,
		chunks: 1923,
		estimate_s: 40,
	},
};

/**
 * The first-run guide: `page` 0 mid-install (step, download progress, log), 2 the re-ranker
 * downloading; `language` shows page 2 on a Spanish vault, the re-ranker installed, the multilingual offer.
 */
async function onboardingScene(root: HTMLElement, page: number, language = false): Promise<void> {
	const D = "/home/me/.local/share/ora-vault";
	root.addClass("harness-modal-scene");
	let progress: (p: PullProgress) => void = () => undefined;
	const models = new ModelsController({
		models: async () => ({ ...MODELS, catalogue: MODELS.catalogue.map((m) => ({ ...m, installed: language && m.kind === "reranker", active: language && m.kind === "reranker" })) }),
		suggestion: async () => (language ? SPANISH : { languages: { en: 1 }, suggestion: null }),
		switchEstimate: async (name) => ({ name, from: "a", to: "b", chunks: 0, estimate_s: 0, reembeds: false }),
		pull: (_name, onProgress) => {
			progress = onProgress;
			return new Promise<PulledModel>(() => undefined);
		},
		confirm: async () => false,
		switchEmbedder: async () => undefined,
	});
	const host: OnboardingHost = {
		installer: {
			// setup/paths.ts needs Node's fs and path, which the browser bundle lacks: its result, written out.
			paths: { root: D, uv: `${D}/bin/uv`, python: `${D}/python`, models: `${D}/models`, cache: `${D}/cache`, downloads: `${D}/downloads`, marker: `${D}/install.json`, log: `${D}/setup.log` },
			running: false,
			state: () => "absent",
			install: (_source, listener) => {
				const lines = [
					"https://files.pythonhosted.org/packages/…/uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (17606939 bytes, sha256 2f0c…)",
					"sha256 checked: 2f0c…",
					"uv 0.13.9 is at /home/me/.local/share/ora-vault/bin/uv",
					"$ uv python install 3.12 --no-bin",
					"Installed Python 3.12.12 in 2.61s",
					"$ uv pip install --python …/cpython-3.12.12-linux-x86_64-gnu/bin/python3.12 --break-system-packages ora-vault-sidecar>=0.1,<0.2",
					"Resolved 97 packages in 1.42s",
				];
				listener?.({ kind: "step", index: 3, total: 5, title: "Installing the sidecar (a few hundred MB the first time)" });
				for (const line of lines) listener?.({ kind: "line", line });
				return new Promise(() => undefined);
			},
			repair: () => new Promise(() => undefined),
			upgrade: () => new Promise(() => undefined),
			remove: () => new Promise(() => undefined),
			cancel: () => undefined,
		},
		stopSidecar: async () => undefined,
		installed: async () => undefined,
		watchStatus: (listener) => (listener({ phase: "error", text: "Ora: error", detail: "No ora command was found.", openPairs: 0, action: "settings" }), () => undefined),
		models,
		llm: () => ({ url: "", model: "", key: "" }),
		saveLlm: async () => undefined,
		checkLlm: async () => ({ ok: true, message: "Connected." }),
		finished: async () => undefined,
	};
	const modal = new OnboardingModal(new App(), host);
	modal.open();
	const click = (label: string) => [...modal.contentEl.querySelectorAll("button")].find((b) => b.textContent === label)?.click();
	if (page === 0) {
		click("Install");
		await new Promise((ok) => setTimeout(ok, 20));
		return;
	}
	for (let i = 0; i < page; i++) click("Next");
	await models.refresh();
	await models.refreshOffer();
	if (language) return;
	click("Download");
	progress({ file: "model.onnx", done: 38_200_000, total: 90_868_376 });
	await new Promise((ok) => setTimeout(ok, 50));
}

const scenes: Record<string, (root: HTMLElement) => Promise<void>> = {
	onboarding: (root) => onboardingScene(root, 0),
	"onboarding-models": (root) => onboardingScene(root, 2),
	"onboarding-language": (root) => onboardingScene(root, 2, true),
	search: searchScene,
	lint: lintScene,
	triage: triageScene,
	related: relatedScene,
	quick: quickScene,
	ask: askScene,
	"ask-stream": askStreamScene,
	"triage-pages": triagePagesScene,
	lintfix: lintFixScene,
	models: modelsScene,
	extract: extractScene,
};

async function main(): Promise<void> {
	const name = location.hash.slice(1) || "search";
	const scene = scenes[name];
	if (!scene) throw new Error(`unknown scene ${name}`);
	document.body.addClass("theme-dark");
	await scene(document.body.createDiv({ cls: `harness harness-${name}` }));
	document.body.setAttr("data-ready", "true");
}

void main();
