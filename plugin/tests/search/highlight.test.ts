import { describe, expect, it } from "vitest";

import languages from "../../../schema/languages.json";
import { highlight, queryTerms, snippet } from "../../src/search/highlight";

describe("queryTerms", () => {
	it("lower-cases, dedups, drops one-letter words and puts longer terms first", () => {
		expect(queryTerms("Spaced a spaced Repetition?")).toEqual(["repetition", "spaced"]);
	});

	it("keeps accented letters and digits", () => {
		expect(queryTerms("Café 2024")).toEqual(["café", "2024"]);
	});

	it("composes a query typed decomposed or in half-width forms", () => {
		expect(queryTerms("ｱﾌﾟﾘ")).toEqual(["アプリ"]);
		expect(queryTerms("\u1112\u1161\u11ab\u1100\u116e\u11a8")).toEqual(["한국"]);
	});
});

describe("highlight", () => {
	it("lights up a word the note saved decomposed or in half-width forms, whole", () => {
		const decomposed = "この\u30d8\u309a\u30fc\u30b7\u3099を開く";
		expect(highlight(decomposed, ["ページ"]).filter((s) => s.hit)).toEqual([{ text: "\u30d8\u309a\u30fc\u30b7\u3099", hit: true }]);
		expect(highlight("新しいｱﾌﾟﾘです", queryTerms("アプリ")).filter((s) => s.hit)).toEqual([{ text: "ｱﾌﾟﾘ", hit: true }]);
		expect(highlight("\u1112\u1161\u11ab\u1100\u116e\u11a8 여행", ["한국"])).toEqual([
			{ text: "\u1112\u1161\u11ab\u1100\u116e\u11a8", hit: true },
			{ text: " 여행", hit: false },
		]);
	});

	it("marks terms at word starts, case-insensitively", () => {
		expect(highlight("Spaced repetition works; prepare well.", ["rep", "spaced"])).toEqual([
			{ text: "Spaced", hit: true },
			{ text: " ", hit: false },
			{ text: "rep", hit: true },
			{ text: "etition works; prepare well.", hit: false },
		]);
	});

	it("marks adjacent hits separately and keeps the text intact", () => {
		const segments = highlight("memory, memory.", ["memory"]);
		expect(segments.filter((s) => s.hit)).toHaveLength(2);
		expect(segments.map((s) => s.text).join("")).toBe("memory, memory.");
	});

	it("treats regex characters in the query as text", () => {
		expect(highlight("abc", ["a.c"])).toEqual([{ text: "abc", hit: false }]);
		expect(highlight("a a.c", ["a.c"]).filter((s) => s.hit)).toEqual([{ text: "a.c", hit: true }]);
	});

	it("marks a term typed without its accents, or with them, as BM25 matched it", () => {
		expect(highlight("¿Cómo hago una nota?", ["como"]).filter((s) => s.hit)).toEqual([{ text: "Cómo", hit: true }]);
		expect(highlight("como hago", ["cómo"]).filter((s) => s.hit)).toEqual([{ text: "como", hit: true }]);
		// An accent written apart from its letter is inside the hit, and the text stays intact.
		const segments = highlight("un cafe\u0301 solo", ["cafe"]);
		expect(segments.filter((s) => s.hit)).toEqual([{ text: "cafe\u0301", hit: true }]);
		expect(segments.map((s) => s.text).join("")).toBe("un cafe\u0301 solo");
	});

	it("returns the whole text unmarked without terms", () => {
		expect(highlight("plain", [])).toEqual([{ text: "plain", hit: false }]);
		expect(highlight("", ["x"])).toEqual([]);
	});
});

describe("snippet", () => {
	const long = `${"intro words ".repeat(40)}the key finding about retrieval practice ${"outro words ".repeat(40)}`;

	it("centres the window on the first hit and marks both cuts", () => {
		const s = snippet(long, ["retrieval"], 120);
		expect(s).toContain("retrieval practice");
		expect(s.startsWith("…")).toBe(true);
		expect(s.endsWith("…")).toBe(true);
		expect(s.length).toBeLessThanOrEqual(122);
	});

	it("returns short text whole, with whitespace collapsed", () => {
		expect(snippet("a\n\n  b", ["a"])).toBe("a b");
	});

	it("starts at the beginning when nothing matches", () => {
		expect(snippet(long, ["absent"], 60).startsWith("intro")).toBe(true);
	});
});

describe("highlight in scripts without spaces", () => {
	it("highlights Chinese and Japanese terms inside a run of text, where no word boundary stands", () => {
		const terms = queryTerms("酵母の発酵");
		expect(terms).toEqual(["酵母", "発酵"]);
		const hits = highlight("天然酵母で発酵させたパン", terms).filter((s) => s.hit).map((s) => s.text);
		expect(hits).toEqual(["酵母", "発酵"]);
		expect(highlight("野生酵母面包", queryTerms("酵母")).filter((s) => s.hit).map((s) => s.text)).toEqual(["酵母"]);
	});

	it("highlights a Korean term with its particle attached, and still only word starts in other scripts", () => {
		expect(highlight("서울에서 빵을", queryTerms("서울")).filter((s) => s.hit).map((s) => s.text)).toEqual(["서울"]);
		expect(highlight("prepare a repetition of 酵母", queryTerms("rep 酵母")).filter((s) => s.hit).map((s) => s.text)).toEqual(["rep", "酵母"]);
	});
});

