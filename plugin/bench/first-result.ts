// Time from "set up the sidecar" to the first search result, on a machine where the installer
// sees no Python (empty PATH and HOME), with a loopback index standing in for PyPI and a loopback
// python-build-standalone mirror standing in for GitHub (plugin/tests/setup/local-index.ts).
// Compared with the pip path the plugin used before: a system Python's venv, pip install, build.
//
//   .venv/bin/python -m build --wheel --outdir /tmp/orabench/wheel .
//   .venv/bin/python -m pip download /tmp/orabench/wheel/*.whl -d /tmp/orabench/deps --only-binary=:all:
//   npx vite-node plugin/bench/first-result.ts -- /tmp/orabench/wheel/ora_vault_sidecar-X.whl /tmp/orabench/deps
//
// The deps folder must suit the fixture Python (the machine's python3, 3.11+). Prints JSON.
import { spawn, type ChildProcess } from "child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "fs";
import { request } from "http";
import { tmpdir } from "os";
import { join, resolve } from "path";

// setup/process.ts runs in Obsidian's renderer, where timers are the window's.
(globalThis as { window?: unknown }).window ??= globalThis;

const [wheelArg, depsArg] = process.argv.slice(2).filter((a) => a !== "--");
if (!wheelArg || !depsArg) throw new Error("usage: first-result.ts SIDECAR_WHEEL DEPS_DIR");
const wheel: string = wheelArg;
const deps: string = depsArg;
const QUERY = "spaced repetition";

function post(port: number, token: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
	return new Promise((ok, fail) => {
		const data = JSON.stringify(body);
		const req = request({ host: "127.0.0.1", port, path, method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" } }, (res) => {
			let text = "";
			res.on("data", (c: Buffer) => (text += c.toString()));
			res.on("end", () => ok({ status: res.statusCode ?? 0, text }));
		});
		req.on("error", fail);
		req.end(data);
	});
}

