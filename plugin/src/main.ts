import type { Extension } from "@codemirror/state";
import { spawn } from "child_process";
import { promises as fs, realpathSync } from "fs";
import {
	editorInfoField,
	FileSystemAdapter,
	MarkdownView,
	Notice,
	Plugin,
	requestUrl,
	TFile,
	type TAbstractFile,
} from "obsidian";

import { askStream } from "./api/ask-stream";
import { pullModel } from "./api/model-pull";
import { CANCELLED_STATUS, notSureText, SidecarClient, SidecarError } from "./api/client";
import { EventStream } from "./api/event-stream";
import type { AskDocument, ExtractSelector, StreamEvent, VaultEvent } from "./api/types";
import { answerForNote } from "./ask/model";
import { carriedConversation, chatNoteMoves, type CarriedConversation } from "./ask/relink";
import { extractableNote } from "./extract/model";
import { frontmatterLinter, LintedEditors } from "./lint/extension";
import { addLintIgnore, lintIgnoreEntry } from "./lint/ignore";
import { ModelsController } from "./models/controller";
import type { QuickAction } from "./quick/suggest";
import { isIndexed } from "./search/place";
import type { ResultCard } from "./search/shape";
import { ApiKey, secretStore } from "./secrets";
import { markStopping, stoppedBefore } from "./sidecar/handover";
import { SidecarLink } from "./sidecar/link";
import { StatusModel, type ClickAction } from "./sidecar/status-model";
import { parseRecord, SidecarSupervisor } from "./sidecar/supervisor";
import { sameVaultPath } from "./sidecar/vault-path";
import { baseUrl, mergeSettings, recordPath, serveArgs, serveEnv, tokenPath, type OraSettings } from "./settings";
import { AdoptModal, undoAdoption } from "./ui/adopt-modal";
import { ASK_VIEW_TYPE, AskView } from "./ui/ask-view";
import { ChatNoteButtons } from "./ui/chat-note-buttons";
import { confirmWrite } from "./ui/confirm-modal";
import { ExtractModal, undoExtraction } from "./ui/extract-modal";
import { fileDates, fixDatesInEditor } from "./ui/file-dates";
import { QuickSearchModal } from "./ui/quick-search-modal";
import { RELATED_VIEW_TYPE, RelatedView } from "./ui/related-view";
import { debounce } from "./util/debounce";
import { openAtLines, vaultFile } from "./ui/open-note";
import { RequestUrlTransport } from "./ui/request-url-transport";
import { SEARCH_VIEW_TYPE, SearchView } from "./ui/search-view";
import { SidecarSetup } from "./ui/sidecar-setup";
import { OnboardingModal } from "./ui/onboarding-modal";
import { checkLlmEndpoint } from "./onboarding/llm-check";
import type { StatusView } from "./sidecar/status-model";
import { addDocumentMenu, processDocument } from "./ui/process-document";
import { OraSettingTab } from "./ui/settings-tab";
import { noticeNotResponding, renderStatus } from "./ui/status-bar";
import { obsidianTrash, trashNote } from "./ui/trash";
import { TriageModal } from "./ui/triage-modal";
import { EventBatcher } from "./vault/event-batcher";
import { ExcludedFoldersController } from "./vault/excluded-folders";

/** Wires the plain modules to Obsidian: no logic of its own beyond choosing what runs when. */
export default class OraVaultPlugin extends Plugin {
	override settings: OraSettings = mergeSettings(null);
	private client!: SidecarClient;
	private link: SidecarLink | null = null;
	private supervisor: SidecarSupervisor | null = null;
	private readonly editors = new LintedEditors();
	private readonly linter: Extension[] = [];
	/** Open editors are linted again when the index changes (a new note can fix a broken link). */
	private readonly relintSoon = debounce(() => this.editors.relint(), 1000);
	private batcher!: EventBatcher;
	private status = StatusModel.initial();
	private statusEl!: HTMLElement;
	private tokenValue: string | null = null;
	private ready = false;
	private setup!: SidecarSetup;
	private readonly statusListeners = new Set<(view: StatusView) => void>();
	private models!: ModelsController;
	private apiKey!: ApiKey;

