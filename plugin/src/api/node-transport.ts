import * as http from "http";

import type { HttpRequest, HttpResponse, HttpTransport } from "./transport";

/**
 * HttpTransport over Node's http module (loopback only). Obsidian uses requestUrl instead; this one
 * serves end-to-end tests and any Node tool that drives the sidecar.
 */
export class NodeHttpTransport implements HttpTransport {
	constructor(private readonly timeoutMs = 30_000) {}

	request(req: HttpRequest): Promise<HttpResponse> {
		return new Promise((resolve, reject) => {
			const headers: Record<string, string | number> = { ...req.headers };
			if (req.body !== undefined) headers["Content-Length"] = Buffer.byteLength(req.body);
			const outgoing = http.request(req.url, { method: req.method, headers }, (res) => {
				const chunks: Buffer[] = [];
				res.on("data", (chunk: Buffer) => chunks.push(chunk));
				res.on("end", () =>
					resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
				);
				res.on("error", reject);
			});
			outgoing.setTimeout(this.timeoutMs, () => outgoing.destroy(new Error("timed out")));
			outgoing.on("error", reject);
			// The client gave up (timed out): free the socket rather than wait for a stuck sidecar.
			req.signal?.addEventListener("abort", () => outgoing.destroy(new Error("aborted")), { once: true });
			if (req.body !== undefined) outgoing.write(req.body);
			outgoing.end();
		});
	}
}
