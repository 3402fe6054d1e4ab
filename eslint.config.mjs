// Obsidian's recommended rules (eslint-plugin-obsidianmd, which brings typescript-eslint's
// type-checked set) over the plugin's TypeScript.
import { defineConfig, globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
	globalIgnores(["main.js", "dist", "node_modules", ".venv"]),
	...obsidianmd.configs.recommended,
	{
		languageOptions: {
			parserOptions: {
				projectService: {
					allowDefaultProject: ["eslint.config.mjs", "esbuild.config.mjs", "plugin/screenshots/*.mjs", "bench/*.mjs"],
				},
				tsconfigRootDir: import.meta.dirname,
			},
		},
		rules: {
			"obsidianmd/ui/sentence-case": ["warn", { enforceCamelCaseLower: true, brands: ["Ora", "Ora Vault"] }],
		},
	},
	{
		// Tests, the obsidian stand-in, the screenshot tool and benchmarks run in Node/happy-dom, not
		// in the app: popout-window helpers (window timers, createEl on a window) do not apply there.
		files: ["plugin/tests/**", "plugin/screenshots/**", "plugin/bench/**", "bench/*.mjs"],
		rules: {
			"obsidianmd/prefer-create-el": "off",
			"obsidianmd/prefer-window-timers": "off",
			"obsidianmd/no-global-this": "off",
			"@typescript-eslint/no-deprecated": "off",
		},
	},
	{
		files: ["plugin/screenshots/*.mjs", "plugin/bench/**", "bench/*.mjs"],
		rules: { "obsidianmd/rule-custom-message": "off", "no-console": "off" },
	},
]);