	override async onload(): Promise<void> {
		this.settings = mergeSettings(await this.loadData());
		this.apiKey = new ApiKey(secretStore(this.app), this.settings, () => this.saveData(this.settings));
		await this.apiKey.migrate();
		this.client = this.makeClient();
		this.setup = new SidecarSetup(this.app, {
			pluginVersion: this.manifest.version,
			settings: this.settings,
			saveSettings: () => this.saveData(this.settings),
			stopSidecar: async () => {
				await this.link?.shutdown();
			},
			restartSidecar: () => this.restartSidecar(),
		});
		this.batcher = new EventBatcher(
			(events) => this.client.sendEvents(events),
			() => this.settings.eventDelayMs,
			(err) => console.warn("Ora: could not send vault events", err),
		);

		this.statusEl = this.addStatusBarItem();
		this.registerDomEvent(this.statusEl, "click", () => this.onStatusClick());
		this.setStatus(StatusModel.initial());

		this.registerView(
			SEARCH_VIEW_TYPE,
			(leaf) =>
				new SearchView(leaf, {
					client: () => this.client,
					delayMs: () => this.settings.searchDelayMs,
					k: () => this.settings.resultCount,
					open: (card, newLeaf) => openAtLines(this.app, card.path, card.lineStart, card.lineEnd, newLeaf, card.link),
				}),
		);
		this.registerView(
			RELATED_VIEW_TYPE,
			(leaf) =>
				new RelatedView(leaf, {
					client: () => this.client,
					k: () => this.settings.resultCount,
					open: (card, newLeaf) => openAtLines(this.app, card.path, card.lineStart, card.lineEnd, newLeaf, card.link),
					linkText: (path, sourcePath) => this.linkTo(path, sourcePath),
				}),
		);
		this.registerHoverLinkSource(RELATED_VIEW_TYPE, { display: "Ora related notes", defaultMod: false });
		this.registerView(
			ASK_VIEW_TYPE,
			(leaf) =>
				new AskView(leaf, {
					client: () => this.client,
					stream: (request, onDelta, signal) =>
						askStream({ baseUrl: this.client.baseUrl, token: this.tokenValue, signal, timeoutMs: this.client.timeout("ask-stream") }, request, onDelta),
					open: (path, start, end, newLeaf, link) => openAtLines(this.app, path, start, end, newLeaf, link),
					conversations: () => this.settings.conversations,
					saveConversations: async (list) => {
						this.settings.conversations = list;
						await this.saveData(this.settings);
					},
					llmConfigured: () => this.settings.llmUrl.trim() !== "",
					webConfigured: () => this.settings.searxngUrl.trim() !== "",
					insert: (doc) => this.insertAnswer(doc),
					extract: (conversation, privateMode) => this.openExtract({ conversation }, privateMode),
				}),
		);
		this.addRibbonIcon("search", "Open Ora search", () => void this.activateSearch());
		this.addCommands();
		this.addChatNoteButtons();
		const models = (this.models = this.modelsController());
		this.register(() => models.cancelAll()); // a download in flight stops (and resumes next time)
		this.register(() => this.setup.cancel()); // an install in flight is killed; Install or Repair finish it later
		this.addSettingTab(
			new OraSettingTab(this.app, this, {
				settings: this.settings,
				saveSettings: () => this.saveData(this.settings),
				token: () => this.tokenValue,
				tokenPath: () => tokenPath(this.settings, this.vaultPath()),
				reindex: () => this.reindex(),
				restartSidecar: () => this.restartSidecar(),
				relint: () => this.editors.relint(),
				lintDelayChanged: () => this.applyLintDelay(),
				openSetup: () => this.setup.open(null),
				models,
				excludedFolders: new ExcludedFoldersController({
					vaultSettings: () => this.client.vaultSettings(),
					setExcluded: (path, excluded) => this.client.setExcluded(path, excluded),
					folders: () => this.app.vault.getAllFolders(false).map((folder) => folder.path),
					notify: (text) => new Notice(text, 10_000),
				}),
				apiKey: this.apiKey,
			}),
		);
		// An array Obsidian re-reads on updateOptions(): a new Lint delay gives editors a new linter.
		this.linter.push(this.makeLinter());
		this.registerEditorExtension(this.linter);
		this.app.workspace.onLayoutReady(() => {
			this.watchVault();
			void this.startSidecar();
			if (!this.settings.onboarded) this.openOnboarding();
		});
		// The sidecar may answer before Obsidian has read every note's frontmatter: look again once it has.
		const resolved = this.app.metadataCache.on("resolved", () => {
			this.app.metadataCache.offref(resolved);
			if (this.ready) void this.relinkChatNotes();
		});
		this.registerEvent(resolved);
		// Obsidian does not reliably unload plugins on quit; the sidecar also watches our pid.
		this.registerEvent(this.app.workspace.on("quit", () => this.link?.stop()));
		this.registerEvent(
			this.app.workspace.on("file-menu", (menu, file) =>
				addDocumentMenu(menu, file, (path) => void processDocument(this.app, this.client, path)),
			),
		);
	}

