// A small stand-in for the `obsidian` module (which ships types only): the classes and functions
// the plugin's UI uses, with the same names and the behaviour the tests and screenshots rely on.
import { NodeHttpTransport } from "../../src/api/node-transport";
import type { HttpRequest } from "../../src/api/transport";
import { installDomHelpers } from "./dom";

installDomHelpers(window);

/** Icons drawn as small inline SVGs so screenshots show something recognisable. */
const ICON_PATHS: Record<string, string> = {
	info: "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20M12 16v-4M12 8h.01",
	search: "M11 3a8 8 0 1 0 0 16a8 8 0 1 0 0-16M21 21l-4.3-4.3",
	"search-x": "M11 3a8 8 0 1 0 0 16a8 8 0 1 0 0-16M21 21l-4.3-4.3M8.5 8.5l5 5M13.5 8.5l-5 5",
	"alert-triangle": "M10.3 3.9L1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0M12 9v4M12 17h.01",
	loader: "M12 2v4M12 18v4M4.9 4.9l2.9 2.9M16.2 16.2l2.9 2.9M2 12h4M18 12h4",
	"check-circle": "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20M9 12l2 2l4-4",
	copy: "M8 8h12v12H8zM4 16V4h12",
	"file-input": "M4 22h14a2 2 0 0 0 2-2V7l-5-5H6a2 2 0 0 0-2 2v4M14 2v4a2 2 0 0 0 2 2h4M2 15h10M9 18l3-3-3-3",
	"refresh-cw": "M3 12a9 9 0 0 1 15-6.7L21 8M21 3v5h-5M21 12a9 9 0 0 1-15 6.7L3 16M3 21v-5h5",
	"git-fork": "M6 3v12M18 9a3 3 0 1 0 0-6a3 3 0 0 0 0 6M6 21a3 3 0 1 0 0-6a3 3 0 0 0 0 6M18 9a9 9 0 0 1-9 9",
	"message-circle": "M21 12a9 9 0 1 1-4-7.5L21 3v6h-6",
	plus: "M12 5v14M5 12h14",
	x: "M18 6L6 18M6 6l12 12",
	"chevron-right": "M9 18l6-6-6-6",
	"chevron-down": "M6 9l6 6 6-6",
	link: "M10 13a5 5 0 0 0 7 0l3-3a5 5 0 0 0-7-7l-1 1M14 11a5 5 0 0 0-7 0l-3 3a5 5 0 0 0 7 7l1-1",
	filter: "M22 3H2l8 9.5V19l4 2v-8.5z",
	sparkles: "M12 3l1.9 5.1L19 10l-5.1 1.9L12 17l-1.9-5.1L5 10l5.1-1.9zM19 15l.8 2.2L22 18l-2.2.8L19 21l-.8-2.2L16 18l2.2-.8z",
};

export function setIcon(parent: HTMLElement, icon: string): void {
	parent.empty();
	const svg = parent.ownerDocument.createElementNS("http://www.w3.org/2000/svg", "svg");
	svg.setAttribute("class", `svg-icon lucide-${icon}`);
	svg.setAttribute("viewBox", "0 0 24 24");
	svg.setAttribute("data-icon", icon);
	const path = parent.ownerDocument.createElementNS("http://www.w3.org/2000/svg", "path");
	path.setAttribute("d", ICON_PATHS[icon] ?? "M4 4h16v16H4z");
	svg.appendChild(path);
	parent.appendChild(svg);
}

export function setTooltip(el: HTMLElement, tooltip: string): void {
	el.setAttribute("aria-label", tooltip);
	el.setAttribute("data-tooltip", tooltip);
}

/** Notices shown (their text), newest last, so tests can read what the user was told. */
export const shownNotices: string[] = [];
/** Notices shown, as elements, newest last, so tests can click their links. */
export const noticeEls: HTMLElement[] = [];

