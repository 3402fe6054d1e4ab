import { createHash } from "crypto";
import { createWriteStream, promises as fs } from "fs";
import * as http from "http";
import * as https from "https";

/**
 * Downloads for the set-up, over Node's http(s) rather than Obsidian's requestUrl: a 20 MB file
 * needs progress, a stream to disk and cancelling, none of which requestUrl has.
 *
 * Every failure is a DownloadError whose message says which download failed (the file's name and
 * the server's host: never the whole address, which may carry a user name, a password or a token)
 * and what to do. A cancel (the signal aborted) is passed on as Node reports it.
 */

export interface IndexFile {
	filename: string;
	url: string;
	sha256: string;
	size: number;
}

export type Progress = (received: number, total: number) => void;

export interface DownloadOptions {
	signal?: AbortSignal;
	/**
	 * A download fails when no byte arrives for this long: while connecting, while waiting for
	 * the answer, or mid-file. pip's default (15 s) by default.
	 */
	idleMs?: number;
}

/** pip's default socket timeout. */
export const DOWNLOAD_IDLE_MS = 15_000;

const MAX_REDIRECTS = 5;

/** A download that failed; its message names the download and says what to do. */
export class DownloadError extends Error {}

/** `FILE from HOST`: what a message may show of an address (no user name, password or query). */
export function describeUrl(url: string): string {
	try {
		const parsed = new URL(url);
		const name = parsed.pathname.split("/").filter((s) => s !== "").pop() ?? "";
		let file = name;
		try {
			file = decodeURIComponent(name);
		} catch {
			// shown as it is
		}
		return file ? `${file} from ${parsed.host}` : parsed.host;
	} catch {
		return "a file with an invalid address";
	}
}

function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return "the server";
	}
}

function seconds(ms: number): string {
	const s = Math.round(ms / 100) / 10;
	return `${s} second${s === 1 ? "" : "s"}`;
}

function stalled(what: string, ms: number, retry: string): DownloadError {
	return new DownloadError(`The download of ${what} stalled: nothing arrived for ${seconds(ms)}. Check the internet connection, then try again${retry}.`);
}

/**
 * Why a connection failed, in words, from Node's error code (its message is terse: "socket hang
 * up", "aborted"). The messages name the server before this.
 */
function connectionTrouble(err: unknown): string {
	const code = (err as NodeJS.ErrnoException | null)?.code ?? "";
	if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the server could not be found (no internet connection, or a name server problem)";
	if (code === "ECONNREFUSED") return "the server refused the connection";
	if (code === "ECONNRESET" || code === "EPIPE") return "the server closed the connection";
	if (code === "ETIMEDOUT" || code === "ENETUNREACH" || code === "EHOSTUNREACH" || code === "ENETDOWN") return "the server could not be reached";
	if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `the server's certificate was refused (${code}; a proxy or security program may be in the way)`;
	return `the connection failed (${code || (err instanceof Error ? err.message : String(err))})`;
}

interface Fetch {
	url: string;
	/** What the messages call it: "uv-0.13.9-….whl from pypi.org". */
	what: string;
	/** What a retry does, appended to "try again" (", which starts the download over"). */
	retry: string;
	signal?: AbortSignal;
	idleMs: number;
}

/** The answer's headers, once a 200 comes; redirects followed. */
function get(job: Fetch, url = job.url, redirects = 0): Promise<http.IncomingMessage> {
	return new Promise((resolve, reject) => {
		const client = url.startsWith("https:") ? https : http;
		let timer = 0;
		const request = client.get(url, { signal: job.signal, headers: { "User-Agent": "ora-vault-setup" } }, (response) => {
			window.clearTimeout(timer);
			const status = response.statusCode ?? 0;
			const location = response.headers.location;
			if (status >= 300 && status < 400 && location) {
				response.resume();
				if (redirects >= MAX_REDIRECTS) {
					reject(new DownloadError(`The download of ${job.what} failed: the server redirected it more than ${MAX_REDIRECTS} times. Try again later.`));
					return;
				}
				resolve(get(job, new URL(location, url).toString(), redirects + 1));
				return;
			}
			if (status !== 200) {
				response.resume();
				const busy = status === 429 || status >= 500 ? " (the server is busy or has a problem)" : status === 404 ? " (not found)" : "";
				reject(new DownloadError(`The download of ${job.what} failed: the server answered HTTP ${status}${busy}. Try again later.`));
				return;
			}
			resolve(response);
		});
		// No byte before the answer's headers: connecting and waiting count as one idle spell.
		timer = window.setTimeout(() => request.destroy(stalled(job.what, job.idleMs, job.retry)), job.idleMs);
		request.on("error", (err) => {
			window.clearTimeout(timer);
			if (err instanceof DownloadError || job.signal?.aborted) reject(err);
			else reject(new DownloadError(`The download of ${job.what} could not start: ${connectionTrouble(err)}. Check the internet connection, then try again.`));
		});
	});
}

/**
 * Reads the answer's body, chunk by chunk; fails when no chunk comes for `idleMs` (the time
 * `onChunk` takes, writing to disk, does not count) or the connection breaks off.
 */
