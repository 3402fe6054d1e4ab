// Bundles plugin/src/main.ts into main.js at the repository root (where Obsidian loads it).
// `node esbuild.config.mjs production` builds once, minified; without the argument it watches.
import { builtinModules } from "node:module";
import esbuild from "esbuild";

const production = process.argv[2] === "production";

const context = await esbuild.context({
	entryPoints: ["plugin/src/main.ts"],
	bundle: true,
	// Obsidian provides these at run time; bundling a second CodeMirror breaks editor extensions.
	external: [
		"obsidian",
		"electron",
		"@codemirror/*",
		"@lezer/*",
		...builtinModules,
		...builtinModules.map((name) => `node:${name}`),
	],
	format: "cjs",
	platform: "node",
	target: "es2021",
	logLevel: "info",
	sourcemap: production ? false : "inline",
	treeShaking: true,
	minify: production,
	outfile: "main.js",
});

if (production) {
	await context.rebuild();
	await context.dispose();
} else {
	await context.watch();
}
