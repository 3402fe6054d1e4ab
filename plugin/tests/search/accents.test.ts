import { describe, expect, it } from "vitest";

import { fold, foldWord } from "../../src/search/accents";

describe("fold", () => {
	it("drops the accents of Latin and Greek letters, keeping their case", () => {
		expect(fold("Cómo está Żółw").text).toBe("Como esta Zolw");
		expect(fold("Πώς να").text).toBe("Πως να");
		expect(fold("Bạn có thể đồng bộ").text).toBe("Ban co the dong bo");
	});

	it("keeps the marks of other scripts and letters of their own", () => {
		expect(fold("हिन्दी की").text).toBe("हिन्दी की");
		expect(fold("мой дом").text).toBe("мой дом"); // й keeps its breve
		expect(fold("Тёмная тема").text).toBe("Темная тема"); // ё is typed as е by most writers
	});

	it("drops Arabic and Hebrew vowel points and reads Arabic-script letters typed for one another as one", () => {
		expect(fold("غذای محلی").text).toBe(fold("غذاي محلي").text);
		expect(fold("ذَهَبَ إِلَى المَدْرَسَةِ").text).toBe(fold("ذهب الى المدرسه").text);
		expect(fold("שָׁלוֹם").text).toBe("שלום");
	});

	it("says where each folded character stands in the text, accents written apart included", () => {
		const { text, at } = fold("cafe\u0301 au");
		expect(text).toBe("cafe au");
		expect(at).toEqual([0, 1, 2, 3, 5, 6, 7, 8]);
	});
});

describe("fold of a text saved decomposed or in half-width forms", () => {
	it("reads a name macOS saved decomposed as the word typed, and half-width katakana at full width", () => {
		expect(fold("\u30d8\u309a\u30fc\u30b7\u3099").text).toBe("ページ");
		expect(fold("\u1112\u1161\u11ab\u1100\u116e\u11a8").text).toBe("한국");
		expect(fold("ｱﾌﾟﾘ").text).toBe("アプリ");
	});

	it("places each composed character at the start of what it was composed from", () => {
		const { text, at } = fold("xﾌﾟy");
		expect(text).toBe("xプy");
		expect(at).toEqual([0, 1, 3, 4]);
	});
});

describe("foldWord", () => {
	it("leaves a plain word as it is", () => {
		expect(foldWord("harbour")).toBe("harbour");
		expect(foldWord("cómo")).toBe("como");
	});
});
