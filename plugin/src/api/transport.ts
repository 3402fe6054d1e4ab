// The one seam between the sidecar client and the network: Obsidian's requestUrl in the app,
// Node's http module in end-to-end tests. Neither import leaks into the client.

export type HttpMethod = "GET" | "POST";

export interface HttpRequest {
	method: HttpMethod;
	url: string;
	headers: Record<string, string>;
	body?: string;
	/** Aborted when the client gives up on the call (it has timed out); a transport may ignore it. */
	signal?: AbortSignal;
}

export interface HttpResponse {
	status: number;
	text: string;
}

export interface HttpTransport {
	/** Resolves for every HTTP status; rejects only when nothing answered (refused, reset, timeout). */
	request(req: HttpRequest): Promise<HttpResponse>;
}