/** Starts `serve`, then asks the query every 250 ms until a result comes: seconds from start. */
async function firstResult(command: string, args: string[], env: NodeJS.ProcessEnv, vault: string): Promise<{ answering: number; result: number }> {
	const started = performance.now();
	const child: ChildProcess = spawn(command, [...args, "serve", vault, "--port", "0"], { env, stdio: ["ignore", "ignore", "pipe"] });
	let stderr = "";
	child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
	let answering = 0;
	try {
		for (;;) {
			if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr.slice(-2000)}`);
			if ((performance.now() - started) / 1000 > 900) throw new Error("no result within 900 s");
			await new Promise((r) => setTimeout(r, 250));
			const record = join(vault, ".ora", "server.json");
			if (!existsSync(record)) continue;
			const port = (JSON.parse(readFileSync(record, "utf8")) as { port: number }).port;
			const token = readFileSync(join(vault, ".ora", "token"), "utf8").trim();
			const answer = await post(port, token, "/v1/search", { query: QUERY, k: 5 }).catch(() => null);
			if (!answer || answer.status !== 200) continue;
			answering ||= (performance.now() - started) / 1000;
			if ((JSON.parse(answer.text) as { results: unknown[] }).results.length > 0) return { answering, result: (performance.now() - started) / 1000 };
		}
	} finally {
		child.kill("SIGTERM");
		await new Promise((r) => child.once("exit", r));
	}
}

async function main(): Promise<void> {
	const { SidecarInstaller } = await import("../src/setup/installer");
	const { managedEnv, managedPaths, managedInterpreter, SIDECAR_ENTRY } = await import("../src/setup/paths");
	const { runProcess } = await import("../src/setup/process");
	const { fixturePython, pythonTarball, startLocalIndex, uvWheel } = await import("../tests/setup/local-index");

	const root = mkdtempSync(join(tmpdir(), "ora-first-result-"));
	const home = join(root, "home");
	const emptyBin = join(root, "empty-bin");
	for (const dir of [home, emptyBin]) mkdirSync(dir);
	const python = fixturePython();
	const packages = [resolve(wheel), ...readdirSync(deps).map((f) => join(resolve(deps), f))];
	const index = await startLocalIndex(uvWheel(python), pythonTarball(python, root), packages);
	const version = /ora_vault_sidecar-([^-]+)-/.exec(wheel)?.[1] ?? "";
	const env = { PATH: emptyBin, HOME: home, TMPDIR: tmpdir(), LANG: "C.UTF-8" };
	const vaultCopy = (name: string): string => {
		const dir = join(root, name);
		cpSync(resolve(__dirname, "../../examples/vault"), dir, { recursive: true });
		return dir;
	};
	const report: Record<string, unknown> = { uv_python_from: python, query: QUERY, files: packages.length };
	try {
		// uv: fetch uv, install CPython, the sidecar, build the model; then serve and search.
		const paths = managedPaths(join(root, "data", "ora-vault"), process.platform);
		const installer = new SidecarInstaller({ run: runProcess, paths, platform: process.platform, arch: process.arch, pluginVersion: version, env, index: index.url, python: python.includes("3.12") ? "3.12" : "3.11", pythonDownloads: index.pythonDownloads });
		const steps: Record<string, number> = {};
		let mark = performance.now();
		let title = "";
		const t0 = performance.now();
		const outcome = await installer.install({ kind: "index" }, (e) => {
			if (e.kind !== "step") return;
			if (title) steps[title] = (performance.now() - mark) / 1000;
			title = e.title;
			mark = performance.now();
		});
		steps[title] = (performance.now() - mark) / 1000;
		if (!outcome.ok) throw new Error(outcome.message);
		const setup = (performance.now() - t0) / 1000;
		const interpreter = managedInterpreter(paths, process.platform);
		if (!interpreter) throw new Error("no interpreter after set-up");
		const served = await firstResult(interpreter, [...SIDECAR_ENTRY], managedEnv(paths, env), vaultCopy("vault-uv"));
		report.uv = { setup_s: setup, steps_s: steps, serve_answering_s: served.answering, serve_first_result_s: served.result, total_s: setup + served.result };

		// pip, as before: the system Python's venv, pip without a cache, ora models build.
		const venv = join(root, "venv");
		const pipEnv = { ...env, PATH: `${join(venv, "bin")}:/usr/bin:/bin`, ORA_MODELS_DIR: join(root, "pip-models"), XDG_CACHE_HOME: join(root, "pip-cache"), PYTHONNOUSERSITE: "1" };
		const p0 = performance.now();
		const must = async (command: string, args: string[]): Promise<number> => {
			const s = performance.now();
			const r = await runProcess(command, args, { env: pipEnv, timeoutMs: 1_800_000 });
			if (r.code !== 0) throw new Error(`${command} ${args.join(" ")}: ${r.stderr.slice(-2000)}`);
			return (performance.now() - s) / 1000;
		};
		const pipSteps = {
			venv: await must(python, ["-m", "venv", venv]),
			pip_install: await must(join(venv, "bin", "python"), ["-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check", "--no-input", "--progress-bar", "off", "--index-url", `${index.url}/simple`, `ora-vault-sidecar==${version}`]),
			models_build: await must(join(venv, "bin", "ora"), ["models", "build"]),
		};
		const pipSetup = (performance.now() - p0) / 1000;
		const pipServed = await firstResult(join(venv, "bin", "ora"), [], pipEnv, vaultCopy("vault-pip"));
		report.pip = { setup_s: pipSetup, steps_s: pipSteps, serve_answering_s: pipServed.answering, serve_first_result_s: pipServed.result, total_s: pipSetup + pipServed.result };
	} finally {
		await index.close();
		rmSync(root, { recursive: true, force: true });
	}
	console.log(JSON.stringify(report, null, 2));
}

void main();
