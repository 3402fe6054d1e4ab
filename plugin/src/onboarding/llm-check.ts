/**
 * "Test connection" for the language model endpoint of onboarding and settings: its model list
 * (`/v1/models`), else, for servers without one, a one-token chat completion. The request goes
 * through the caller's `request` (Obsidian's requestUrl in the app: no CORS, no `fetch`).
 */

export type HttpRequest = (req: { url: string; method: string; headers: Record<string, string>; body?: string; throw: false }) => Promise<{ status: number; text: string }>;

export type LlmCheck = { ok: true; message: string } | { ok: false; message: string };

/** `<base>/v1/<tail>` for a base given with or without `/v1`, as the sidecar builds it (models/chat.py endpoint_url). */
export function endpointUrl(base: string, tail: string): string {
	const trimmed = base.trim().replace(/\/+$/, "");
	if (trimmed.endsWith(`/${tail}`)) return trimmed;
	return trimmed.endsWith("/v1") ? `${trimmed}/${tail}` : `${trimmed}/v1/${tail}`;
}

function modelIds(text: string): string[] {
	try {
		const data = (JSON.parse(text) as { data?: { id?: unknown }[] }).data ?? [];
		return data.flatMap((m) => (typeof m.id === "string" ? [m.id] : []));
	} catch {
		return [];
	}
}

export async function checkLlmEndpoint(request: HttpRequest, url: string, model: string, key: string): Promise<LlmCheck> {
	if (url.trim() === "") return { ok: false, message: "Give the endpoint's URL first." };
	const headers: Record<string, string> = key.trim() ? { Authorization: `Bearer ${key.trim()}` } : {};
	try {
		const list = await request({ url: endpointUrl(url, "models"), method: "GET", headers, throw: false });
		if (list.status === 401 || list.status === 403) return { ok: false, message: `The endpoint refused the key (HTTP ${list.status}).` };
		if (list.status === 200) {
			const ids = modelIds(list.text);
			if (model.trim() && ids.length > 0 && !ids.includes(model.trim())) {
				return { ok: false, message: `Connected, but the endpoint has no model "${model.trim()}". It has: ${ids.slice(0, 8).join(", ")}${ids.length > 8 ? ", …" : ""}.` };
			}
			return { ok: true, message: ids.length ? `Connected: ${ids.length} model${ids.length === 1 ? "" : "s"} (${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}).` : "Connected." };
		}
		const body = JSON.stringify({ model: model.trim(), messages: [{ role: "user", content: "Say OK." }], max_tokens: 1, stream: false });
		const chat = await request({ url: endpointUrl(url, "chat/completions"), method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body, throw: false });
		if (chat.status === 200) return { ok: true, message: "Connected: the model answered." };
		return { ok: false, message: `The endpoint answered HTTP ${chat.status} to a one-token chat request${chat.text ? `: ${chat.text.slice(0, 200)}` : ""}.` };
	} catch (err) {
		return { ok: false, message: `No answer from ${url.trim()}: ${err instanceof Error ? err.message : String(err)}` };
	}
}