export class Notice {
	constructor(message: string | DocumentFragment, _duration?: number) {
		const el = document.createElement("div");
		if (typeof message === "string") el.textContent = message;
		else el.appendChild(message);
		shownNotices.push(el.textContent ?? "");
		noticeEls.push(el);
	}
}

/** Obsidian's requestUrl over Node's http: no timeout of its own, an error status thrown unless `throw: false`. */
export async function requestUrl(req: { url: string; method?: string; headers?: Record<string, string>; body?: string; contentType?: string; throw?: boolean }): Promise<{ status: number; text: string }> {
	const headers = { ...req.headers, ...(req.contentType ? { "Content-Type": req.contentType } : {}) };
	const response = await new NodeHttpTransport(2 ** 31 - 1).request({ url: req.url, method: (req.method ?? "GET") as HttpRequest["method"], headers, body: req.body });
	if (req.throw !== false && response.status >= 400) throw new Error(`Request failed, status ${response.status}`);
	return response;
}

export const editorInfoField = {};

/** Obsidian's normalizePath: one `/` between parts, none at the ends, no-break spaces as spaces, NFC. */
export function normalizePath(path: string): string {
	const clean = path.replace(/[\\/]+/g, "/").replace(/^\/+|\/+$/g, "").replace(/\u00A0|\u202F/g, " ");
	return clean === "" ? "/" : clean.normalize("NFC");
}

export class TFile {
	path = "";
	extension = "md";
	basename = "";

	/** A file at `path` (a test helper; Obsidian makes these itself). */
	static at(path: string): TFile {
		const file = new TFile();
		file.path = path;
		file.basename = (path.split("/").pop() ?? path).replace(/\.md$/, "");
		file.extension = path.split(".").pop() ?? "";
		return file;
	}
}

export class TFolder {
	path = "";
	name = "";

	static at(path: string): TFolder {
		const folder = new TFolder();
		folder.path = path;
		folder.name = path.split("/").pop() ?? path;
		return folder;
	}
}

export class FileSystemAdapter {
	constructor(private readonly basePath = "") {}

	getBasePath(): string {
		return this.basePath;
	}
}

export class MarkdownView {
	file: TFile | null = null;
	/** The view header's action buttons, newest first as Obsidian puts them. */
	readonly actionsEl: HTMLElement = document.createElement("div");

	addAction(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = document.createElement("a");
		el.className = "clickable-icon view-action";
		el.setAttribute("aria-label", title);
		setIcon(el, icon);
		el.addEventListener("click", (evt) => void callback(evt));
		this.actionsEl.prepend(el);
		return el;
	}
}

/** What the stand-in workspace was asked to do, newest last, so tests can read it. */
export interface WorkspaceCall {
	kind: "open" | "trigger";
	args: unknown[];
}

/** Obsidian's `Events`: `on` returns a ref, `trigger` calls the handlers of that name. */
export class Events {
	private readonly handlers = new Map<string, ((...data: unknown[]) => unknown)[]>();

	on(name: string, callback: (...data: never[]) => unknown): { name: string; callback: unknown; source: Events } {
		const list = this.handlers.get(name) ?? [];
		list.push(callback as (...data: unknown[]) => unknown);
		this.handlers.set(name, list);
		return { name, callback, source: this };
	}

	offref(ref: { name: string; callback: unknown }): void {
		const list = this.handlers.get(ref.name) ?? [];
		this.handlers.set(ref.name, list.filter((c) => c !== ref.callback));
	}

	trigger(name: string, ...data: unknown[]): void {
		for (const callback of this.handlers.get(name) ?? []) callback(...data);
	}
}

export class Vault extends Events {
	adapter: unknown = new FileSystemAdapter();
	/** The vault's files as Obsidian lists them (a test sets them). */
	files: TFile[] = [];

	getMarkdownFiles(): TFile[] {
		return this.files.filter((f) => f.extension === "md");
	}

	getAbstractFileByPath(path: string): TFile | null {
		return this.files.find((f) => f.path === path) ?? null;
	}