	override onunload(): void {
		this.relintSoon.cancel();
		const link = this.link;
		const client = this.client;
		// Queued vault events go out first, but a sidecar that does not answer is stopped anyway;
		// then every call still waiting ends, its timeout timer cleared. Until the sidecar has
		// exited, a session enabled again meanwhile waits rather than attach to it.
		const supervisor = this.supervisor;
		const stopping = this.batcher.flushWithin(3000).finally(() => {
			// stop(), not shutdown(): a sidecar started outside Obsidian is ended only on the user's restart.
			link?.stop();
			client.dispose();
			return supervisor?.stopped();
		});
		markStopping(this.vaultPath(), stopping);
	}

	/** The editor linter, with the Lint delay setting as it is now. */
	private makeLinter(): Extension {
		return frontmatterLinter(
			{
				pathOf: (view) => {
					if (!this.ready || !this.settings.lintInEditor) return null;
					const file = view.state.field(editorInfoField, false)?.file;
					return file && file.extension === "md" ? file.path : null;
				},
				lint: (path, text) => this.client.lint(path, text),
				fixes: {
					dates: (path) => fileDates(this.app, path),
					// Says itself when ora.yaml cannot be updated (the quick fix would fail silently).
					ignore: (target) => this.lintIgnore(target),
				},
			},
			this.settings.lintDelayMs,
			this.editors,
		);
	}

	/** The Lint delay changed: open editors get a linter with the new delay. */
	private applyLintDelay(): void {
		this.linter.splice(0, this.linter.length, this.makeLinter());
		this.app.workspace.updateOptions();
	}

	private addCommands(): void {
		this.addCommand({ id: "open-search", name: "Open search panel", callback: () => void this.activateSearch() });
		this.addCommand({ id: "quick-search", name: "Quick search", callback: () => this.openQuickSearch() });
		this.addCommand({ id: "open-related", name: "Show related notes", callback: () => void this.revealRight(RELATED_VIEW_TYPE) });
		this.addCommand({ id: "open-ask", name: "Ask your vault", callback: () => void this.revealRight(ASK_VIEW_TYPE) });
		this.addCommand({
			id: "fix-dates",
			name: "Fix dates in current note",
			checkCallback: (checking) => {
				const view = this.app.workspace.getActiveViewOfType(MarkdownView);
				if (!view?.file) return false;
				if (!checking) this.fixDates(view);
				return true;
			},
		});
		for (const scope of ["note", "folder"] as const) {
			this.addCommand({
				id: `lint-ignore-${scope}`,
				name: scope === "note" ? "Stop linting this note" : "Stop linting this note's folder",
				checkCallback: (checking) => {
					const file = this.app.workspace.getActiveFile();
					const entry = file ? lintIgnoreEntry(file.path, scope) : null;
					if (!entry) return false;
					if (!checking) void this.lintIgnore(entry);
					return true;
				},
			});
		}
		this.addCommand({
			id: "extract",
			name: "Extract engrams",
			checkCallback: (checking) => {
				const target = this.extractTarget();
				if (!target) return false;
				if (!checking) this.openExtract(target.selector, target.privateMode);
				return true;
			},
		});
		this.addCommand({ id: "extract-undo", name: "Undo the last engram extraction", callback: () => void undoExtraction(this.client) });
		this.addCommand({ id: "triage", name: "Triage contradictions", callback: () => this.openTriage() });
		this.addCommand({ id: "reindex", name: "Re-index vault now", callback: () => void this.reindex() });
		this.addCommand({
			id: "adopt",
			name: "Adopt Ora frontmatter…",
			callback: () => new AdoptModal(this.app, { client: this.client }).open(),
		});
		this.addCommand({ id: "adopt-undo", name: "Undo the last Ora adoption", callback: () => void undoAdoption(this.client) });
		this.addCommand({ id: "restart-sidecar", name: "Restart sidecar", callback: () => void this.restartSidecar() });
		this.addCommand({ id: "setup-sidecar", name: "Set up, repair, upgrade or remove the sidecar", callback: () => this.setup.open(null) });
		this.addCommand({ id: "onboarding", name: "Open the getting-started guide", callback: () => this.openOnboarding() });
	}

