// A loopback package index and Python mirror for the set-up tests, so the installer runs as it
// does for a user, minus the internet:
// - uv's real wheel for this platform, listed by a JSON API as pypi.org's (`/pypi/uv/V/json`),
//   with its sha256. The wheel comes from ORA_UV_WHEEL, else `pip download uv==V` into a cache
//   folder (the machine's PyPI access; CI has it). Without either the tests fail, saying so.
// - a "simple" index (`/simple/PROJECT/`) carrying the package files given (the sidecar's wheel,
//   and for the benchmark its dependencies), with their sha256 in the links as PyPI gives them.
// - a python-build-standalone mirror: uv's download metadata (`/python/downloads.json`) naming a
//   tarball in python-build-standalone's install_only layout (`python/bin`, `python/lib`) built
//   here from the machine's own CPython, with its sha256.
import { execFileSync } from "child_process";
import { createHash } from "crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "http";
import type { AddressInfo } from "net";
import { tmpdir } from "os";
import { basename, join } from "path";

import installer from "../../../schema/installer.json";

export const UV_VERSION = installer.uv.version;

const digests = new Map<string, string>();

/** A file's sha256 (remembered: the benchmark's index lists hundreds of MB). */
export function sha256(file: string): string {
	const key = `${file}:${statSync(file).mtimeMs}`;
	let digest = digests.get(key);
	if (digest === undefined) {
		digest = createHash("sha256").update(readFileSync(file)).digest("hex");
		digests.set(key, digest);
	}
	return digest;
}

/** The first Python 3.11+ on the test machine's PATH (the installer's children see none). */
export function fixturePython(): string {
	for (const candidate of [process.env.ORA_TEST_PYTHON, "python3", "python"]) {
		if (!candidate) continue;
		try {
			const out = execFileSync(candidate, ["-c", "import sys; print(sys.version_info >= (3, 11), sys.executable)"], { encoding: "utf8" }).trim();
			if (out.startsWith("True ")) return out.slice(5);
		} catch {
			// not there: the next one
		}
	}
	throw new Error("The set-up tests build their fixtures with a Python 3.11+ (set ORA_TEST_PYTHON); none was found.");
}

/** uv's wheel for this platform: ORA_UV_WHEEL, else downloaded once by pip into a cache folder. */
export function uvWheel(python: string): string {
	if (process.env.ORA_UV_WHEEL) return process.env.ORA_UV_WHEEL;
	const cache = join(tmpdir(), `ora-uv-wheel-${UV_VERSION}`);
	const cached = () => (existsSync(cache) ? readdirSync(cache).find((f) => f.startsWith(`uv-${UV_VERSION}-`) && f.endsWith(".whl")) : undefined);
	if (!cached()) {
		mkdirSync(cache, { recursive: true });
		try {
			execFileSync(python, ["-m", "pip", "download", `uv==${UV_VERSION}`, "--no-deps", "--only-binary=:all:", "-d", cache, "--disable-pip-version-check", "-q"], { stdio: "pipe", timeout: 300_000 });
		} catch (err) {
			const why = err instanceof Error ? err.message : String(err);
			throw new Error(`The set-up tests need uv ${UV_VERSION}'s wheel for this platform: pip download failed (${why}). Give the machine PyPI access, or set ORA_UV_WHEEL to the wheel's path.`);
		}
	}
	const name = cached();
	if (!name) throw new Error(`pip download left no uv ${UV_VERSION} wheel in ${cache}`);
	return join(cache, name);
}

const TARBALL_WRITER = String.raw`
import os, sys, sysconfig, tarfile
out = sys.argv[1]
mm = "%d.%d" % sys.version_info[:2]
stdlib = sysconfig.get_paths()["stdlib"]
skip = {"test", "site-packages", "dist-packages", "__pycache__", "idlelib", "tkinter", "turtledemo"}
def keep(info):
    return None if any(p in skip for p in info.name.split("/")[3:]) else info
path = os.path.join(out, "cpython-%d.%d.%d-test-install_only.tar.gz" % sys.version_info[:3])
with tarfile.open(path, "w:gz", compresslevel=1, dereference=True) as tar:
    tar.add(os.path.realpath(sys.executable), "python/bin/python" + mm)
    tar.add(stdlib, "python/lib/python" + mm, filter=keep)
    dynload = os.path.join(stdlib, "lib-dynload")
    if not os.path.isdir(dynload):
        tar.add(sysconfig.get_config_var("DESTSHARED"), "python/lib/python%s/lib-dynload" % mm)
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        lib = os.path.join(sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME"))
        tar.add(lib, "python/lib/" + os.path.basename(lib))
print(path)
`;

export interface PythonTarball {
	file: string;
	version: string;
	minor: string;
}

