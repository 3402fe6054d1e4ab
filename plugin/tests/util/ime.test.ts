import { describe, expect, it } from "vitest";

import { composing, watchComposition } from "../../src/util/ime";

describe("composing", () => {
	it("marks the key presses and inputs of a composition, Safari's closing Enter by its keyCode 229", () => {
		expect(composing(new KeyboardEvent("keydown", { key: "Enter", isComposing: true }))).toBe(true);
		expect(composing(new KeyboardEvent("keydown", { key: "Enter", keyCode: 229 }))).toBe(true);
		expect(composing(new InputEvent("input", { isComposing: true }))).toBe(true);
		expect(composing(new KeyboardEvent("keydown", { key: "Enter" }))).toBe(false);
		expect(composing(new InputEvent("input"))).toBe(false);
		expect(composing(new Event("input"))).toBe(false);
	});
});

describe("watchComposition", () => {
	it("is active from compositionstart to compositionend, and says when the word is picked", () => {
		const input = document.createElement("input");
		let picked = 0;
		const ime = watchComposition((type, handler) => input.addEventListener(type, handler), () => (picked += 1));
		expect(ime.active).toBe(false);
		input.dispatchEvent(new CompositionEvent("compositionstart"));
		expect(ime.active).toBe(true);
		expect(picked).toBe(0);
		input.dispatchEvent(new CompositionEvent("compositionend"));
		expect(ime.active).toBe(false);
		expect(picked).toBe(1);
	});
});