	private async startSidecar(): Promise<void> {
		this.ready = false;
		const vault = this.vaultPath();
		const supervisor = new SidecarSupervisor({
			client: this.client,
			autoStart: this.settings.autoStart,
			port: this.settings.port,
			vault,
			sameVault: (a, b) => sameVaultPath(realPath(a), realPath(b), process.platform),
			ownPid: process.pid,
			handover: () => stoppedBefore(vault),
			spawn: () => {
				const ora = this.setup.command(serveArgs(this.settings, vault, process.pid));
				return spawn(ora.command, ora.args, {
					stdio: ["ignore", "ignore", "pipe"],
					env: serveEnv({ ...this.settings, llmApiKey: this.apiKey.get() }, ora.env),
					windowsHide: true, // no console window on Windows
				});
			},
			readRecord: async () => parseRecord(await fs.readFile(recordPath(this.settings, vault), "utf8")),
			readToken: () => fs.readFile(tokenPath(this.settings, vault), "utf8"),
			onToken: (token) => (this.tokenValue = token),
			refuseVersion: (version) => this.setup.refusal(version),
		});
		this.supervisor = supervisor;
		this.link = new SidecarLink({
			supervisor,
			client: this.client,
			openStream: (handlers) =>
				new EventStream({ url: `${this.client.baseUrl}/v1/events/stream`, token: () => this.tokenValue, ...handlers }),
			onStatus: (model) => this.setStatus(model),
			onReady: () => this.onSidecarReady(),
			onEvent: (event) => this.onStreamEvent(event),
		});
		await this.link.start();
		if (this.status.view.phase === "error") await this.setup.afterStartFailure();
	}

	/** Open editors and panels asked before the sidecar answered (Obsidian restores them first) ask again. */
	private onSidecarReady(): void {
		this.editors.relint();
		for (const leaf of this.app.workspace.getLeavesOfType(SEARCH_VIEW_TYPE)) {
			if (leaf.view instanceof SearchView) void leaf.view.sidecarReady();
		}
		for (const leaf of this.app.workspace.getLeavesOfType(RELATED_VIEW_TYPE)) {
			if (leaf.view instanceof RelatedView) void leaf.view.sidecarReady();
		}
		// A conversation loaded before its moved note is relinked would be forgotten (a load syncs memory).
		void this.relinkChatNotes().finally(() => {
			for (const leaf of this.app.workspace.getLeavesOfType(ASK_VIEW_TYPE)) {
				if (leaf.view instanceof AskView) void leaf.view.sidecarReady();
			}
		});
	}

