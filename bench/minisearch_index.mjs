// Omnisearch's engine on a vault, for comparison with Ora's words pass (bench_findable.py).
//
// Omnisearch (github:scambier/obsidian-omnisearch, src/search/search-engine.ts, tokenizer.ts,
// repositories/documents-repository.ts) indexes every note into MiniSearch on a cold start: a
// document per note (basename, directory, aliases, content, headings by level; tags and mtime
// stored), its own tokenizer (words split at brackets and spaces, plus tokens split at
// punctuation, plus their hyphen and camelCase parts), terms lower-cased without diacritics,
// added 500 notes at a time with `addAllAsync`. This script does the same from disk with its
// default settings (no URL tokens, no Chinese segmenter, no PDFs or images), and times it. Inside
// Obsidian the headings, tags and aliases come from Obsidian's metadata cache, parsed before
// Omnisearch runs; here a small parser does it and its time is counted (`parse_s`). Omnisearch
// then saves the index to IndexedDB; not done or counted here.
//
//     node bench/minisearch_index.mjs VAULT [--words FILE.json]
//
// `--words`: {path: word} of notes each searched for by its word (Omnisearch's query shape,
// default fuzziness, no prefix), counted `found` when among the first ten. Prints one JSON line:
// notes, read_s, parse_s, index_s, wall_s (read + parse + index), cpu_s (user + system of the
// whole process), peak_rss_mib, terms, sampled, found.

