import { describe, expect, it } from "vitest";

import { ApiKey, LLM_KEY_ID, secretStore, type SecretStore } from "../src/secrets";
import { mergeSettings } from "../src/settings";

/** Obsidian's SecretStorage as it behaves: a map of ids to secrets. */
function aStore(): SecretStore & { secrets: Map<string, string> } {
	const secrets = new Map<string, string>();
	return { secrets, getSecret: (id) => secrets.get(id) ?? null, setSecret: (id, secret) => void secrets.set(id, secret) };
}

describe("ApiKey", () => {
	it("keeps the key in SecretStorage where Obsidian has it, never in data.json", async () => {
		const store = aStore();
		const settings = mergeSettings(null);
		const saved: string[] = [];
		const key = new ApiKey(secretStore({ secretStorage: store }), settings, async () => void saved.push(JSON.stringify(settings)));
		await key.set("sk-123");
		expect(store.secrets.get(LLM_KEY_ID)).toBe("sk-123");
		expect(settings.llmApiKey).toBe("");
		expect(saved.join("")).not.toContain("sk-123");
		expect(key.get()).toBe("sk-123");
		expect(key.where).toContain("secret storage");
	});

	it("moves a key an earlier version saved in data.json into SecretStorage", async () => {
		const store = aStore();
		const settings = mergeSettings({ llmApiKey: "sk-old" });
		const saved: string[] = [];
		const key = new ApiKey(secretStore({ secretStorage: store }), settings, async () => void saved.push(JSON.stringify(settings)));
		await key.migrate();
		expect(store.secrets.get(LLM_KEY_ID)).toBe("sk-old");
		expect(settings.llmApiKey).toBe("");
		expect(saved.at(-1)).not.toContain("sk-old");
		expect(key.get()).toBe("sk-old");
	});

	it("falls back to data.json on an Obsidian without SecretStorage", async () => {
		const settings = mergeSettings(null);
		let saves = 0;
		const key = new ApiKey(secretStore({}), settings, async () => void saves++);
		await key.set("sk-123");
		expect(settings.llmApiKey).toBe("sk-123");
		expect(saves).toBe(1);
		expect(key.get()).toBe("sk-123");
		await key.migrate(); // nowhere to move it
		expect(settings.llmApiKey).toBe("sk-123");
		expect(key.where).toContain("data.json");
	});
});
