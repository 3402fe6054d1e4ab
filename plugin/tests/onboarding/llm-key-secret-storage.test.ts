// The getting-started guide's language model page, in the plugin (main.ts) on an Obsidian with
// SecretStorage (1.11.4+), where load moved the key out of data.json.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

import type { OnboardingHost } from "../../src/ui/onboarding-modal";

/** The hosts main.ts hands the guide; the modal itself is not drawn (its own tests do that). */
const hosts: OnboardingHost[] = [];
vi.mock("../../src/ui/onboarding-modal", async (original) => {
	const real = await original<typeof import("../../src/ui/onboarding-modal")>();
	class Recorded extends real.OnboardingModal {
		constructor(app: ConstructorParameters<typeof real.OnboardingModal>[0], host: OnboardingHost) {
			super(app, host);
			hosts.push(host);
		}
		override open(): void {}
	}
	return { ...real, OnboardingModal: Recorded };
});

import { LLM_KEY_ID } from "../../src/secrets";
import { pluginOn } from "../plugin-host";

interface PluginInside {
	onload(): Promise<void>;
	openOnboarding(): void;
	restartSidecar(): Promise<void>;
	apiKey: { get(): string };
}

describe("the getting-started guide's language model key", () => {
	it("is the key in secret storage, and a new one goes there, never to data.json, and to the sidecar", async () => {
		const secrets = new Map<string, string>([[LLM_KEY_ID, "sk-OLD"]]);
		const p = pluginOn(mkdtempSync(join(tmpdir(), "ora-onboarding-key-")), { autoStart: false, onboarded: true, port: 1, llmUrl: "http://127.0.0.1:9/v1", llmModel: "m", llmApiKey: "" });
		Object.assign(p.app, { secretStorage: { getSecret: (id: string) => secrets.get(id) ?? null, setSecret: (id: string, v: string) => void secrets.set(id, v) } });
		const plugin = p.host as unknown as PluginInside;
		await plugin.onload(); // no layout ready: no sidecar is started
		let restarts = 0;
		plugin.restartSidecar = async () => void restarts++;
		plugin.openOnboarding();
		const guide = hosts.at(-1)!;
		expect(guide.llm()).toEqual({ url: "http://127.0.0.1:9/v1", model: "m", key: "sk-OLD" });
		await guide.saveLlm({ url: "http://127.0.0.1:9/v1", model: "m", key: "sk-NEW" });
		expect((p.host.data as Record<string, unknown>).llmApiKey).toBe("");
		expect(secrets.get(LLM_KEY_ID)).toBe("sk-NEW");
		expect(plugin.apiKey.get()).toBe("sk-NEW"); // what the restarted sidecar gets as ORA_LLM_API_KEY
		expect(restarts).toBe(1);
		await guide.saveLlm(guide.llm()); // nothing changed: no restart
		expect(restarts).toBe(1);
	});

	it("stays in data.json on an Obsidian without secret storage", async () => {
		const p = pluginOn(mkdtempSync(join(tmpdir(), "ora-onboarding-key-")), { autoStart: false, onboarded: true, port: 1, llmApiKey: "sk-OLD" });
		const plugin = p.host as unknown as PluginInside;
		await plugin.onload();
		plugin.restartSidecar = async () => undefined;
		plugin.openOnboarding();
		const guide = hosts.at(-1)!;
		expect(guide.llm().key).toBe("sk-OLD");
		await guide.saveLlm({ ...guide.llm(), key: "sk-NEW" });
		expect((p.host.data as Record<string, unknown>).llmApiKey).toBe("sk-NEW");
	});
});