/** The hit runs of `text` for `query`'s terms. */
function lit(text: string, query: string): string[] {
	return highlight(text, queryTerms(query))
		.filter((s) => s.hit)
		.map((s) => s.text);
}

describe("highlight keeps a word's combining marks and joiners", () => {
	it("highlights a Hindi or Bengali word with its virama and vowel signs whole", () => {
		expect(queryTerms("हिन्दी है")).toEqual(["हिन्दी"]); // "है" is one letter with its sign: dropped, as "a" is
		expect(lit("मुझे हिन्दी भाषा पसंद है", "हिन्दी")).toEqual(["हिन्दी"]);
		expect(lit("এটি স্বয়ংক্রিয় অনুবাদ", "স্বয়ংক্রিয়")).toEqual(["স্বয়ংক্রিয়"]);
	});

	it("finds no word start after a combining mark, and ends a hit after its marks", () => {
		expect(highlight("हिन्दी", ["न्दी"])).toEqual([{ text: "हिन्दी", hit: false }]);
		expect(highlight("cafe\u0301 ouvert", ["cafe"])).toEqual([
			{ text: "cafe\u0301", hit: true },
			{ text: " ouvert", hit: false },
		]);
	});

	it("highlights an Arabic-script or Hebrew word written with vowel points, or typed on the other keyboard", () => {
		expect(lit("امروز غذای محلی خوردیم", "غذاي")).toEqual(["غذای"]);
		expect(lit("ذَهَبَ إِلَى المَدْرَسَةِ صباحا", "المدرسه")).toEqual(["المَدْرَسَةِ"]);
		expect(lit("שָׁלוֹם לְכֻלָּם", "שלום")).toEqual(["שָׁלוֹם"]);
	});

	it("highlights a Russian word written with ё for a query typed with е", () => {
		expect(lit("Включите тёмную тему", "темную")).toEqual(["тёмную"]);
	});

	it("highlights a ligature or ß for a query typed with their letters", () => {
		expect(lit("Au cœur de la ville", "coeur")).toEqual(["cœur"]);
		expect(lit("Die Straße am Hafen", "strasse")).toEqual(["Straße"]);
	});

	it("highlights Chinese written in one script for a query typed in the other", () => {
		expect(lit("後來我們發現了問題", "发现")).toEqual(["發現"]);
		expect(lit("后来我们发现了问题", "發現")).toEqual(["发现"]);
	});

	it("highlights a Persian word with its zero-width non-joiner whole, typed with the joiner or without", () => {
		expect(lit("من می\u200Cخواهم بروم", "می\u200Cخواهم")).toEqual(["می\u200Cخواهم"]);
		expect(lit("من می\u200Cخواهم بروم", "میخواهم")).toEqual(["می\u200Cخواهم"]);
	});
});

describe("highlight in Thai, Lao, Khmer and Myanmar, written without spaces between words", () => {
	it("highlights a Thai word inside a run of text", () => {
		expect(lit("ฉันชอบกินข้าวผัดมาก", "ข้าวผัด")).toEqual(["ข้าวผัด"]);
	});

	it("highlights a Khmer word inside a run of text", () => {
		expect(lit("ខ្ញុំចូលចិត្តភាសាខ្មែរណាស់", "ភាសាខ្មែរ")).toEqual(["ភាសាខ្មែរ"]);
	});

	// One word inside a run per script schema/languages.json leaves unspaced: a script added there
	// without a case here fails, so the sidecar's list and the plugin's cannot drift apart unseen.
	const samples: Record<string, [run: string, word: string]> = {
		thai: ["ฉันชอบกินข้าวผัดมาก", "ข้าวผัด"],
		lao: ["ຂ້ອຍມັກພາສາລາວຫຼາຍ", "ພາສາລາວ"],
		khmer: ["ខ្ញុំចូលចិត្តភាសាខ្មែរណាស់", "ភាសាខ្មែរ"],
		myanmar: ["ကျွန်တော်မြန်မာစာကြိုက်တယ်", "မြန်မာစာ"],
	};

	it("covers exactly the scripts languages.json marks unspaced, each matched inside a run", () => {
		const unspaced = Object.entries(languages.scripts)
			.filter(([, script]) => typeof script === "object" && "spaced" in script && !script.spaced)
			.map(([name]) => name);
		expect(Object.keys(samples).sort()).toEqual(unspaced.sort());
		for (const [run, word] of Object.values(samples)) expect(lit(run, word)).toEqual([word]);
	});
});

describe("snippet of text without spaces between words", () => {
	const filler = "กินข้าว".repeat(60);

	it("keeps the match in the window when the nearest space lies past it", () => {
		const text = `${filler}ผัดไทย${filler} ${filler}`;
		const s = snippet(text, queryTerms("ผัดไทย"), 240);
		expect(s).toContain("ผัดไทย");
		expect(s.length).toBeLessThanOrEqual(242);
	});

	it("cuts between graphemes, never between a letter and its mark", () => {
		const text = `${filler}ผัดไทย${filler}`;
		// 80 characters before the match (a third of the window) falls on the tone mark of ข้
		const s = snippet(text, ["ผัดไทย"], 240);
		const body = s.replace(/^…|…$/g, "");
		expect(s).toContain("ผัดไทย");
		expect(s.startsWith("…") && s.endsWith("…")).toBe(true);
		const at = text.indexOf(body);
		expect(at).toBeGreaterThan(0);
		expect(body).not.toMatch(/^\p{M}/u);
		expect(text.slice(at + body.length)).not.toMatch(/^\p{M}/u);
	});
});
