import type { ConversationEntry } from "./ask/model";

/** The plugin's saved settings. Every key has a default, so older saved data still loads. */
export interface OraSettings {
	/** The `ora` executable: a name on PATH or an absolute path (e.g. REPO/.venv/bin/ora). */
	oraCommand: string;
	/** 0 = automatic: the sidecar picks a free port and records it in DATA/server.json. */
	port: number;
	/** The sidecar's data folder; empty means VAULT/.ora. The token is read from DATA/token. */
	dataFolder: string;
	/** Start `ora serve` when nothing answers on the port. */
	autoStart: boolean;
	/** Results asked for per search. */
	resultCount: number;
	searchDelayMs: number;
	lintDelayMs: number;
	/** Quiet time before queued vault events are sent as one batch. */
	eventDelayMs: number;
	lintInEditor: boolean;
	/** OpenAI-compatible endpoint for Ask (Ollama, llama.cpp server, LM Studio); empty: extractive answers. */
	llmUrl: string;
	llmModel: string;
	llmApiKey: string;
	/** Hosts not on this machine that may receive private text (`private_remote_ok`); empty: none. */
	trustedHosts: string;
	/** A SearXNG instance for web results in Ask (`searxng_url`); empty: no web search from the plugin. */
	searxngUrl: string;
	/** Ask panel conversations, newest first. */
	conversations: ConversationEntry[];
	/** Seconds before the sidecar abandons a language-model request; 0 keeps its default. */
	llmTimeoutSeconds: number;
	/** Longest generated answer in tokens; 0 keeps the sidecar's default. */
	answerMaxTokens: number;
	/** Recent conversation turns sent with a question, in tokens; 0 keeps the sidecar's default. */
	memoryWindowTokens: number;
	/** The embedder the sidecar starts with (`embed_model`): auto or a pulled one; empty keeps the sidecar's default. */
	embedModel: string;
	/** The first-run guide was shown (settings saved before it existed count as shown). */
	onboarded: boolean;
}

export const DEFAULT_SETTINGS: Readonly<OraSettings> = Object.freeze({
	oraCommand: "ora",
	port: 0,
	dataFolder: "",
	autoStart: true,
	resultCount: 10,
	searchDelayMs: 250,
	lintDelayMs: 750,
	eventDelayMs: 500,
	lintInEditor: true,
	llmUrl: "",
	llmModel: "",
	llmApiKey: "",
	trustedHosts: "",
	searxngUrl: "",
	conversations: [] as ConversationEntry[],
	onboarded: false,
	llmTimeoutSeconds: 0,
	answerMaxTokens: 0,
	memoryWindowTokens: 0,
	embedModel: "",
});

/**
 * Saved data merged over the defaults: unknown keys are dropped, and a value of the wrong type
 * (hand-edited data.json, an older version) falls back to its default instead of breaking load.
 */
export function mergeSettings(saved: unknown): OraSettings {
	const merged: OraSettings = { ...DEFAULT_SETTINGS };
	if (typeof saved !== "object" || saved === null) return merged;
	const record = saved as Record<string, unknown>;
	for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof OraSettings)[]) {
		const value = record[key];
		if (typeof value === typeof DEFAULT_SETTINGS[key] && !Number.isNaN(value)) {
			(merged as unknown as Record<string, unknown>)[key] = value;
		}
	}
	if (!isPortSetting(merged.port)) merged.port = DEFAULT_SETTINGS.port;
	merged.conversations = conversationList(record.conversations);
	if (!("onboarded" in record)) merged.onboarded = true; // a user from before the guide
	return merged;
}

/** Saved conversations, keeping only well-formed entries (a fresh array, never the default's). */
function conversationList(value: unknown): ConversationEntry[] {
	if (!Array.isArray(value)) return [];
	return value.filter((c: unknown): c is ConversationEntry => {
		if (typeof c !== "object" || c === null) return false;
		const entry = c as Record<string, unknown>;
		return typeof entry.id === "string" && typeof entry.title === "string" && typeof entry.updated === "number";
	});
}

export function isPort(value: number): boolean {
	return Number.isInteger(value) && value > 0 && value < 65536;
}

