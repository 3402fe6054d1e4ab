// The plugin's modules import one another without a cycle, type-only imports included: a module
// that needs its importer's types is one module in two files, or wants a type parameter.
import { readdirSync, readFileSync } from "fs";
import { dirname, join, normalize, relative } from "path";

import { describe, expect, it } from "vitest";

const SRC = join(__dirname, "../src");

function sources(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return sources(path);
		return entry.name.endsWith(".ts") ? [path] : [];
	});
}

/** Each module (its path under src/, without `.ts`) and the modules of src/ it imports. */
function importGraph(): Map<string, Set<string>> {
	const graph = new Map<string, Set<string>>();
	for (const file of sources(SRC)) {
		const name = relative(SRC, file).replace(/\.ts$/, "");
		const imports = new Set<string>();
		for (const match of readFileSync(file, "utf8").matchAll(/(?:from|import)\s+"(\.{1,2}\/[^"]+)"/g)) {
			imports.add(normalize(join(dirname(name), match[1] ?? "")));
		}
		imports.delete(name);
		graph.set(name, imports);
	}
	return graph;
}

/** The modules that can reach themselves again through their imports, each cycle once. */
function cycles(graph: Map<string, Set<string>>): string[][] {
	const found: string[][] = [];
	const done = new Set<string>();
	const visit = (node: string, path: string[]): void => {
		const at = path.indexOf(node);
		if (at >= 0) {
			found.push(path.slice(at));
			return;
		}
		if (done.has(node)) return;
		for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
		done.add(node);
	};
	for (const node of [...graph.keys()].sort()) visit(node, []);
	return found;
}

describe("the plugin's imports", () => {
	it("form no cycle", () => {
		const graph = importGraph();
		expect(graph.has("main")).toBe(true);
		expect(graph.get("search/shape")).toContain("search/group");
		expect(cycles(graph)).toEqual([]);
	});

	it("are read as a cycle when two modules import each other, through others or not", () => {
		const graph = new Map([
			["search/shape", new Set(["search/group"])],
			["search/group", new Set(["search/shape"])],
			["ui/a", new Set(["ui/b"])],
			["ui/b", new Set(["ui/c"])],
			["ui/c", new Set(["ui/a"])],
			["main", new Set(["ui/a", "search/shape"])],
		]);
		expect(cycles(graph)).toEqual([
			["ui/a", "ui/b", "ui/c"],
			["search/shape", "search/group"],
		]);
	});
});