	getFileByPath(path: string): TFile | null {
		return this.getAbstractFileByPath(path);
	}

	/** The files' text, by path (a test sets it; a file without any reads as empty). */
	readonly contents = new Map<string, string>();

	async readBinary(file: TFile): Promise<ArrayBuffer> {
		const bytes = new TextEncoder().encode(this.contents.get(file.path) ?? "");
		return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	}

	/** Folders as Obsidian lists them: a test sets them, else those holding the files. */
	folders: string[] | null = null;

	getAllFolders(includeRoot = false): TFolder[] {
		const above = (path: string): string[] => path.split("/").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/"));
		const paths = this.folders ?? [...new Set(this.files.flatMap((f) => above(f.path)))];
		return [...(includeRoot ? ["/"] : []), ...paths].map((path) => TFolder.at(path));
	}
}

/** Obsidian's FileManager: `trashFile` removes the file from the vault's list and is recorded. */
export class FileManager {
	readonly trashed: string[] = [];

	constructor(private readonly vault: Vault) {}

	async trashFile(file: TFile): Promise<void> {
		this.trashed.push(file.path);
		this.vault.files = this.vault.files.filter((f) => f !== file);
	}
}

/** Obsidian's metadata cache: each file's parsed frontmatter, as a test sets it. */
export class MetadataCache extends Events {
	readonly frontmatter = new Map<string, Record<string, unknown>>();

	getFileCache(file: TFile): { frontmatter?: Record<string, unknown> } | null {
		const frontmatter = this.frontmatter.get(file.path);
		return frontmatter ? { frontmatter } : null;
	}
}

export class Workspace extends Events {
	readonly calls: WorkspaceCall[] = [];

	override trigger(name: string, ...data: unknown[]): void {
		this.calls.push({ kind: "trigger", args: [name, ...data] });
		super.trigger(name, ...data);
	}

	/** Layout saves asked for (Obsidian then reads every view's getState). */
	saves = 0;

	getActiveFile(): TFile | null {
		return null;
	}

	requestSaveLayout = (): void => {
		this.saves++;
	};

	/** Links opened by their text (a wikilink in rendered Markdown), with where they were asked to open. */
	readonly openedLinks: [string, string, unknown][] = [];

	async openLinkText(linktext: string, sourcePath: string, newLeaf?: unknown): Promise<void> {
		this.openedLinks.push([linktext, sourcePath, newLeaf ?? false]);
	}

	private ready = false;
	private readonly whenReady: (() => void)[] = [];

	/** Runs `callback` once the layout is ready (at once if it is), as Obsidian does. */
	onLayoutReady(callback: () => void): void {
		if (this.ready) callback();
		else this.whenReady.push(callback);
	}

	/** A test helper: Obsidian has restored the layout. */
	layoutReady(): void {
		this.ready = true;
		for (const callback of this.whenReady.splice(0)) callback();
	}

	getLeavesOfType(_type: string): WorkspaceLeaf[] {
		return [];
	}

	updateOptions(): void {}
}

export class App {
	workspace = new Workspace();
	vault = new Vault();
	metadataCache = new MetadataCache();
	fileManager = new FileManager(this.vault);
}

export class WorkspaceLeaf {
	app: App = new App();
}

type ScopeHandler = (evt: KeyboardEvent) => unknown;

/** Keyboard scope: handlers by modifiers and key, as Obsidian's `Scope.register` takes them. */
export class Scope {
	private readonly handlers: { modifiers: string[]; key: string | null; func: ScopeHandler }[] = [];

	register(modifiers: string[] | null, key: string | null, func: ScopeHandler): unknown {
		const handler = { modifiers: [...(modifiers ?? [])].sort(), key, func };
		this.handlers.push(handler);
		return handler;
	}

