// End-to-end: the plugin's supervisor, link, event stream and status model against real
// `ora serve` processes: a SIGKILLed sidecar shows "reconnecting" and is started again; two
// vaults get two sidecars on two ports.
import { readFileSync, rmSync } from "fs";
import { join } from "path";

import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../../src/api/client";
import { EventStream } from "../../src/api/event-stream";
import { NodeHttpTransport } from "../../src/api/node-transport";
import { SidecarLink } from "../../src/sidecar/link";
import type { Phase } from "../../src/sidecar/status-model";
import { copyVault, eventually, E2E_TIMEOUT_MS, E2E_TIMEOUTS, realSupervisor, SKIP_REASON } from "./harness";

interface Live {
	vault: string;
	client: SidecarClient;
	link: SidecarLink;
	phases: Phase[];
}

const started: Live[] = [];
afterEach(async () => {
	for (const live of started.splice(0)) {
		live.link.stop();
		await new Promise((ok) => setTimeout(ok, 300));
		rmSync(live.vault, { recursive: true, force: true });
	}
});

function live(): Live {
	const vault = copyVault();
	let token: string | null = null;
	const client = new SidecarClient(new NodeHttpTransport(60_000), { baseUrl: "http://127.0.0.1:9", token: () => token, timeouts: E2E_TIMEOUTS });
	const phases: Phase[] = [];
	const link = new SidecarLink({
		supervisor: realSupervisor(vault, client, (t) => (token = t)),
		client,
		openStream: (handlers) => new EventStream({ url: `${client.baseUrl}/v1/events/stream`, token: () => token, ...handlers }),
		onStatus: (model) => {
			if (phases[phases.length - 1] !== model.view.phase) phases.push(model.view.phase);
		},
		restart: { minDelayMs: 200 },
	});
	const one = { vault, client, link, phases };
	started.push(one);
	return one;
}

function recordedPid(vault: string): number {
	return (JSON.parse(readFileSync(join(vault, ".ora", "server.json"), "utf8")) as { pid: number }).pid;
}

describe.skipIf(SKIP_REASON !== null)(`sidecar lifecycle ⇄ ora serve${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	it("shows reconnecting after a SIGKILL of the sidecar, then starts a new one", async () => {
		const one = live();
		await one.link.start();
		const first = (await one.client.status()).pid;
		expect(recordedPid(one.vault)).toBe(first);
		process.kill(first, "SIGKILL");
		await eventually(async () => (one.phases.includes("reconnecting") ? true : null));
		const second = await eventually(async () => {
			const phase = one.link.status.view.phase;
			if (phase === "stopped" || phase === "error") throw new Error(one.link.status.view.detail);
			if (phase !== "ready" && phase !== "indexing" && phase !== "scanning") return null;
			const status = await one.client.status();
			return status.pid !== first ? status.pid : null;
		}, 150_000);
		expect(recordedPid(one.vault)).toBe(second);
		expect(one.phases.indexOf("reconnecting")).toBeGreaterThan(0);
	});

	it("restarts onto a new sidecar once the old one has exited", async () => {
		const one = live();
		await one.link.start();
		const first = (await one.client.status()).pid;
		await one.link.restart();
		expect(one.link.status.view.phase).not.toBe("error");
		const second = (await one.client.status()).pid;
		expect(second).not.toBe(first);
		expect(() => process.kill(first, 0)).toThrow();
		expect(recordedPid(one.vault)).toBe(second);
	});

	it("gives two vaults two sidecars, each serving its own vault", async () => {
		const a = live();
		const b = live();
		await a.link.start();
		await b.link.start();
		const [sa, sb] = await Promise.all([a.client.status(), b.client.status()]);
		expect(a.client.baseUrl).not.toBe(b.client.baseUrl);
		expect(sa.pid).not.toBe(sb.pid);
		expect([sa.vault, sb.vault]).toEqual([a.vault, b.vault]);
	});
});
