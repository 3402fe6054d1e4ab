// End-to-end: the excluded-folders picker's logic and client against a real `ora serve`: a folder
// picked is written to the vault's ora.yaml and leaves the index; removed again, it returns.
import { readFileSync, writeFileSync } from "fs";
import { join } from "path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ExcludedFoldersController } from "../../src/vault/excluded-folders";
import { E2E_TIMEOUT_MS, SKIP_REASON, startSidecar, waitForStatus, type LiveSidecar } from "./harness";

let live: LiveSidecar;

describe.skipIf(SKIP_REASON !== null)(`excluded folders${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	beforeAll(async () => {
		live = await startSidecar();
	});
	afterAll(async () => {
		await live?.stop();
	});

	it("takes a picked folder out of the index through ora.yaml and brings it back when removed", async () => {
		const notices: string[] = [];
		const picker = new ExcludedFoldersController({
			vaultSettings: () => live.client.vaultSettings(),
			setExcluded: (path, excluded) => live.client.setExcluded(path, excluded),
			folders: () => ["Engrams", "Resources"],
			notify: (text) => void notices.push(text),
		});
		writeFileSync(join(live.vault, "ora.yaml"), "# my settings\nlint:\n  untyped: off\n");
		await picker.refresh();
		expect(picker.state.entries).toEqual([]);
		const before = await live.client.status();

		await picker.add("Resources");
		expect(notices).toEqual([]);
		expect(picker.state.entries).toEqual(["Resources/"]);
		expect(readFileSync(join(live.vault, "ora.yaml"), "utf8")).toBe("# my settings\nlint:\n  untyped: off\nexclude:\n  - Resources/\n");
		await waitForStatus(live.client, (s) => !s.reconcile.running && s.files === before.files - 1);
		expect(picker.candidates()).toEqual(["Engrams"]);

		await picker.remove("Resources/");
		expect(picker.state.entries).toEqual([]);
		await waitForStatus(live.client, (s) => !s.reconcile.running && s.files === before.files);
	});

	it("leaves a malformed ora.yaml as it is and tells the user why", async () => {
		const notices: string[] = [];
		const picker = new ExcludedFoldersController({
			vaultSettings: () => live.client.vaultSettings(),
			setExcluded: (path, excluded) => live.client.setExcluded(path, excluded),
			folders: () => ["Engrams"],
			notify: (text) => void notices.push(text),
		});
		writeFileSync(join(live.vault, "ora.yaml"), "exclude: [broken\n");
		await picker.add("Engrams");
		expect(notices).toHaveLength(1);
		expect(notices[0]).toMatch(/^Could not exclude Engrams\/: ora.yaml was not changed: ora.yaml is not valid YAML/);
		expect(readFileSync(join(live.vault, "ora.yaml"), "utf8")).toBe("exclude: [broken\n");
	});
});