/** The machine's CPython in python-build-standalone's install_only layout. */
export function pythonTarball(python: string, dir: string): PythonTarball {
	if (process.platform === "win32") throw new Error("the Python mirror fixture builds POSIX layouts only");
	const file = execFileSync(python, ["-c", TARBALL_WRITER, dir], { encoding: "utf8" }).trim();
	const version = /cpython-(\d+\.\d+\.\d+)-/.exec(file)?.[1] ?? "";
	return { file, version, minor: version.split(".").slice(0, 2).join(".") };
}

function pythonDownloads(base: string, tarball: PythonTarball): unknown {
	const [major, minor, patch] = tarball.version.split(".").map(Number);
	const arch = { x64: "x86_64", arm64: "aarch64" }[process.arch as "x64" | "arm64"] ?? process.arch;
	const os = process.platform === "darwin" ? "darwin" : "linux";
	const libc = process.platform === "darwin" ? "none" : "gnu";
	return {
		[`cpython-${tarball.version}-${os}-${arch}-${libc}`]: {
			name: "cpython", arch: { family: arch, variant: null }, os, libc, major, minor, patch, prerelease: "",
			url: `${base}/files/${basename(tarball.file)}`, sha256: sha256(tarball.file), variant: null, build: "20990101",
		},
	};
}

export interface LocalIndex {
	url: string;
	pythonDownloads: string;
	/** Requests seen, as "GET /path". */
	seen: string[];
	/** While set, a request for the Python tarball is held open (a slow download to cancel). */
	holdPython: boolean;
	/** Set when a Python request is held: resolves once its connection closes (its client was killed). */
	held: Promise<void> | null;
	/** States a wrong sha256 for uv's wheel. */
	tamperUv: boolean;
	/** Files the simple index carries (wheels, sdists); more may be pushed. */
	packages: string[];
	close(): Promise<void>;
}

/** A project's name as the simple index spells it (PEP 503), from a wheel's or an sdist's file name. */
export function projectOf(file: string): string {
	const name = basename(file);
	const project = name.endsWith(".whl") ? (name.split("-")[0] ?? "") : name.replace(/-[^-]+\.(tar\.gz|zip)$/, "");
	return project.toLowerCase().replace(/[-_.]+/g, "-");
}

export async function startLocalIndex(uv: string, tarball: PythonTarball, packages: string[]): Promise<LocalIndex> {
	const index: LocalIndex = {
		url: "",
		pythonDownloads: "",
		seen: [],
		holdPython: false,
		held: null,
		tamperUv: false,
		packages,
		close: () =>
			new Promise((r) => {
				server.closeAllConnections();
				server.close(() => r());
			}),
	};
	const files = (): Map<string, string> => new Map([uv, tarball.file, ...index.packages].map((f) => [basename(f), f]));
	const handle = (req: IncomingMessage, res: ServerResponse): void => {
		const url = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
		index.seen.push(`${req.method} ${url}`);
		if (url === `/pypi/uv/${UV_VERSION}/json`) {
			const digest = index.tamperUv ? "0".repeat(64) : sha256(uv);
			res.setHeader("Content-Type", "application/json");
			res.end(JSON.stringify({ urls: [{ filename: basename(uv), url: `/files/${basename(uv)}`, size: statSync(uv).size, digests: { sha256: digest } }] }));
			return;
		}
		const project = /^\/simple\/([^/]+)\/$/.exec(url)?.[1];
		if (project !== undefined) {
			const links = index.packages.filter((f) => projectOf(f) === project).map((w) => `<a href="/files/${basename(w)}#sha256=${sha256(w)}">${basename(w)}</a>`);
			if (links.length === 0) {
				res.statusCode = 404;
				res.end("not found");
				return;
			}
			res.setHeader("Content-Type", "text/html");
			res.end(`<!DOCTYPE html><html><body>${links.join("\n")}</body></html>`);
			return;
		}
		if (url === "/python/downloads.json") {
			res.setHeader("Content-Type", "application/json");
			res.end(JSON.stringify(pythonDownloads(index.url, tarball)));
			return;
		}
		const file = url.startsWith("/files/") ? files().get(url.slice("/files/".length)) : undefined;
		if (!file) {
			res.statusCode = 404;
			res.end("not found");
			return;
		}
		if (file === tarball.file && index.holdPython) {
			// Headers and the first bytes, then nothing: the client waits until it is killed.
			const data = readFileSync(file);
			res.writeHead(200, { "Content-Length": String(data.length), "Content-Type": "application/octet-stream" });
			res.write(data.subarray(0, 1024));
			index.held = new Promise((r) => req.socket.on("close", () => r()));
			return;
		}
		res.setHeader("Content-Type", "application/octet-stream");
		res.end(readFileSync(file));
	};
	const server: Server = createServer(handle);
	await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
	const port = (server.address() as AddressInfo).port;
	index.url = `http://127.0.0.1:${port}`;
	index.pythonDownloads = `${index.url}/python/downloads.json`;
	return index;
}
