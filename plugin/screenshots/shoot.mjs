// `npm run screenshots`: bundles plugin/screenshots/harness.ts (the plugin's real views against
// the test stand-in for `obsidian`), opens each scene in headless Chromium and writes
// docs/screenshots/{search,lint,triage,related,quick,ask,lintfix,models,extract,onboarding,onboarding-models,onboarding-language,ask-stream,triage-pages}.png.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import esbuild from "esbuild";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const out = join(root, "docs/screenshots");
const work = mkdtempSync(join(tmpdir(), "ora-shots-"));

await esbuild.build({
	entryPoints: [join(here, "harness.ts")],
	bundle: true,
	format: "iife",
	platform: "browser",
	target: "es2021",
	alias: { obsidian: join(root, "plugin/tests/__mocks__/obsidian.ts") },
	// The stand-in's requestUrl goes over Node's http, which a browser lacks; the scenes never call it.
	plugins: [
		{
			name: "no-node-http",
			setup(build) {
				build.onResolve({ filter: /^https?$/ }, (args) => ({ path: args.path, namespace: "no-node-http" }));
				build.onLoad({ filter: /.*/, namespace: "no-node-http" }, () => ({ contents: "export {};", loader: "js" }));
			},
		},
	],
	outfile: join(work, "harness.js"),
	logLevel: "warning",
});
const css = readFileSync(join(here, "theme.css"), "utf8") + readFileSync(join(root, "styles.css"), "utf8");
writeFileSync(join(work, "index.html"), `<!doctype html><meta charset="utf-8"><style>${css}</style><body><script src="harness.js"></script></body>`);

// SCENES=triage,lint shoots only those.
const only = process.env.SCENES ? new Set(process.env.SCENES.split(",")) : null;
const scenes = [
	{ name: "search", size: { width: 900, height: 760 } },
	{ name: "lint", size: { width: 900, height: 520 }, hover: ".cm-lintRange-error" },
	{ name: "triage", size: { width: 1100, height: 900 } },
	{ name: "related", size: { width: 900, height: 640 } },
	{ name: "quick", size: { width: 900, height: 620 } },
	{ name: "ask", size: { width: 900, height: 760 } },
	{ name: "lintfix", size: { width: 900, height: 520 }, hover: ".cm-lintRange-error" },
	{ name: "models", size: { width: 900, height: 640 } },
	{ name: "extract", size: { width: 1000, height: 1000 } },
	{ name: "onboarding", size: { width: 900, height: 760 } },
	{ name: "onboarding-models", size: { width: 900, height: 620 } },
	{ name: "onboarding-language", size: { width: 900, height: 760 } },
	{ name: "ask-stream", size: { width: 900, height: 860 } },
	{ name: "triage-pages", size: { width: 1100, height: 900 } },
].filter((scene) => only === null || only.has(scene.name));

mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
	args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
try {
	for (const scene of scenes) {
		const page = await browser.newPage({ viewport: scene.size, deviceScaleFactor: 1 });
		page.on("pageerror", (err) => console.error(`${scene.name}: ${err.message}`));
		await page.goto(`${pathToFileURL(join(work, "index.html")).href}#${scene.name}`);
		await page.waitForSelector("body[data-ready=true]", { state: "attached" });
		if (scene.hover) {
			await page.waitForSelector(scene.hover);
			await page.hover(scene.hover);
			await page.waitForSelector(".cm-tooltip-lint");
		}
		await page.waitForTimeout(300);
		await page.screenshot({ path: join(out, `${scene.name}.png`) });
		console.log(`wrote docs/screenshots/${scene.name}.png`);
		await page.close();
	}
} finally {
	await browser.close();
	rmSync(work, { recursive: true, force: true });
}