async function readBody(job: Fetch, response: http.IncomingMessage, onChunk: (chunk: Buffer) => void | Promise<void>): Promise<void> {
	const total = Number(response.headers["content-length"] ?? 0);
	const chunks = response[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
	let received = 0;
	let timer = 0;
	try {
		for (;;) {
			timer = window.setTimeout(() => response.destroy(stalled(job.what, job.idleMs, job.retry)), job.idleMs);
			let next: IteratorResult<Buffer>;
			try {
				next = await chunks.next();
			} catch (err) {
				if (err instanceof DownloadError || job.signal?.aborted) throw err;
				throw brokeOff(job, received, total, connectionTrouble(err));
			} finally {
				window.clearTimeout(timer);
			}
			if (next.done) break;
			received += next.value.length;
			await onChunk(next.value);
		}
	} catch (err) {
		response.destroy();
		throw err;
	}
	if (total > 0 && received < total) throw brokeOff(job, received, total, "the server closed the connection");
}

function brokeOff(job: Fetch, received: number, total: number, why: string): DownloadError {
	const howFar = total > 0 ? ` after ${received.toLocaleString("en")} of ${total.toLocaleString("en")} bytes` : "";
	return new DownloadError(`The download of ${job.what} broke off${howFar}: ${why}. Check the internet connection, then try again${job.retry}.`);
}

/** `url`'s JSON; `what` names it in messages ("the list of uv 0.13.9's files from pypi.org"). */
export async function fetchJson(url: string, options: DownloadOptions & { what?: string } = {}): Promise<unknown> {
	const job: Fetch = { url, what: options.what ?? describeUrl(url), retry: "", signal: options.signal, idleMs: options.idleMs ?? DOWNLOAD_IDLE_MS };
	const response = await get(job);
	const parts: Buffer[] = [];
	await readBody(job, response, (chunk) => void parts.push(chunk));
	try {
		return JSON.parse(Buffer.concat(parts).toString("utf8")) as unknown;
	} catch {
		throw new DownloadError(`The download of ${job.what} failed: the server answered with something other than JSON (a proxy's or a captive portal's page?). Try again later.`);
	}
}

/**
 * The wheel of `project==version` whose name carries `tag`, from the index's JSON API
 * (`INDEX/pypi/PROJECT/VERSION/json`, as pypi.org serves it), with the sha256 the index states.
 */
export async function indexWheel(index: string, project: string, version: string, tag: string, options: DownloadOptions = {}): Promise<IndexFile> {
	const api = `${index.replace(/\/+$/, "")}/pypi/${project}/${version}/json`;
	const host = hostOf(api);
	const answer = (await fetchJson(api, { ...options, what: `the list of ${project} ${version}'s files from ${host}` })) as { urls?: { filename?: string; url?: string; size?: number; digests?: { sha256?: string } }[] } | null;
	for (const file of answer?.urls ?? []) {
		const name = file.filename ?? "";
		if (!name.endsWith(".whl") || !name.split("-").slice(-1)[0]?.split(".").includes(tag)) continue;
		const sha256 = file.digests?.sha256 ?? "";
		if (!/^[0-9a-f]{64}$/.test(sha256) || !file.url) throw new DownloadError(`The package index at ${host} lists ${name} without a sha256, so it cannot be checked and is not used. Try again later.`);
		return { filename: name, url: new URL(file.url, api).toString(), sha256, size: file.size ?? 0 };
	}
	throw new DownloadError(`The package index at ${host} lists no ${project} ${version} wheel for ${tag}: install the sidecar yourself (docs/install.md) and set the ora command.`);
}

/**
 * Streams `url` to `dest`, checking its sha256: the bytes land in `dest.part` and become `dest`
 * only when the digest matches; on a mismatch, an error, a stall or a cancel the part file is
 * removed (a retry starts the download over).
 */
export async function downloadVerified(
	url: string,
	dest: string,
	sha256: string,
	options: DownloadOptions & { onProgress?: Progress; /** What messages call it; the file's name and host by default. */ what?: string } = {},
): Promise<void> {
	const part = `${dest}.part`;
	const job: Fetch = { url, what: options.what ?? describeUrl(url), retry: ", which starts it over", signal: options.signal, idleMs: options.idleMs ?? DOWNLOAD_IDLE_MS };
	try {
		const response = await get(job);
		const total = Number(response.headers["content-length"] ?? 0);
		const hash = createHash("sha256");
		const out = createWriteStream(part);
		let writeError: Error | null = null;
		out.on("error", (err) => (writeError = err));
		const saving = (): DownloadError | null => (writeError ? new DownloadError(`The download of ${job.what} could not be saved to ${part}: ${writeError.message}. Free some disk space or check the folder's permissions, then try again.`) : null);
		let received = 0;
		try {
			await readBody(job, response, async (bytes) => {
				hash.update(bytes);
				received += bytes.length;
				if (!out.write(bytes) && !writeError) {
					await new Promise<void>((resolve) => {
						out.once("drain", resolve);
						out.once("error", () => resolve());
					});
				}
				const failed = saving();
				if (failed) throw failed;
				options.onProgress?.(received, total);
			});
		} finally {
			await new Promise<void>((resolve) => {
				if (out.destroyed) return resolve();
				out.once("error", () => resolve());
				out.end(() => resolve());
			});
		}
		const failed = saving();
		if (failed) throw failed;
		const digest = hash.digest("hex");
		if (digest !== sha256) {
			throw new DownloadError(`The download of ${job.what} is not the file the index lists: sha256 ${digest} is not the ${sha256} the index states. Try again; if it fails the same way, something between this computer and the index (a proxy?) changes the file.`);
		}
		await fs.rename(part, dest);
	} catch (err) {
		await fs.rm(part, { force: true });
		throw err;
	}
}

/** An address as the set-up log may show it: a user name, a password and a query hidden. */
export function redactUrl(url: string): string {
	try {
		const parsed = new URL(url);
		if (parsed.username) parsed.username = "***";
		if (parsed.password) parsed.password = "***";
		if (parsed.search) parsed.search = "?***";
		return parsed.toString();
	} catch {
		return url;
	}
}
