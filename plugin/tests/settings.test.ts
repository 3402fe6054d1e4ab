import { describe, expect, it } from "vitest";

import { baseUrl, DEFAULT_SETTINGS, mergeSettings, recordPath, serveArgs, serveEnv, tokenPath } from "../src/settings";

describe("mergeSettings", () => {
	it("gives defaults for missing data and keeps the defaults frozen", () => {
		expect(mergeSettings(null)).toEqual(DEFAULT_SETTINGS);
		expect(Object.isFrozen(DEFAULT_SETTINGS)).toBe(true);
		const merged = mergeSettings(undefined);
		merged.port = 1;
		expect(DEFAULT_SETTINGS.port).toBe(0);
	});

	it("keeps saved values, adds new keys, drops unknown ones and wrong types", () => {
		const merged = mergeSettings({ port: 50000, autoStart: "yes", oldKey: 1, oraCommand: "/x/ora" });
		expect(merged.port).toBe(50000);
		expect(merged.autoStart).toBe(DEFAULT_SETTINGS.autoStart);
		expect(merged.oraCommand).toBe("/x/ora");
		expect(merged.lintInEditor).toBe(true);
		expect("oldKey" in merged).toBe(false);
	});

	it("never carries private mode: one saved by hand or an older version is dropped, and no setting holds it", () => {
		const merged = mergeSettings({ private: true, privateMode: true, searchPrivate: true });
		expect(Object.keys(merged).filter((key) => /private/i.test(key))).toEqual([]);
		expect(Object.keys(DEFAULT_SETTINGS).filter((key) => /private/i.test(key))).toEqual([]);
	});

	it("rejects a port outside 1–65535, keeping 0 for automatic", () => {
		expect(mergeSettings({ port: 70000 }).port).toBe(0);
		expect(mergeSettings({ port: 1.5 }).port).toBe(0);
		expect(mergeSettings({ port: 0 }).port).toBe(0);
		expect(mergeSettings({ port: 47113 }).port).toBe(47113);
	});
});

describe("paths and arguments", () => {
	it("reads the token from VAULT/.ora unless a data folder is set", () => {
		expect(tokenPath({ dataFolder: "" }, "/v")).toBe("/v/.ora/token");
		expect(tokenPath({ dataFolder: "/data/ora" }, "/v")).toBe("/data/ora/token");
		expect(tokenPath({ dataFolder: "idx" }, "/v/")).toBe("/v/idx/token");
		expect(tokenPath({ dataFolder: "C:\\ora" }, "C:\\v")).toBe("C:\\ora/token");
	});

	it("starts ora serve on the configured port and data folder", () => {
		expect(serveArgs({ port: 5000, dataFolder: "" }, "/v")).toEqual(["serve", "/v", "--port", "5000"]);
		expect(serveArgs({ port: 5000, dataFolder: "/d" }, "/v")).toEqual(["serve", "/v", "--port", "5000", "--data", "/d"]);
		expect(baseUrl({ port: 5000 })).toBe("http://127.0.0.1:5000");
		expect(serveArgs({ port: 0, dataFolder: "" }, "/v", 4242)).toEqual(["serve", "/v", "--port", "0", "--parent-pid", "4242"]);
		expect(recordPath({ dataFolder: "" }, "/v")).toBe("/v/.ora/server.json");
	});
});

describe("serveEnv", () => {
	it("passes the language-model budgets the user set to the sidecar, and only those", () => {
		const base = { PATH: "/bin", ORA_LLM_URL: "http://127.0.0.1:1" };
		expect(serveEnv(DEFAULT_SETTINGS, base)).toEqual(base);
		const env = serveEnv({ llmTimeoutSeconds: 90, answerMaxTokens: 0, memoryWindowTokens: 2048 }, base);
		expect(env).toEqual({ ...base, ORA_LLM_TIMEOUT: "90", ORA_MEMORY_WINDOW_TOKENS: "2048" });
		expect(base).toEqual({ PATH: "/bin", ORA_LLM_URL: "http://127.0.0.1:1" });
	});

	it("passes the Ask model's endpoint, name and key when set, keeping the environment's otherwise", () => {
		const base = { ORA_LLM_URL: "http://127.0.0.1:1", ORA_LLM_MODEL: "from-env" };
		const set = { ...DEFAULT_SETTINGS, llmUrl: " http://127.0.0.1:11434/v1 ", llmModel: "llama3.2", llmApiKey: "" };
		expect(serveEnv(set, base)).toEqual({ ORA_LLM_URL: "http://127.0.0.1:11434/v1", ORA_LLM_MODEL: "llama3.2" });
		expect(serveEnv({ ...DEFAULT_SETTINGS, llmApiKey: "k" }, base)).toEqual({ ...base, ORA_LLM_API_KEY: "k" });
	});

	it("passes the hosts trusted with private text when set, else none but the environment's", () => {
		expect(serveEnv(DEFAULT_SETTINGS, {})).toEqual({});
		expect(serveEnv({ ...DEFAULT_SETTINGS, trustedHosts: " gpu-box.lan " }, {})).toEqual({ ORA_PRIVATE_REMOTE_OK: "gpu-box.lan" });
	});

	it("starts the sidecar with the embedder chosen in the Models section, else the environment's", () => {
		const base = { ORA_EMBED_MODEL: "int8" };
		expect(serveEnv(DEFAULT_SETTINGS, base)).toEqual(base);
		expect(serveEnv({ ...DEFAULT_SETTINGS, embedModel: "bge-small-en-v1.5" }, base)).toEqual({ ORA_EMBED_MODEL: "bge-small-en-v1.5" });
	});

	it("keeps only well-formed saved conversations", () => {
		const saved = { conversations: [{ id: "a", title: "t", updated: 1 }, { id: 2 }, "x"] };
		expect(mergeSettings(saved).conversations).toEqual([{ id: "a", title: "t", updated: 1 }]);
		expect(mergeSettings({ conversations: {} }).conversations).toEqual([]);
	});
});
