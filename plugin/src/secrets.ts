import type { OraSettings } from "./settings";

/** Obsidian's SecretStorage (1.11.4+): the keychain shared by the app, outside data.json. */
export interface SecretStore {
	getSecret(id: string): string | null;
	setSecret(id: string, secret: string): void;
}

/** The id the language model key is kept under (lowercase, digits and dashes, as SecretStorage wants). */
export const LLM_KEY_ID = "ora-vault-llm-api-key";

/** The app's SecretStorage, or null on an Obsidian before 1.11.4 (the key then stays in data.json). */
export function secretStore(app: unknown): SecretStore | null {
	const store = (app as { secretStorage?: Partial<SecretStore> }).secretStorage;
	return store && typeof store.getSecret === "function" && typeof store.setSecret === "function" ? (store as SecretStore) : null;
}

/**
 * The language model's API key: in SecretStorage where Obsidian has it, so that it is not written
 * in plain text to data.json (which syncs and gets shared); in data.json otherwise.
 */
export class ApiKey {
	constructor(
		private readonly store: SecretStore | null,
		private readonly settings: Pick<OraSettings, "llmApiKey">,
		private readonly save: () => Promise<void>,
	) {}

	/** Where the key is kept, in words for the settings tab. */
	get where(): string {
		return this.store ? "Kept in Obsidian's secret storage, not in the plugin's data.json." : "Kept in the plugin's data.json (this Obsidian has no secret storage; 1.11.4 and later do).";
	}

	get(): string {
		return (this.store?.getSecret(LLM_KEY_ID) ?? "") || this.settings.llmApiKey;
	}

	async set(value: string): Promise<void> {
		if (this.store) {
			this.store.setSecret(LLM_KEY_ID, value);
			if (this.settings.llmApiKey === "") return;
			this.settings.llmApiKey = "";
		} else {
			this.settings.llmApiKey = value;
		}
		await this.save();
	}

	/** A key an earlier version left in data.json moves to SecretStorage (and out of data.json). */
	async migrate(): Promise<void> {
		if (this.store && this.settings.llmApiKey !== "") await this.set(this.settings.llmApiKey);
	}
}