/** A valid Port setting: a port, or 0 for automatic. */
export function isPortSetting(value: number): boolean {
	return value === 0 || isPort(value);
}

export function baseUrl(settings: Pick<OraSettings, "port">): string {
	return `http://127.0.0.1:${settings.port}`;
}

/** Absolute data folder: the setting if given (absolute, or relative to the vault), else VAULT/.ora. */
export function dataFolder(settings: Pick<OraSettings, "dataFolder">, vaultPath: string): string {
	const folder = settings.dataFolder.trim();
	if (folder === "") return joinPath(vaultPath, ".ora");
	return isAbsolute(folder) ? folder : joinPath(vaultPath, folder);
}

export function tokenPath(settings: Pick<OraSettings, "dataFolder">, vaultPath: string): string {
	return joinPath(dataFolder(settings, vaultPath), "token");
}

/** DATA/server.json: which process serves the vault, on which port (`ora serve` writes it). */
export function recordPath(settings: Pick<OraSettings, "dataFolder">, vaultPath: string): string {
	return joinPath(dataFolder(settings, vaultPath), "server.json");
}

/**
 * Arguments for `ora serve`, so the spawned sidecar uses the same port and data folder; with
 * `parentPid` it exits by itself when that process (Obsidian) is gone.
 */
export function serveArgs(settings: Pick<OraSettings, "port" | "dataFolder">, vaultPath: string, parentPid?: number): string[] {
	const args = ["serve", vaultPath, "--port", String(settings.port)];
	if (settings.dataFolder.trim() !== "") args.push("--data", dataFolder(settings, vaultPath));
	if (parentPid !== undefined) args.push("--parent-pid", String(parentPid));
	return args;
}

/** The sidecar settings (docs/settings.md) each plugin setting sets when it is not 0. */
const SIDECAR_ENV: Readonly<Record<"llmTimeoutSeconds" | "answerMaxTokens" | "memoryWindowTokens", string>> = Object.freeze({
	llmTimeoutSeconds: "ORA_LLM_TIMEOUT",
	answerMaxTokens: "ORA_ANSWER_MAX_TOKENS",
	memoryWindowTokens: "ORA_MEMORY_WINDOW_TOKENS",
});

/** The sidecar settings each plugin text setting sets when it is not empty: the Ask model's endpoint, the embedder, the hosts trusted with private text, the web search. */
const SIDECAR_TEXT_ENV: Readonly<Record<"llmUrl" | "llmModel" | "llmApiKey" | "embedModel" | "trustedHosts" | "searxngUrl", string>> = Object.freeze({
	llmUrl: "ORA_LLM_URL",
	llmModel: "ORA_LLM_MODEL",
	llmApiKey: "ORA_LLM_API_KEY",
	embedModel: "ORA_EMBED_MODEL",
	trustedHosts: "ORA_PRIVATE_REMOTE_OK",
	searxngUrl: "ORA_SEARXNG_URL",
});

/** The environment for `ora serve`: `base` plus the language model, embedder and budgets the user set. */
export function serveEnv(
	settings: Pick<OraSettings, "llmTimeoutSeconds" | "answerMaxTokens" | "memoryWindowTokens"> &
		Partial<Pick<OraSettings, "llmUrl" | "llmModel" | "llmApiKey" | "embedModel" | "trustedHosts" | "searxngUrl">>,
	base: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
	const env = { ...base };
	for (const [key, name] of Object.entries(SIDECAR_ENV) as [keyof typeof SIDECAR_ENV, string][]) {
		if (settings[key] > 0) env[name] = String(settings[key]);
	}
	for (const [key, name] of Object.entries(SIDECAR_TEXT_ENV) as [keyof typeof SIDECAR_TEXT_ENV, string][]) {
		const value = settings[key]?.trim() ?? "";
		if (value !== "") env[name] = value;
	}
	return env;
}

function isAbsolute(path: string): boolean {
	return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

function joinPath(base: string, name: string): string {
	return base.endsWith("/") || base.endsWith("\\") ? base + name : `${base}/${name}`;
}
