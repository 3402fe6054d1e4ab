import { createHash } from "crypto";
import { createWriteStream, promises as fs } from "fs";
import * as http from "http";
import * as https from "https";

/**
 * Downloads for the set-up, over Node's http(s) rather than Obsidian's requestUrl: a 20 MB file
 * needs progress, a stream to disk and cancelling, none of which requestUrl has.
 */

export interface IndexFile {
	filename: string;
	url: string;
	sha256: string;
	size: number;
}

export type Progress = (received: number, total: number) => void;

const MAX_REDIRECTS = 5;

function get(url: string, signal: AbortSignal | undefined, redirects = 0): Promise<http.IncomingMessage> {
	return new Promise((resolve, reject) => {
		const client = url.startsWith("https:") ? https : http;
		const request = client.get(url, { signal, headers: { "User-Agent": "ora-vault-setup" } }, (response) => {
			const status = response.statusCode ?? 0;
			const location = response.headers.location;
			if (status >= 300 && status < 400 && location) {
				response.resume();
				if (redirects >= MAX_REDIRECTS) return reject(new Error(`${url}: too many redirects`));
				resolve(get(new URL(location, url).toString(), signal, redirects + 1));
				return;
			}
			if (status !== 200) {
				response.resume();
				reject(new Error(`${url} answered HTTP ${status}`));
				return;
			}
			resolve(response);
		});
		request.on("error", reject);
	});
}

export async function fetchJson(url: string, signal?: AbortSignal): Promise<unknown> {
	const response = await get(url, signal);
	response.setEncoding("utf8");
	let body = "";
	for await (const chunk of response) body += chunk as string;
	return JSON.parse(body) as unknown;
}

/**
 * The wheel of `project==version` whose name carries `tag`, from the index's JSON API
 * (`INDEX/pypi/PROJECT/VERSION/json`, as pypi.org serves it), with the sha256 the index states.
 */
export async function indexWheel(index: string, project: string, version: string, tag: string, signal?: AbortSignal): Promise<IndexFile> {
	const api = `${index.replace(/\/+$/, "")}/pypi/${project}/${version}/json`;
	const answer = (await fetchJson(api, signal)) as { urls?: { filename?: string; url?: string; size?: number; digests?: { sha256?: string } }[] };
	for (const file of answer.urls ?? []) {
		const name = file.filename ?? "";
		if (!name.endsWith(".whl") || !name.split("-").slice(-1)[0]?.split(".").includes(tag)) continue;
		const sha256 = file.digests?.sha256 ?? "";
		if (!/^[0-9a-f]{64}$/.test(sha256) || !file.url) throw new Error(`${api} lists ${name} without a sha256`);
		return { filename: name, url: new URL(file.url, api).toString(), sha256, size: file.size ?? 0 };
	}
	throw new Error(`${api} lists no ${project} ${version} wheel for ${tag}`);
}

/**
 * Streams `url` to `dest`, checking its sha256: the bytes land in `dest.part` and become `dest`
 * only when the digest matches; on a mismatch, an error or a cancel the part file is removed.
 */
export async function downloadVerified(url: string, dest: string, sha256: string, options: { signal?: AbortSignal; onProgress?: Progress } = {}): Promise<void> {
	const part = `${dest}.part`;
	try {
		const response = await get(url, options.signal);
		const total = Number(response.headers["content-length"] ?? 0);
		const hash = createHash("sha256");
		const out = createWriteStream(part);
		let received = 0;
		try {
			for await (const chunk of response) {
				const bytes = chunk as Buffer;
				hash.update(bytes);
				received += bytes.length;
				if (!out.write(bytes)) await new Promise<void>((r) => out.once("drain", () => r()));
				options.onProgress?.(received, total);
			}
		} finally {
			await new Promise<void>((r) => out.end(r));
		}
		const digest = hash.digest("hex");
		if (digest !== sha256) throw new Error(`${url}: sha256 ${digest} is not the ${sha256} the index states`);
		await fs.rename(part, dest);
	} catch (err) {
		await fs.rm(part, { force: true });
		throw err;
	}
}
