// The set-up's downloads against a loopback server that stalls, drops and misbehaves: each
// failure comes quickly (a small idle limit), names the download and its server, says what to
// do, shows no part of an address that may be secret, and leaves no file behind.
import { createHash } from "crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "fs";
import { createServer } from "http";
import type { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { DownloadError, downloadVerified, fetchJson, indexWheel } from "../../src/setup/download";
import { startFlakyIndex, UV_TAG, UV_VERSION, UV_WHEEL, type FlakyIndex } from "./flaky-index";

/** Small, so a stall is found at once; a healthy loopback transfer never pauses this long. */
const IDLE_MS = 300;

let index: FlakyIndex;
let dir = "";
let host = "";

beforeAll(async () => {
	index = await startFlakyIndex();
	host = new URL(index.url).host;
	dir = mkdtempSync(join(tmpdir(), "ora-download-"));
});

afterAll(async () => {
	await index?.close();
	if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
	index.listing = "ok";
	index.file = "ok";
});

const wheelUrl = (): string => `${index.url}/files/${UV_WHEEL}`;
const listingUrl = (): string => `${index.url}/pypi/uv/${UV_VERSION}/json`;
const sha = (): string => createHash("sha256").update(index.wheel).digest("hex");

/** The error a promise rejects with (the test fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error> {
	try {
		await promise;
	} catch (err) {
		return err as Error;
	}
	throw new Error("expected a failure");
}

describe("downloadVerified", () => {
	it("downloads and checks a file", async () => {
		const dest = join(dir, "ok", UV_WHEEL);
		mkdirSync(join(dir, "ok"));
		const seen: number[] = [];
		await downloadVerified(wheelUrl(), dest, sha(), { idleMs: 10_000, onProgress: (received) => seen.push(received) });
		expect(existsSync(dest)).toBe(true);
		expect(seen[seen.length - 1]).toBe(index.wheel.length);
		expect(readdirSync(join(dir, "ok"))).toEqual([UV_WHEEL]);
	});

	it("fails a download that stalls mid-file, saying so, and keeps no part file", async () => {
		index.file = "stall";
		const dest = join(dir, "stall.whl");
		const progress: number[] = [];
		const err = await failure(downloadVerified(wheelUrl(), dest, sha(), { idleMs: IDLE_MS, onProgress: (received) => progress.push(received) }));
		expect(err).toBeInstanceOf(DownloadError);
		expect(err.message).toBe(`The download of ${UV_WHEEL} from ${host} stalled: nothing arrived for 0.3 seconds. Check the internet connection, then try again, which starts it over.`);
		expect(progress.length).toBeGreaterThan(0); // it had started
		expect(existsSync(`${dest}.part`)).toBe(false);
		expect(existsSync(dest)).toBe(false);
	});

	it("names the download and what to do when the connection drops mid-file", async () => {
		index.file = "drop";
		const dest = join(dir, "drop.whl");
		const err = await failure(downloadVerified(wheelUrl(), dest, sha(), { idleMs: 10_000, what: `uv ${UV_VERSION} (${UV_WHEEL} from ${host})` }));
		expect(err).toBeInstanceOf(DownloadError);
		expect(err.message).toMatch(new RegExp(`^The download of uv ${UV_VERSION} \\(${UV_WHEEL.replace(/\./g, "\\.")} from ${host}\\) broke off after [\\d,]+ of ${index.wheel.length.toLocaleString("en")} bytes: the server closed the connection\\. Check the internet connection, then try again, which starts it over\\.$`));
		expect(existsSync(`${dest}.part`)).toBe(false);
		expect(existsSync(dest)).toBe(false);
	});

	it("refuses bytes that are not the ones the index states, saying which", async () => {
		const dest = join(dir, "tampered.whl");
		const err = await failure(downloadVerified(wheelUrl(), dest, "0".repeat(64), { idleMs: 10_000 }));
		expect(err.message).toMatch(new RegExp(`^The download of ${UV_WHEEL.replace(/\./g, "\\.")} from ${host} is not the file the index lists: sha256 [0-9a-f]{64} is not the 0{64} the index states\\. Try again`));
		expect(existsSync(`${dest}.part`)).toBe(false);
		expect(existsSync(dest)).toBe(false);
	});

	it("names a server that refuses the connection", async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const err = await failure(downloadVerified(`http://127.0.0.1:${port}/files/${UV_WHEEL}`, join(dir, "refused.whl"), sha(), { idleMs: 10_000 }));
		expect(err.message).toBe(`The download of ${UV_WHEEL} from 127.0.0.1:${port} could not start: the server refused the connection. Check the internet connection, then try again.`);
	});

	it("shows neither the user name, the password nor the query of an address", async () => {
		const secret = wheelUrl().replace("http://", "http://someone:hunter2@") + "?token=s3cr3t";
		index.file = "drop";
		const dropped = await failure(downloadVerified(secret, join(dir, "secret.whl"), sha(), { idleMs: 10_000 }));
		const refused = await failure(downloadVerified(`${index.url.replace("http://", "http://someone:hunter2@")}/nothing/here.whl?token=s3cr3t`, join(dir, "secret2.whl"), sha(), { idleMs: 10_000 }));
		for (const err of [dropped, refused]) {
			expect(err.message).toContain(host);
			expect(err.message).not.toMatch(/someone|hunter2|token|s3cr3t/);
		}
		expect(refused.message).toBe(`The download of here.whl from ${host} failed: the server answered HTTP 404 (not found). Try again later.`);
	});
});

describe("fetchJson and indexWheel", () => {
	it("find the wheel of a tag with its sha256", async () => {
		const file = await indexWheel(index.url, "uv", UV_VERSION, UV_TAG, { idleMs: 10_000 });
		expect(file).toEqual({ filename: UV_WHEEL, url: wheelUrl(), sha256: sha(), size: index.wheel.length });
	});

	it("fail a server that never answers, saying which list stalled", async () => {
		index.listing = "silent";
		const err = await failure(indexWheel(index.url, "uv", UV_VERSION, UV_TAG, { idleMs: IDLE_MS }));
		expect(err).toBeInstanceOf(DownloadError);
		expect(err.message).toBe(`The download of the list of uv ${UV_VERSION}'s files from ${host} stalled: nothing arrived for 0.3 seconds. Check the internet connection, then try again.`);
	});

	it("fail an answer that stalls midway", async () => {
		index.listing = "stall";
		const err = await failure(fetchJson(listingUrl(), { idleMs: IDLE_MS }));
		expect(err.message).toBe(`The download of json from ${host} stalled: nothing arrived for 0.3 seconds. Check the internet connection, then try again.`);
	});

	it("name the list when the server closes the connection before answering", async () => {
		index.listing = "closed";
		const err = await failure(indexWheel(index.url, "uv", UV_VERSION, UV_TAG, { idleMs: 10_000 }));
		expect(err.message).toBe(`The download of the list of uv ${UV_VERSION}'s files from ${host} could not start: the server closed the connection. Check the internet connection, then try again.`);
	});

	it("name the list when the answer is not JSON or an HTTP error", async () => {
		index.listing = "not-json";
		const page = await failure(indexWheel(index.url, "uv", UV_VERSION, UV_TAG, { idleMs: 10_000 }));
		expect(page.message).toBe(`The download of the list of uv ${UV_VERSION}'s files from ${host} failed: the server answered with something other than JSON (a proxy's or a captive portal's page?). Try again later.`);
		index.listing = "http-500";
		const busy = await failure(indexWheel(index.url, "uv", UV_VERSION, UV_TAG, { idleMs: 10_000 }));
		expect(busy.message).toBe(`The download of the list of uv ${UV_VERSION}'s files from ${host} failed: the server answered HTTP 500 (the server is busy or has a problem). Try again later.`);
	});

	it("is cancelled by its signal as Node reports it, not as a failure of the server", async () => {
		index.listing = "silent";
		const abort = new AbortController();
		const running = fetchJson(listingUrl(), { signal: abort.signal, idleMs: 10_000 });
		setTimeout(() => abort.abort(), 50);
		const err = await failure(running);
		expect(err).not.toBeInstanceOf(DownloadError);
		expect(err.name).toBe("AbortError");
	});
});
