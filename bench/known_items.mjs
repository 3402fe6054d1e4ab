// The known-item questions of bench/bench_known_items.py, written by an independent word splitter:
// for each note of each language folder of Obsidian's help vault, three consecutive words (as
// ICU's word segmenter, Intl.Segmenter, splits them: Thai, Khmer and Chinese included) from the
// middle of its longest line of prose, numbers left out. A user remembering a phrase of a note.
//
//     node bench/known_items.mjs /tmp/obsidian-help en es de ... > bench/data/multilingual/known_items.json
import fs from "node:fs";
import path from "node:path";

const [root, ...langs] = process.argv.slice(2);
const out = {};
function walk(dir) {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".md") ? [path.join(dir, e.name)] : []);
}
for (const lang of langs) {
	const words = new Intl.Segmenter(lang === "zh-TW" ? "zh-Hant" : lang, { granularity: "word" });
	const items = [];
	for (const file of walk(path.join(root, lang)).sort()) {
		let text = fs.readFileSync(file, "utf8");
		if (text.startsWith("---\n")) {
			const end = text.indexOf("\n---", 4);
			if (end > 0) text = text.slice(end + 4);
		}
		const lines = text.split("\n").filter((l) => l.trim() && !/^\s*(#|\||!|```|>|<|-\s*\[)/.test(l))
			.map((l) => l.replace(/\[\[([^\]|]*\|)?([^\]]*)\]\]/g, "$2").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[*_`=]/g, ""));
		if (!lines.length) continue;
		// The longest line, cut: a segment object copies its whole input.
		const line = lines.reduce((a, b) => (b.length > a.length ? b : a)).slice(0, 1500);
		const found = [...words.segment(line)].filter((s) => s.isWordLike).map((s) => s.segment)
			.filter((w) => !/^[\p{N}]+$/u.test(w));
		if (found.length < 6) continue;
		const mid = Math.floor(found.length / 2) - 1;
		items.push([found.slice(mid, mid + 3).join(" "), path.relative(path.join(root, lang), file)]);
	}
	out[lang] = items;
}
// One item a line: diffs stay readable.
const body = Object.entries(out).map(([lang, items]) =>
	`${JSON.stringify(lang)}: [\n${items.map((i) => `  ${JSON.stringify(i)}`).join(",\n")}\n]`);
process.stdout.write(`{\n${body.join(",\n")}\n}\n`);
