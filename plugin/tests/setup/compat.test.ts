import { describe, expect, it } from "vitest";

import { parseVersion, sidecarRequirement, versionRefusal } from "../../src/setup/compat";

describe("sidecar version compatibility", () => {
	it("parses MAJOR.MINOR.PATCH and ignores what follows", () => {
		expect(parseVersion("0.1.0")).toEqual({ major: 0, minor: 1, patch: 0 });
		expect(parseVersion("v2.10.3rc1")).toEqual({ major: 2, minor: 10, patch: 3 });
		expect(parseVersion("dev")).toBeNull();
	});

	it.each([
		["1.4.2", "1.0.0"],
		["1.0.0", "1.9.9"],
		["0.1.7", "0.1.0"],
	])("accepts sidecar %s with plugin %s (same series)", (sidecar, plugin) => {
		expect(versionRefusal(sidecar, plugin)).toBeNull();
	});

	it("refuses an older sidecar and says how to upgrade it", () => {
		const message = versionRefusal("1.9.0", "2.0.0");
		expect(message).toContain("The sidecar is version 1.9.0; this plugin (2.0.0) needs 2.x.");
		expect(message).toContain("Settings → Ora Vault → Sidecar installation");
		expect(message).toContain('pip install --upgrade "ora-vault-sidecar>=2,<3"');
	});

	it("treats the minor version as the series before 1.0", () => {
		expect(versionRefusal("0.1.5", "0.2.0")).toContain('needs 0.2.x. Upgrade the sidecar');
		expect(sidecarRequirement("0.2.0")).toBe("ora-vault-sidecar>=0.2,<0.3");
	});

	it("refuses a newer sidecar and points at the plugin update", () => {
		expect(versionRefusal("3.0.0", "2.1.0")).toContain("Update the plugin in Settings → Community plugins");
	});

	it("refuses a sidecar whose version cannot be read", () => {
		expect(versionRefusal("unknown", "1.0.0")).toContain('reports version "unknown"');
	});
});
