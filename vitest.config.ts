import { fileURLToPath } from "node:url";

import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: {
		// The `obsidian` package ships types only; tests run against a small stand-in.
		alias: { obsidian: fileURLToPath(new URL("./plugin/tests/__mocks__/obsidian.ts", import.meta.url)) },
	},
	test: {
		include: ["plugin/tests/**/*.test.ts"],
		// happy-dom gives every test a window (timers, DOM) as Obsidian's renderer does; Node's
		// modules (http, child_process) stay available for the sidecar and stream tests.
		environment: "happy-dom",
		setupFiles: ["plugin/tests/setup.ts"],
		testTimeout: 20_000,
		hookTimeout: 180_000,
		// End-to-end files each start an `ora serve`; one at a time keeps a 2-core machine responsive.
		fileParallelism: false,
	},
});
