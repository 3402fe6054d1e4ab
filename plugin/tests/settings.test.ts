import { describe, expect, it } from "vitest";

import { baseUrl, DEFAULT_SETTINGS, mergeSettings, recordPath, serveArgs, tokenPath } from "../src/settings";

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
