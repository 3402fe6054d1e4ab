// End-to-end: a Spanish vault as a new user meets it. A real `ora serve` reads the vault's
// languages; the plugin's offer names the multilingual model with its size and re-embedding time;
// its one button pulls the model (from a loopback hub serving a tiny stand-in) with progress, asks
// with the model's own timing, restarts the sidecar with it, and the offer is gone.
import { spawn, type ChildProcess } from "child_process";
import { mkdtempSync, readFileSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { pullModel } from "../../src/api/model-pull";
import type { PullProgress } from "../../src/api/types";
import { ModelsController } from "../../src/models/controller";
import { languageOffer } from "../../src/models/offer";
import { serveEnv } from "../../src/settings";
import type { SidecarSupervisor } from "../../src/sidecar/supervisor";
import { E2E_TIMEOUT_MS, realSupervisor, SKIP_REASON, startSidecar, waitForStatus, type LiveSidecar } from "./harness";

const ROOT = resolve(__dirname, "../../..");
const PYTHON = join(ROOT, ".venv/bin/python");
const E5 = "multilingual-e5-small";

let hub: ChildProcess;
let models: string;
let live: LiveSidecar;
let restarted: SidecarSupervisor | null = null;

/** Starts the loopback hub serving a tiny model as intfloat/multilingual-e5-small; resolves with its URL. */
function startHub(): Promise<string> {
	hub = spawn(PYTHON, ["-m", "tests.models.loopback_hub", "intfloat/multilingual-e5-small", "--throttle", "0.002"], {
		cwd: ROOT,
		env: { ...process.env, PYTHONPATH: process.env.PYTHONPATH ?? ROOT },
		stdio: ["pipe", "pipe", "inherit"],
	});
	return new Promise((ok, fail) => {
		hub.stdout?.once("data", (chunk: Buffer) => ok(chunk.toString().trim()));
		hub.once("exit", (code) => fail(new Error(`the loopback hub exited (${code})`)));
	});
}

describe.skipIf(SKIP_REASON !== null)(`a Spanish vault: the multilingual model offered, downloaded and used${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	let env: Record<string, string>;

	beforeAll(async () => {
		models = mkdtempSync(join(tmpdir(), "ora-plugin-language-"));
		// int8: the packaged English-only embedder, as on a fresh install, without building fp32.
		env = { ORA_HF_ENDPOINT: await startHub(), ORA_MODELS_DIR: models, ORA_EMBED_MODEL: "int8" };
		live = await startSidecar({ env, vault: "vault-es" });
	});
	afterAll(async () => {
		restarted?.stop();
		await live?.stop();
		hub?.stdin?.end();
		hub?.kill();
		rmSync(models, { recursive: true, force: true });
	});

	it("offers the multilingual model with its size and re-embedding time, downloads it with progress, and switches", async () => {
		const token = (): string => readFileSync(join(live.vault, ".ora", "token"), "utf8").trim();
		const progress: PullProgress[] = [];
		const asked: string[] = [];
		const controller = new ModelsController({
			models: () => live.client.models(),
			suggestion: () => live.client.modelsSuggestion(),
			switchEstimate: (name) => live.client.switchEstimate(name),
			pull: (name, onProgress, signal) =>
				pullModel({ baseUrl: live.client.baseUrl, token: token(), signal }, name, (p) => {
					progress.push(p);
					onProgress(p);
				}),
			confirm: async (_title, text) => (asked.push(text), true),
			// What the plugin does: the setting becomes ORA_EMBED_MODEL and the sidecar restarts.
			switchEmbedder: async (name) => {
				live.supervisor.stop();
				await live.supervisor.stopped();
				restarted = realSupervisor(live.vault, live.client, () => undefined, [], serveEnv({ llmTimeoutSeconds: 0, answerMaxTokens: 0, memoryWindowTokens: 0, embedModel: name }, env) as Record<string, string>);
				const outcome = await restarted.ensureRunning();
				if (!outcome.ok) throw new Error(outcome.reason);
			},
			sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)),
		});
		await controller.refresh();
		await controller.refreshOffer();
		const found = controller.state.offer;
		expect(found?.languages).toEqual({ es: 0.8, en: 0.2 });
		const status = await live.client.status();
		expect(found?.suggestion).toMatchObject({ model: E5, download_mb: 487, installed: false, chunks: status.chunks });
		expect(found?.suggestion?.estimate_s).toBeGreaterThan(0);
		const offer = languageOffer(found);
		expect(offer?.title).toMatch(/^Download the multilingual model \(487 MB, re-embedding takes (under a second|about \d+ (s|min))\)$/);
		expect(offer?.text).toContain("(Spanish 80%, English 20%)");

		expect(await controller.downloadAndUse(E5, E5)).toBe(true);
		expect(progress.filter((p) => p.file === "model.onnx").length).toBeGreaterThan(2); // progress while the file came
		expect(asked[0]).toMatch(new RegExp(`^Switching to ${E5} re-embeds every chunk of the index \\(${status.chunks} chunks\\)`));
		expect(controller.state.notice).toBe(`Switched to ${E5}. The index is re-embedding; the status bar shows its progress.`);
		const after = await waitForStatus(live.client, (s) => !s.reconcile.running && s.queue === 0 && s.chunks > 0);
		expect(after.model.startsWith(`${E5}:onnx:`)).toBe(true);
		// The embedder is multilingual now: nothing more is offered.
		expect(controller.state.offer).toEqual({ languages: { es: 0.8, en: 0.2 }, suggestion: null });
	});
});
