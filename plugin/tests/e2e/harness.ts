// Starts a REAL `ora serve` on a temporary copy of ./vault, through the plugin's own supervisor
// and client (Node transport instead of requestUrl). Used by every e2e test file.
import { spawn } from "child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";

import { SidecarClient } from "../../src/api/client";
import { NodeHttpTransport } from "../../src/api/node-transport";
import type { Status } from "../../src/api/types";
import { parseRecord, SidecarSupervisor } from "../../src/sidecar/supervisor";
import { sameVaultPath } from "../../src/sidecar/vault-path";
import { recordPath, serveArgs, tokenPath } from "../../src/settings";

export const ORA = resolve(__dirname, "../../../.venv/bin/ora");
/** Why the e2e suites are skipped, or null when they can run. */
export const SKIP_REASON = existsSync(ORA) ? null : `no ${ORA}: run \`make python-setup\` to create the sidecar's venv`;

/**
 * The client's limits in these tests: a busy 2-core machine can make a search or a write take
 * longer than a user should wait, and no e2e test is about latency (the hung-sidecar test sets its own).
 */
export const E2E_TIMEOUTS = { interactive: 60_000, write: 60_000 };

/** Per-test limit: generous, because a busy 2-core machine can slow a scan or index by a lot. */
export const E2E_TIMEOUT_MS = 180_000;

export interface LiveSidecar {
	vault: string;
	port: number;
	client: SidecarClient;
	supervisor: SidecarSupervisor;
	stop: () => Promise<void>;
}

/** A temporary copy of ./vault (or of another folder beside it, e.g. ./vault-es in Spanish). */
export function copyVault(folder = "vault"): string {
	const vault = mkdtempSync(join(tmpdir(), "ora-plugin-e2e-"));
	cpSync(resolve(__dirname, folder), vault, { recursive: true });
	return vault;
}

/**
 * The plugin's supervisor for `vault`, set up as main.ts sets it up: port 0 (the sidecar picks a
 * free port and records it in DATA/server.json), `--parent-pid` ours. Its stderr goes to `stderr`.
 */
export function realSupervisor(
	vault: string,
	client: SidecarClient,
	onToken: (token: string) => void,
	stderr: string[] = [],
	extraEnv: Record<string, string> = {},
): SidecarSupervisor {
	const settings = { port: 0, dataFolder: "" };
	return new SidecarSupervisor({
		client,
		autoStart: true,
		port: 0,
		vault,
		sameVault: (a, b) => sameVaultPath(realpathSync(a), realpathSync(b), process.platform),
		ownPid: process.pid,
		spawn: () => {
			const env = { ...process.env, ...extraEnv };
			const child = spawn(ORA, serveArgs(settings, vault, process.pid), { stdio: ["ignore", "ignore", "pipe"], env });
			child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
			return child;
		},
		readRecord: async () => parseRecord(readFileSync(recordPath(settings, vault), "utf8")),
		readToken: async () => readFileSync(tokenPath(settings, vault), "utf8"),
		onToken,
		startTimeoutMs: 150_000,
	});
}

/** `env`: extra environment for `ora serve` (e.g. `ORA_LLM_URL`, as the plugin passes its settings); `vault`: the folder copied. */
export async function startSidecar(options: { env?: Record<string, string>; vault?: string } = {}): Promise<LiveSidecar> {
	const vault = copyVault(options.vault);
	let token: string | null = null;
	const client = new SidecarClient(new NodeHttpTransport(60_000), { baseUrl: "http://127.0.0.1:9", token: () => token, timeouts: E2E_TIMEOUTS });
	const stderr: string[] = [];
	const supervisor = realSupervisor(vault, client, (t) => (token = t), stderr, options.env);
	const outcome = await supervisor.ensureRunning();
	if (!outcome.ok) {
		supervisor.stop();
		throw new Error(`ora serve did not start: ${outcome.reason}\n${stderr.join("")}`);
	}
	await waitForStatus(client, (s) => !s.reconcile.running && s.queue === 0 && s.files >= 4);
	return {
		vault,
		port: outcome.port,
		client,
		supervisor,
		stop: async () => {
			supervisor.stop();
			await new Promise((ok) => setTimeout(ok, 300));
			rmSync(vault, { recursive: true, force: true });
		},
	};
}

/** Polls /v1/status until `done` holds (the index settles asynchronously after events). */
export async function waitForStatus(client: SidecarClient, done: (s: Status) => boolean, ms = 120_000): Promise<Status> {
	const deadline = Date.now() + ms;
	let last: Status | null = null;
	while (Date.now() < deadline) {
		last = await client.status();
		if (done(last)) return last;
		await new Promise((ok) => setTimeout(ok, 200));
	}
	throw new Error(`status never settled: ${JSON.stringify(last)}`);
}

export async function eventually<T>(probe: () => Promise<T | null>, ms = 60_000): Promise<T> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		const value = await probe();
		if (value !== null) return value;
		await new Promise((ok) => setTimeout(ok, 200));
	}
	throw new Error("condition not met in time");
}