	/**
	 * Chat notes moved or renamed while Obsidian was closed sent no rename event: each conversation
	 * whose note is gone from where the sidecar last saw it follows the note carrying its id.
	 */
	private async relinkChatNotes(): Promise<void> {
		const { vault, metadataCache } = this.app;
		try {
			const notes = vault
				.getMarkdownFiles()
				.map((file) => carriedConversation(file.path, metadataCache.getFileCache(file)?.frontmatter))
				.filter((note): note is CarriedConversation => note !== null);
			const moves = chatNoteMoves(await this.client.conversationNotes(), (path) => vault.getAbstractFileByPath(path) instanceof TFile, notes);
			if (moves.length > 0) await this.client.sendEvents(moves);
		} catch (err) {
			// Unloading cancels the call: nothing to relink then, and nothing to report.
			if (err instanceof SidecarError && err.status === CANCELLED_STATUS) return;
			console.warn("Ora: could not relink moved chat notes", err);
		}
	}

	private onStreamEvent(event: StreamEvent): void {
		if (event.type === "index" || (event.type === "progress" && event.phase === "done")) this.relintSoon();
	}

	private modelsController(): ModelsController {
		return new ModelsController({
			models: () => this.client.models(),
			suggestion: () => this.client.modelsSuggestion(),
			switchEstimate: (name) => this.client.switchEstimate(name),
			pull: (name, onProgress, signal) =>
				pullModel({ baseUrl: this.client.baseUrl, token: this.tokenValue, signal, timeoutMs: this.client.timeout("pull-stream") }, name, onProgress),
			confirm: (title, text, label) => confirmWrite(this.app, title, text, label),
			switchEmbedder: async (name) => {
				this.settings.embedModel = name;
				await this.saveData(this.settings);
				await this.restartSidecar();
			},
		});
	}

	private async restartSidecar(): Promise<void> {
		// Another window's or a terminal's sidecar is never stopped from here: say where to restart it.
		const elsewhere = (await this.link?.startedElsewhere()) ?? null;
		if (elsewhere !== null) {
			new Notice(elsewhere, 15_000);
			return;
		}
		// The new sidecar opens the index as its one writer: the old one must be gone first.
		await this.link?.shutdown();
		const old = this.client;
		this.client = this.makeClient();
		old.dispose(); // what it still waits for will not come from the sidecar just stopped
		await this.startSidecar();
	}

	private watchVault(): void {
		const forward = (kind: VaultEvent["kind"]) => (file: TAbstractFile) => {
			if (file instanceof TFile && isIndexed(file.extension)) this.batcher.push({ kind, path: file.path });
		};
		this.registerEvent(this.app.vault.on("create", forward("created")));
		this.registerEvent(this.app.vault.on("modify", forward("modified")));
		this.registerEvent(this.app.vault.on("delete", forward("deleted")));
		this.registerEvent(
			this.app.vault.on("rename", (file, oldPath) => {
				if (file instanceof TFile && isIndexed(file.extension)) {
					this.batcher.push({ kind: "renamed", path: file.path, old_path: oldPath });
				}
			}),
		);
	}