import { readFile, readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { performance } from "node:perf_hooks";
import MiniSearch from "minisearch";

const started = performance.now();

// Omnisearch's separators (src/globals.ts, a table of code points): spaces, line breaks and
// punctuation except the hyphen (its parts are added apart), plus ^ ` | = < >; here as Unicode
// classes, the same for the text of these vaults.
const SPACE_OR_PUNCTUATION = /[[\t\n\r\p{Z}\p{P}^`\|=<>]--[\-]]+/v;
const BRACKETS_AND_SPACE = /[|[\](){}<> \t\n\r]/u;
const DIACRITICS = /(?!\u30FC|\u309A|\u3099)\p{Diacritic}/gu;

function removeDiacritics(text) {
	const kept = text.replaceAll("`", "[__backtick__]").replaceAll("^", "[__caret__]");
	return kept.normalize("NFD").replace(DIACRITICS, "").normalize("NFC")
		.replaceAll("[__backtick__]", "`").replaceAll("[__caret__]", "^");
}

function splitHyphens(token) {
	return token.includes("-") ? token.split("-").filter(Boolean) : [];
}

function splitCamelCase(token) {
	return /[a-z][A-Z]/.test(token) ? token.replace(/([a-z](?=[A-Z]))/g, "$1 ").split(" ").filter(Boolean) : [];
}

// Omnisearch's tokenizeForIndexing (no URLs, no Chinese segmenter: its defaults).
function tokenize(text) {
	const words = text.split(BRACKETS_AND_SPACE);
	const tokens = text.split(SPACE_OR_PUNCTUATION);
	return [...tokens.flatMap((t) => [t, ...splitHyphens(t), ...splitCamelCase(t)]), ...words].filter(Boolean);
}

// Its tokenizeForSearch: the groups of a query, any of which may match.
function searchQuery(text) {
	const tokens = text.split(SPACE_OR_PUNCTUATION).filter(Boolean);
	return {
		combineWith: "OR",
		queries: [
			{ combineWith: "AND", queries: tokens },
			{ combineWith: "AND", queries: text.split(BRACKETS_AND_SPACE).filter(Boolean) },
			{ combineWith: "AND", queries: tokens.flatMap(splitHyphens) },
			{ combineWith: "AND", queries: tokens.flatMap(splitCamelCase) },
		],
	};
}

// What Obsidian's metadata cache gives Omnisearch: headings by level, tags, aliases.
function metadata(content) {
	const front = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(content);
	const listed = (key) => {
		if (!front) return [];
		const inline = new RegExp(`^${key}:[ \\t]*(.+)$`, "m").exec(front[1]);
		if (inline) return inline[1].replace(/^\[|\]$/g, "").split(",").map((s) => s.trim().replace(/^["']|["']$/g, "")).filter(Boolean);
		const block = new RegExp(`^${key}:[ \\t]*\\r?\\n((?:[ \\t]*- .*\\r?\\n?)+)`, "m").exec(front[1]);
		return block ? block[1].split(/\r?\n/).map((l) => l.replace(/^\s*- /, "").trim()).filter(Boolean) : [];
	};
	const body = front ? content.slice(front[0].length) : content;
	const headings = [[], [], []];
	const inlineTags = [];
	let fenced = false;
	for (const line of body.split("\n")) {
		if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
		if (fenced) continue;
		const h = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
		if (h) {
			if (h[1].length <= 3) headings[h[1].length - 1].push(h[2]);
			continue;
		}
		for (const m of line.matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]+)/gu)) inlineTags.push(`#${m[1]}`);
	}
	// Omnisearch un-nests tags: "#a/b" also gives "#a" and "#b".
	const tags = [...listed("tags").map((t) => (t.startsWith("#") ? t : `#${t}`)), ...inlineTags];
	const unnested = [...new Set(tags.flatMap((t) => [...t.split("/").filter(Boolean).map((p) => (p.startsWith("#") ? p : `#${p}`)), t]))];
	return { headings, tags: unnested, aliases: listed("aliases") };
}

async function notes(root, dir = root) {
	const found = [];
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		if (entry.name.startsWith(".")) continue; // .obsidian, .trash, .ora
		const full = join(dir, entry.name);
		if (entry.isDirectory()) found.push(...(await notes(root, full)));
		else if (entry.name.endsWith(".md")) found.push(relative(root, full).split(sep).join("/"));
	}
	return found;
}

function chunked(items, size) {
	const out = [];
	for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
	return out;
}

async function main() {
	const args = process.argv.slice(2);
	const vault = args[0];
	const wordsAt = args.indexOf("--words");
	if (!vault || vault.startsWith("--")) throw new Error("usage: node bench/minisearch_index.mjs VAULT [--words FILE.json]");
	const words = wordsAt >= 0 ? JSON.parse(await readFile(args[wordsAt + 1], "utf-8")) : {};

	const t0 = performance.now();
	const paths = await notes(vault);
	const read = [];
	// 500 files at a time: all at once runs out of file descriptors at 50,000 notes.
	for (const batch of chunked(paths, 500)) {
		read.push(...(await Promise.all(batch.map(async (path) => {
			const full = join(vault, path);
			const [content, st] = await Promise.all([readFile(full, "utf-8"), stat(full)]);
			return { path, content, mtime: st.mtimeMs };
		}))));
	}
	const t1 = performance.now();
	const documents = read.map(({ path, content, mtime }) => {
		const meta = metadata(content);
		const name = path.split("/").pop();
		return {
			basename: name.slice(0, -".md".length),
			displayTitle: "",
			content,
			cleanedContent: removeDiacritics(content).replace(/(\*|_)+(.+?)(\*|_)+/g, (_m, _a, inner) => inner),
			path,
			mtime,
			tags: meta.tags,
			unmarkedTags: meta.tags.map((t) => t.replace("#", "")),
			aliases: meta.aliases.join(""),
			headings1: meta.headings[0].join(" "),
			headings2: meta.headings[1].join(" "),
			headings3: meta.headings[2].join(" "),
		};
	});
	const t2 = performance.now();
	const index = new MiniSearch({
		tokenize,
		extractField: (doc, field) => (field === "directory" ? doc.path.split("/").slice(0, -1).join("/") : doc[field]),
		processTerm: (term) => removeDiacritics(term).toLowerCase(),
		idField: "path",
		fields: ["basename", "directory", "aliases", "content", "headings1", "headings2", "headings3"],
		storeFields: ["tags", "mtime"],
	});
	for (const batch of chunked(documents, 500)) await index.addAllAsync(batch);
	const t3 = performance.now();
	const cpu = process.cpuUsage();

	let found = 0;
	for (const [path, word] of Object.entries(words)) {
		const results = index.search(searchQuery(word), {
			// Omnisearch's default fuzziness ("1"): none up to 3 letters, 5 % up to 5, else 10 %.
			fuzzy: (term) => (term.length <= 3 ? 0 : term.length <= 5 ? 0.05 : 0.1),
			boost: { basename: 10, aliases: 10, directory: 7, headings1: 6, headings2: 5, headings3: 4 },
			tokenize: (text) => [text],
		});
		if (results.slice(0, 10).some((r) => r.id === path)) found += 1;
	}
	const s = (ms) => Math.round(ms) / 1000;
	console.log(JSON.stringify({
		notes: documents.length,
		read_s: s(t1 - t0),
		parse_s: s(t2 - t1),
		index_s: s(t3 - t2),
		wall_s: s(t3 - t0),
		cpu_s: s((cpu.user + cpu.system) / 1000),
		process_wall_s: s(t3 - started),
		peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
		terms: index.termCount,
		sampled: Object.keys(words).length,
		found,
	}));
}

await main();