	/** Runs the handler matching `evt` (Mod is Ctrl here); false when none matched. */
	handle(evt: KeyboardEvent): boolean {
		const mods = [evt.ctrlKey || evt.metaKey ? "Mod" : "", evt.altKey ? "Alt" : "", evt.shiftKey ? "Shift" : ""]
			.filter(Boolean)
			.sort();
		const found = this.handlers.find((h) => (h.key === null || h.key === evt.key) && h.modifiers.join() === mods.join());
		if (!found) return false;
		found.func(evt);
		return true;
	}
}

export type PaneType = "tab" | "split" | "window";

export const Keymap = {
	/** Mod (Ctrl here) or a middle click: a new tab, as Obsidian answers. */
	isModEvent(evt?: MouseEvent | KeyboardEvent | null): PaneType | boolean {
		if (!evt) return false;
		if ("button" in evt && evt.button === 1) return "tab";
		return evt.ctrlKey || evt.metaKey ? "tab" : false;
	},
};

class Component {
	private cleanups: (() => void)[] = [];

	registerEvent(ref: { name: string; callback: unknown; source?: Events }): void {
		this.cleanups.push(() => ref.source?.offref(ref));
	}

	registerDomEvent(el: HTMLElement, type: string, listener: (evt: Event) => void): void {
		el.addEventListener(type, listener);
		this.cleanups.push(() => el.removeEventListener(type, listener));
	}

	register(cleanup: () => void): void {
		this.cleanups.push(cleanup);
	}

	unload(): void {
		for (const cleanup of this.cleanups.splice(0)) cleanup();
	}
}

