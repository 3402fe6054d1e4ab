// A small stand-in for the `obsidian` module (which ships types only): the classes and functions
// the plugin's UI uses, with the same names and the behaviour the tests and screenshots rely on.
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

/** Notices shown, newest last, so tests can read what the user was told. */
export const shownNotices: string[] = [];

export class Notice {
	constructor(message: string) {
		shownNotices.push(message);
	}
}

export function requestUrl(): never {
	throw new Error("requestUrl is Obsidian's; tests use NodeHttpTransport");
}

export const editorInfoField = {};

export class TFile {
	path = "";
	extension = "md";
	basename = "";
}

export class FileSystemAdapter {
	getBasePath(): string {
		return "";
	}
}

export class MarkdownView {}

export class App {}

export class WorkspaceLeaf {}

class Component {
	private cleanups: (() => void)[] = [];

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

export class ItemView extends Component {
	readonly containerEl: HTMLElement;
	readonly contentEl: HTMLElement;

	constructor(readonly leaf: WorkspaceLeaf) {
		super();
		this.containerEl = document.createElement("div");
		this.containerEl.className = "workspace-leaf-content";
		this.containerEl.createDiv({ cls: "view-header" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
	}

	async onOpen(): Promise<void> {}

	async onClose(): Promise<void> {}
}

export class Modal extends Component {
	readonly containerEl: HTMLElement;
	readonly modalEl: HTMLElement;
	readonly titleEl: HTMLElement;
	readonly contentEl: HTMLElement;

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

class ToggleComponent extends ValueComponent<boolean> {
	readonly toggleEl: HTMLInputElement;

	constructor(parent: HTMLElement) {
		super();
		this.toggleEl = parent.createEl("input", { attr: { type: "checkbox" } });
		this.toggleEl.addEventListener("change", () => void this.change?.(this.toggleEl.checked));
	}

	setValue(on: boolean): this {
		this.toggleEl.checked = on;
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

export class Plugin extends Component {}

export class PluginSettingTab {
	readonly containerEl: HTMLElement;

	constructor(
		readonly app: App,
		readonly plugin: Plugin,
	) {
		this.containerEl = document.createElement("div");
		this.containerEl.className = "vertical-tab-content";
	}
}
