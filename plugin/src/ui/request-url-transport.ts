import { requestUrl } from "obsidian";

import type { HttpRequest, HttpResponse, HttpTransport } from "../api/transport";

/**
 * HttpTransport over Obsidian's requestUrl (not subject to CORS, unlike fetch in the renderer).
 * requestUrl can neither time out nor be aborted: the client's timer ends a call that hangs, and
 * drops its answer if it comes later.
 */
export class RequestUrlTransport implements HttpTransport {
	async request(req: HttpRequest): Promise<HttpResponse> {
		const response = await requestUrl({
			url: req.url,
			method: req.method,
			headers: req.headers,
			body: req.body,
			contentType: req.headers["Content-Type"],
			throw: false,
		});
		return { status: response.status, text: response.text };
	}
}