/** Markdown rendered the stand-in's way: enough of it (paragraphs, lists, headings, bold, code) to test against. */
export const MarkdownRenderer = {
	renders: 0,
	async render(_app: unknown, markdown: string, el: HTMLElement, _sourcePath: string, _component: unknown): Promise<void> {
		MarkdownRenderer.renders++;
		for (const block of markdown.split(/\n{2,}/)) {
			if (block.trim() === "") continue;
			const heading = /^(#{1,6}) (.*)$/.exec(block);
			if (heading) inline(el.createEl(`h${heading[1]?.length ?? 1}` as "h1"), heading[2] ?? "");
			else if (block.split("\n").every((line) => line.startsWith("- "))) {
				const list = el.createEl("ul");
				for (const line of block.split("\n")) inline(list.createEl("li"), line.slice(2));
			} else inline(el.createEl("p"), block);
		}
	},
};

function inline(el: HTMLElement, text: string): void {
	for (const part of text.split(/(\*\*[^*]+\*\*|`[^`]+`|\[\[[^\]]+\]\])/)) {
		if (part.startsWith("[[") && part.endsWith("]]")) {
			const target = part.slice(2, -2);
			el.createEl("a", { cls: "internal-link", text: target, attr: { href: target, "data-href": target } });
		} else if (part.startsWith("**") && part.endsWith("**") && part.length > 4) el.createEl("strong", { text: part.slice(2, -2) });
		else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) el.createEl("code", { text: part.slice(1, -1) });
		else if (part) el.appendText(part);
	}
}

export class ItemView extends Component {
	readonly containerEl: HTMLElement;
	readonly contentEl: HTMLElement;
	readonly app: App;

	constructor(readonly leaf: WorkspaceLeaf) {
		super();
		this.app = leaf.app;
		this.containerEl = document.createElement("div");
		this.containerEl.className = "workspace-leaf-content";
		this.containerEl.createDiv({ cls: "view-header" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
	}

	async onOpen(): Promise<void> {}

	async onClose(): Promise<void> {}

	getState(): Record<string, unknown> {
		return {};
	}

	async setState(_state: unknown, _result: unknown): Promise<void> {}
}

export class Modal extends Component {
	readonly containerEl: HTMLElement;
	readonly modalEl: HTMLElement;
	readonly titleEl: HTMLElement;
	readonly contentEl: HTMLElement;
	readonly scope = new Scope();

	constructor(readonly app: App) {
		super();
		this.containerEl = document.createElement("div");
		this.containerEl.className = "modal-container";
		this.containerEl.createDiv({ cls: "modal-bg" });
		this.modalEl = this.containerEl.createDiv({ cls: "modal" });
		this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
		this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
	}

	open(): void {
		document.body.appendChild(this.containerEl);
		this.onOpen();
	}

	close(): void {
		this.onClose();
		this.containerEl.remove();
	}

	onOpen(): void {}

	onClose(): void {}
}

/**
 * Obsidian's suggestion modal: an input, a list the arrows move through, Enter choosing the
 * selected item (the modal closes, then `onChooseSuggestion` runs), and keys registered on
 * `scope` tried first, as Obsidian does.
 */
export abstract class SuggestModal<T> extends Modal {
	readonly inputEl: HTMLInputElement;
	readonly resultContainerEl: HTMLElement;
	emptyStateText = "No results.";
	limit = 50;
	private values: T[] = [];
	private items: HTMLElement[] = [];
	private selected = 0;
	/** The promise of the latest `getSuggestions` call and its drawing, for tests to await. */
	updated: Promise<void> = Promise.resolve();

	constructor(app: App) {
		super(app);
		this.inputEl = this.modalEl.createEl("input", { cls: "prompt-input" });
		this.resultContainerEl = this.modalEl.createDiv({ cls: "prompt-results" });
		this.inputEl.addEventListener("input", () => {
			this.updated = this.update();
		});
		this.inputEl.addEventListener("keydown", (evt) => this.onKey(evt));
	}

	setPlaceholder(text: string): void {
		this.inputEl.placeholder = text;
	}

	setInstructions(instructions: { command: string; purpose: string }[]): void {
		const bar = this.modalEl.createDiv({ cls: "prompt-instructions" });
		for (const i of instructions) {
			const item = bar.createDiv({ cls: "prompt-instruction" });
			item.createSpan({ cls: "prompt-instruction-command", text: i.command });
			item.createSpan({ text: i.purpose });
		}
	}

	override open(): void {
		super.open();
		this.updated = this.update();
	}

	selectActiveSuggestion(evt: MouseEvent | KeyboardEvent): void {
		const value = this.values[this.selected];
		if (value !== undefined) this.selectSuggestion(value, evt);
	}

	selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void {
		this.close();
		this.onChooseSuggestion(value, evt);
	}

	onNoSuggestion(): void {
		this.resultContainerEl.createDiv({ cls: "suggestion-empty", text: this.emptyStateText });
	}

	abstract getSuggestions(query: string): T[] | Promise<T[]>;
	abstract renderSuggestion(value: T, el: HTMLElement): void;
	abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;

	private async update(): Promise<void> {
		const values = await this.getSuggestions(this.inputEl.value);
		this.values = values.slice(0, this.limit);
		this.resultContainerEl.empty();
		this.selected = 0;
		this.items = this.values.map((value, i) => {
			const el = this.resultContainerEl.createDiv({ cls: i === 0 ? "suggestion-item is-selected" : "suggestion-item" });
			this.renderSuggestion(value, el);
			el.addEventListener("click", (evt) => this.selectSuggestion(value, evt));
			return el;
		});
		if (this.values.length === 0) this.onNoSuggestion();
	}

	private onKey(evt: KeyboardEvent): void {
		if (this.scope.handle(evt)) return;
		if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
			this.items[this.selected]?.removeClass("is-selected");
			const step = evt.key === "ArrowDown" ? 1 : -1;
			this.selected = Math.min(this.items.length - 1, Math.max(0, this.selected + step));
			this.items[this.selected]?.addClass("is-selected");
		} else if (evt.key === "Enter") {
			this.selectActiveSuggestion(evt);
		}
	}
}

export interface FuzzyMatch<T> {
	item: T;
	match: { score: number; matches: [number, number][] };
}

/**
 * Obsidian's fuzzy finder: the items whose text holds the query's characters in order (a
 * simpler score than Obsidian's, the same choice for the tests), `onChooseItem` on a choice.
 */
export abstract class FuzzySuggestModal<T> extends SuggestModal<FuzzyMatch<T>> {
	abstract getItems(): T[];
	abstract getItemText(item: T): string;
	abstract onChooseItem(item: T, evt: MouseEvent | KeyboardEvent): void;

	getSuggestions(query: string): FuzzyMatch<T>[] {
		const wanted = query.toLowerCase();
		const fits = (text: string): boolean => {
			let at = 0;
			for (const ch of text.toLowerCase()) if (ch === wanted[at]) at++;
			return at === wanted.length;
		};
		return this.getItems()
			.filter((item) => fits(this.getItemText(item)))
			.map((item) => ({ item, match: { score: 0, matches: [] } }));
	}

	renderSuggestion(value: FuzzyMatch<T>, el: HTMLElement): void {
		el.setText(this.getItemText(value.item));
	}

	onChooseSuggestion(value: FuzzyMatch<T>, evt: MouseEvent | KeyboardEvent): void {
		this.onChooseItem(value.item, evt);
	}
}

class ButtonComponent {
	readonly buttonEl: HTMLButtonElement;

	constructor(parent: HTMLElement) {
		this.buttonEl = parent.createEl("button");
	}

	setButtonText(text: string): this {
		this.buttonEl.setText(text);
		return this;
	}

	setCta(): this {
		this.buttonEl.addClass("mod-cta");
		return this;
	}

	setDisabled(disabled: boolean): this {
		this.buttonEl.disabled = disabled;
		return this;
	}

	onClick(cb: (evt: MouseEvent) => unknown): this {
		this.buttonEl.addEventListener("click", (evt) => void cb(evt));
		return this;
	}
}

class ExtraButtonComponent {
	readonly extraSettingsEl: HTMLElement;

	constructor(parent: HTMLElement) {
		this.extraSettingsEl = parent.createDiv({ cls: "clickable-icon extra-setting-button" });
	}

	setIcon(icon: string): this {
		setIcon(this.extraSettingsEl, icon);
		return this;
	}

	setTooltip(text: string): this {
		setTooltip(this.extraSettingsEl, text);
		return this;
	}

	onClick(cb: () => unknown): this {
		this.extraSettingsEl.addEventListener("click", () => void cb());
		return this;
	}
}

class ValueComponent<T> {
	protected change: ((value: T) => unknown) | null = null;

	onChange(cb: (value: T) => unknown): this {
		this.change = cb;
		return this;
	}
}

class TextComponent extends ValueComponent<string> {
	readonly inputEl: HTMLInputElement;

	constructor(parent: HTMLElement) {
		super();
		this.inputEl = parent.createEl("input", { attr: { type: "text" } });
		this.inputEl.addEventListener("input", () => void this.change?.(this.inputEl.value));
	}

	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}

	setPlaceholder(text: string): this {
		this.inputEl.placeholder = text;
		return this;
	}
}

/**
 * Obsidian's toggle: a `div.checkbox-container` (class `is-enabled` when on) holding a checkbox
 * input; a click flips it and calls the change handler, as in the app.
 */
export class ToggleComponent extends ValueComponent<boolean> {
	readonly toggleEl: HTMLElement;
	private readonly inputEl: HTMLInputElement;

	constructor(parent: HTMLElement) {
		super();
		this.toggleEl = parent.createDiv({ cls: "checkbox-container" });
		this.inputEl = this.toggleEl.createEl("input", { attr: { type: "checkbox", tabindex: "0" } });
		this.toggleEl.addEventListener("click", () => {
			this.setValue(!this.getValue());
			void this.change?.(this.getValue());
		});
	}

	getValue(): boolean {
		return this.inputEl.checked;
	}

	setValue(on: boolean): this {
		this.inputEl.checked = on;
		this.toggleEl.toggleClass("is-enabled", on);
		return this;
	}

	setTooltip(text: string): this {
		setTooltip(this.toggleEl, text);
		return this;
	}
}

class SliderComponent extends ValueComponent<number> {
	readonly sliderEl: HTMLInputElement;

	constructor(parent: HTMLElement) {
		super();
		this.sliderEl = parent.createEl("input", { attr: { type: "range" } });
		this.sliderEl.addEventListener("input", () => void this.change?.(Number(this.sliderEl.value)));
	}

	setLimits(min: number, max: number, step: number): this {
		this.sliderEl.min = String(min);
		this.sliderEl.max = String(max);
		this.sliderEl.step = String(step);
		return this;
	}

	setValue(value: number): this {
		this.sliderEl.value = String(value);
		return this;
	}
}

export class Setting {
	readonly settingEl: HTMLElement;
	readonly nameEl: HTMLElement;
	readonly descEl: HTMLElement;
	readonly controlEl: HTMLElement;

	constructor(containerEl: HTMLElement) {
		this.settingEl = containerEl.createDiv({ cls: "setting-item" });
		const info = this.settingEl.createDiv({ cls: "setting-item-info" });
		this.nameEl = info.createDiv({ cls: "setting-item-name" });
		this.descEl = info.createDiv({ cls: "setting-item-description" });
		this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
	}

	setName(name: string): this {
		this.nameEl.setText(name);
		return this;
	}

	setDesc(desc: string): this {
		this.descEl.setText(desc);
		return this;
	}

	setHeading(): this {
		this.settingEl.addClass("setting-item-heading");
		return this;
	}

	addText(cb: (c: TextComponent) => unknown): this {
		cb(new TextComponent(this.controlEl));
		return this;
	}

	addToggle(cb: (c: ToggleComponent) => unknown): this {
		cb(new ToggleComponent(this.controlEl));
		return this;
	}

	addSlider(cb: (c: SliderComponent) => unknown): this {
		cb(new SliderComponent(this.controlEl));
		return this;
	}

	addButton(cb: (c: ButtonComponent) => unknown): this {
		cb(new ButtonComponent(this.controlEl));
		return this;
	}

	addExtraButton(cb: (c: ExtraButtonComponent) => unknown): this {
		cb(new ExtraButtonComponent(this.controlEl));
		return this;
	}
}

export interface PluginManifest {
	id: string;
	name: string;
	version: string;
	dir?: string;
}

/** Obsidian's Plugin: what it was given to register is kept for tests to read. */
export class Plugin extends Component {
	/** What loadData() returns (data.json), and what saveData() last saved. */
	data: unknown = null;
	readonly statusBarItems: HTMLElement[] = [];
	readonly commands: { id: string; name: string }[] = [];

	constructor(
		readonly app: App,
		readonly manifest: PluginManifest,
	) {
		super();
	}

	async onload(): Promise<void> {}

	onunload(): void {}

	override unload(): void {
		super.unload();
		this.onunload();
	}

	async loadData(): Promise<unknown> {
		return this.data === null ? null : structuredClone(this.data);
	}

	async saveData(data: unknown): Promise<void> {
		this.data = structuredClone(data);
	}

	addStatusBarItem(): HTMLElement {
		const el = document.createElement("div");
		this.statusBarItems.push(el);
		return el;
	}

	addCommand<T extends { id: string; name: string }>(command: T): T {
		this.commands.push(command);
		return command;
	}

	addRibbonIcon(_icon: string, _title: string, _callback: () => unknown): HTMLElement {
		return document.createElement("div");
	}

	registerView(_type: string, _factory: unknown): void {}

	registerHoverLinkSource(_id: string, _info: unknown): void {}

	registerEditorExtension(_extension: unknown): void {}

	addSettingTab(_tab: unknown): void {}
}

export class PluginSettingTab {
	readonly containerEl: HTMLElement;

	constructor(
		readonly app: App,
		readonly plugin: Plugin,
	) {
		this.containerEl = document.createElement("div");
		this.containerEl.className = "vertical-tab-content";
	}

	/** Obsidian's base class empties nothing here; subclasses call it after their own cleanup. */
	hide(): void {}
}
