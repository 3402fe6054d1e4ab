// Obsidian's DOM helpers (createEl, createDiv, empty, setText, …) on happy-dom's HTMLElement,
// with the behaviour Obsidian documents, so views render in tests and screenshots as in the app.

interface ElInfo {
	cls?: string | string[];
	text?: string | DocumentFragment;
	attr?: Record<string, string | number | boolean | null>;
	title?: string;
	type?: string;
	value?: string;
	placeholder?: string;
	href?: string;
}

function applyInfo(el: HTMLElement, info: ElInfo | string | undefined): void {
	if (info === undefined) return;
	if (typeof info === "string") {
		el.className = info;
		return;
	}
	const classes = Array.isArray(info.cls) ? info.cls : (info.cls ?? "").split(" ");
	for (const c of classes) if (c) el.classList.add(c);
	if (typeof info.text === "string") el.textContent = info.text;
	else if (info.text) el.appendChild(info.text);
	for (const [key, value] of Object.entries(info.attr ?? {})) {
		if (value === null || value === false) continue;
		el.setAttribute(key, String(value));
	}
	for (const key of ["title", "type", "value", "placeholder", "href"] as const) {
		const value = info[key];
		if (value !== undefined) el.setAttribute(key, value);
	}
}

export function installDomHelpers(win: Window & typeof globalThis): void {
	const proto = win.HTMLElement.prototype as unknown as Record<string, unknown>;
	if (proto.createEl) return;
	function createEl(this: HTMLElement, tag: string, info?: ElInfo | string, callback?: (el: HTMLElement) => void): HTMLElement {
		const el = this.ownerDocument.createElement(tag);
		applyInfo(el, info);
		this.appendChild(el);
		callback?.(el);
		return el;
	}
	proto.createEl = createEl;
	proto.createDiv = function (this: HTMLElement, info?: ElInfo | string) {
		return createEl.call(this, "div", info);
	};
	proto.createSpan = function (this: HTMLElement, info?: ElInfo | string) {
		return createEl.call(this, "span", info);
	};
	proto.empty = function (this: HTMLElement) {
		while (this.firstChild) this.removeChild(this.firstChild);
	};
	proto.setText = function (this: HTMLElement, text: string) {
		this.textContent = text;
	};
	proto.appendText = function (this: HTMLElement, text: string) {
		this.appendChild(this.ownerDocument.createTextNode(text));
	};
	proto.addClass = function (this: HTMLElement, ...classes: string[]) {
		this.classList.add(...classes);
	};
	proto.removeClass = function (this: HTMLElement, ...classes: string[]) {
		this.classList.remove(...classes);
	};
	proto.toggleClass = function (this: HTMLElement, cls: string, on: boolean) {
		this.classList.toggle(cls, on);
	};
	proto.hasClass = function (this: HTMLElement, cls: string) {
		return this.classList.contains(cls);
	};
	proto.setCssProps = function (this: HTMLElement, props: Record<string, string>) {
		for (const [key, value] of Object.entries(props)) this.style.setProperty(key, value);
	};
	// Obsidian's createFragment, and the helpers its callback uses on the fragment.
	const fragment = win.DocumentFragment.prototype as unknown as Record<string, unknown>;
	fragment.createEl = createEl;
	fragment.appendText = proto.appendText;
	(win as unknown as Record<string, unknown>).createFragment = (callback?: (f: DocumentFragment) => void) => {
		const f = win.document.createDocumentFragment();
		callback?.(f);
		return f;
	};
	proto.setAttr = function (this: HTMLElement, name: string, value: string | number | boolean | null) {
		if (value === null) this.removeAttribute(name);
		else this.setAttribute(name, String(value));
	};
}