	private async activateSearch(): Promise<void> {
		const { workspace } = this.app;
		let leaf = workspace.getLeavesOfType(SEARCH_VIEW_TYPE)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			if (!leaf) return;
			await leaf.setViewState({ type: SEARCH_VIEW_TYPE, active: true });
		}
		await workspace.revealLeaf(leaf);
		if (leaf.view instanceof SearchView) leaf.view.focusInput();
	}

	/** Reveals (creating it if needed) a view of `type` in the right sidebar. */
	private async revealRight(type: string): Promise<void> {
		const { workspace } = this.app;
		let leaf = workspace.getLeavesOfType(type)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			if (!leaf) return;
			await leaf.setViewState({ type, active: true });
		}
		await workspace.revealLeaf(leaf);
	}

	private openQuickSearch(): void {
		new QuickSearchModal(this.app, {
			client: () => this.client,
			k: this.settings.resultCount,
			delayMs: this.settings.searchDelayMs,
			privateMode: () => false,
			choose: (card, action) => this.chooseQuick(card, action),
			toPanel: async (query) => {
				await this.activateSearch();
				const view = this.app.workspace.getLeavesOfType(SEARCH_VIEW_TYPE)[0]?.view;
				if (view instanceof SearchView) await view.searchFor(query);
			},
		}).open();
	}

	private async chooseQuick(card: ResultCard, action: QuickAction): Promise<void> {
		if (action !== "insert-link") {
			await openAtLines(this.app, card.path, card.lineStart, card.lineEnd, action === "open-new-tab" ? "tab" : false, card.link);
			return;
		}
		const view = this.app.workspace.getActiveViewOfType(MarkdownView);
		const link = view?.file ? this.linkTo(card.path, view.file.path) : null;
		if (view && link) view.editor.replaceSelection(link);
		else new Notice("Open a note to insert a link into.");
	}

	/** An Ask answer, its sources as links, at the cursor of the note last edited. */
	private insertAnswer(doc: AskDocument): void {
		const leaf = this.app.workspace.getMostRecentLeaf();
		const view = leaf?.view instanceof MarkdownView ? leaf.view : null;
		const file = view?.file;
		if (!view || !file) {
			new Notice("Open a note to insert the answer into.");
			return;
		}
		view.editor.replaceSelection(answerForNote(doc, (path) => this.linkTo(path, file.path) ?? path));
	}

	/** A link to `path` from `sourcePath`, in the user's link style (wikilink or Markdown). */
	private linkTo(path: string, sourcePath: string): string | null {
		const file = vaultFile(this.app, path);
		return file ? this.app.fileManager.generateMarkdownLink(file, sourcePath) : null;
	}

	private fixDates(view: MarkdownView): void {
		const file = view.file;
		if (file) new Notice(fixDatesInEditor(view.editor, fileDates(this.app, file.path), file.basename));
	}

	/** Adds `entry` to `lint.ignore` in the vault's ora.yaml (the file the CLI reads too). */
	private lintIgnore(entry: string): Promise<void> {
		return addLintIgnore(entry, {
			ignore: (path) => this.client.lintIgnore(path),
			relint: () => this.editors.relint(),
			notify: (text) => new Notice(text),
		});
	}

	/** What "Extract engrams" works on: the Ask panel's conversation when it is focused, else the chat note or document's resource note open. */
	private extractTarget(): { selector: ExtractSelector; privateMode: boolean } | null {
		const ask = this.app.workspace.getActiveViewOfType(AskView)?.extractable;
		if (ask) return { selector: { conversation: ask.conversation }, privateMode: ask.privateMode };
		const file = this.app.workspace.getActiveFile();
		const selector = file ? this.extractableNote(file) : null;
		return selector ? { selector, privateMode: false } : null;
	}

	private extractableNote(file: TFile): ExtractSelector | null {
		return extractableNote(file.path, this.app.metadataCache.getFileCache(file)?.frontmatter);
	}

	/** "Extract engrams" in the header and the file menu of a chat note or a document's resource note. */
	private addChatNoteButtons(): void {
		const buttons = new ChatNoteButtons(
			(file) => this.extractableNote(file) !== null,
			(file) => this.openExtract({ note: file.path }),
		);
		const sync = () =>
			buttons.sync(
				this.app.workspace
					.getLeavesOfType("markdown")
					.map((leaf) => leaf.view)
					.filter((view): view is MarkdownView => view instanceof MarkdownView),
			);
		this.registerEvent(this.app.workspace.on("layout-change", sync));
		this.registerEvent(this.app.workspace.on("file-open", sync));
		// A note that becomes a chat note (or stops being one) when its frontmatter changes.
		this.registerEvent(this.app.metadataCache.on("changed", sync));
		this.register(() => buttons.clear());
		this.registerEvent(
			this.app.workspace.on("file-menu", (menu, file) => {
				const selector = file instanceof TFile ? this.extractableNote(file) : null;
				if (!selector) return;
				menu.addItem((item) => item.setTitle("Extract engrams").setIcon("sparkles").onClick(() => this.openExtract(selector)));
			}),
		);
	}

	private openExtract(selector: ExtractSelector, privateMode = false): void {
		new ExtractModal(this.app, {
			client: this.client,
			selector,
			privateMode,
			open: (path, start, end) => openAtLines(this.app, path, start, end),
			triage: () => this.openTriage(),
		}).open();
	}

	private openTriage(): void {
		new TriageModal(this.app, {
			client: this.client,
			open: (path, start, end) => openAtLines(this.app, path, start, end),
			onOpenCount: (open) => this.link?.note({ type: "contradictions", open }),
			trash: (path, hash) => trashNote(obsidianTrash(this.app), path, hash),
		}).open();
	}

	private async reindex(): Promise<void> {
		try {
			await this.client.reindex();
			new Notice("Re-indexing started.");
		} catch (err) {
			// Asking again is harmless (it re-indexes again), but say that it may have started.
			new Notice(notSureText(err, "re-indexing started", 'The status bar says "indexing" in a moment if it did.') ?? `Could not start re-indexing: ${errorText(err)}`);
		}
	}

	private onStatusClick(): void {
		const view = this.status.view;
		const actions: Record<ClickAction, () => void> = {
			triage: () => this.openTriage(),
			details: () => new Notice(view.detail, 10_000),
			log: () => this.showLog(),
			restart: () => void this.restartSidecar(),
			settings: () => this.openSettings(),
		};
		actions[view.action]();
	}

	private showLog(): void {
		const tail = this.supervisor?.logTail ?? [];
		const text = tail.length ? tail.join("\n") : "The sidecar has written nothing to its log yet (or this plugin did not start it).";
		new Notice(`Ora sidecar log (last lines):\n${text}`, 20_000);
	}

	private openSettings(): void {
		// Obsidian's settings window is not in its typed API; it has been stable for years.
		const setting = (this.app as unknown as { setting?: { open(): void; openTabById(id: string): void } }).setting;
		setting?.open();
		setting?.openTabById(this.manifest.id);
	}

	private setStatus(next: StatusModel): void {
		if (next.view.phase === "not-responding" && this.status.view.phase !== "not-responding") noticeNotResponding(next.view, () => this.onStatusClick());
		this.status = next;
		const phase = next.view.phase;
		this.ready = phase === "connected" || phase === "indexing" || phase === "scanning" || phase === "ready";
		renderStatus(this.statusEl, next.view);
		for (const listener of this.statusListeners) listener(next.view);
	}

	/** The first-run guide (ui/onboarding-modal.ts): set-up, first index, re-ranker, language model. */
	private openOnboarding(): void {
		new OnboardingModal(this.app, {
			installer: this.setup.installer,
			stopSidecar: async () => {
				await this.link?.shutdown();
			},
			installed: () => this.setup.useInstalled(),
			watchStatus: (listener) => {
				this.statusListeners.add(listener);
				listener(this.status.view);
				return () => this.statusListeners.delete(listener);
			},
			models: this.models,
			// The key through ApiKey, as the settings tab: in SecretStorage where Obsidian has it, never data.json there.
			llm: () => ({ url: this.settings.llmUrl, model: this.settings.llmModel, key: this.apiKey.get() }),
			saveLlm: async (llm) => {
				const s = this.settings;
				const keyChanged = this.apiKey.get() !== llm.key;
				if (s.llmUrl === llm.url && s.llmModel === llm.model && !keyChanged) return;
				Object.assign(s, { llmUrl: llm.url, llmModel: llm.model });
				if (keyChanged) await this.apiKey.set(llm.key);
				await this.saveData(s);
				await this.restartSidecar(); // the sidecar reads the endpoint at start
			},
			checkLlm: (llm) => checkLlmEndpoint((req) => requestUrl(req), llm.url, llm.model, llm.key),
			finished: async () => {
				if (this.settings.onboarded) return;
				this.settings.onboarded = true;
				await this.saveData(this.settings);
			},
		}).open();
	}

	private makeClient(): SidecarClient {
		return new SidecarClient(new RequestUrlTransport(), {
			baseUrl: baseUrl(this.settings),
			token: () => this.tokenValue,
			// A call that timed out may mean a stuck sidecar: the status bar checks at once.
			onTimeout: () => void this.link?.suspect(),
		});
	}

	private vaultPath(): string {
		const adapter = this.app.vault.adapter;
		return adapter instanceof FileSystemAdapter ? adapter.getBasePath() : "";
	}
}

/** The folder a path names, symlinks resolved (the sidecar reports its vault that way). */
function realPath(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
