// End-to-end: the Models section's logic and client against a real `ora serve` whose hub is a
// loopback server (tests/models/loopback_hub.py) serving a generated tiny model.
import { spawn, type ChildProcess } from "child_process";
import { mkdtempSync, readFileSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { pullModel } from "../../src/api/model-pull";
import type { PullProgress } from "../../src/api/types";
import { ModelsController } from "../../src/models/controller";
import { serveEnv } from "../../src/settings";
import type { SidecarSupervisor } from "../../src/sidecar/supervisor";
import { E2E_TIMEOUT_MS, realSupervisor, SKIP_REASON, startSidecar, waitForStatus, type LiveSidecar } from "./harness";

const ROOT = resolve(__dirname, "../../..");
const PYTHON = join(ROOT, ".venv/bin/python");
const BGE = "bge-small-en-v1.5";

let hub: ChildProcess;
let models: string;
let live: LiveSidecar;
let restarted: SidecarSupervisor | null = null;

/** Starts the loopback hub (throttled, so the download takes a moment) and resolves with its URL. */
function startHub(): Promise<string> {
	hub = spawn(PYTHON, ["-m", "tests.models.loopback_hub", "BAAI/bge-small-en-v1.5", "--throttle", "0.002"], {
		cwd: ROOT,
		env: { ...process.env, PYTHONPATH: process.env.PYTHONPATH ?? ROOT },
		stdio: ["pipe", "pipe", "inherit"],
	});
	return new Promise((ok, fail) => {
		hub.stdout?.once("data", (chunk: Buffer) => ok(chunk.toString().trim()));
		hub.once("exit", (code) => fail(new Error(`the loopback hub exited (${code})`)));
	});
}

describe.skipIf(SKIP_REASON !== null)(`models: download and switch${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`, { timeout: E2E_TIMEOUT_MS }, () => {
	let env: Record<string, string>;

	beforeAll(async () => {
		models = mkdtempSync(join(tmpdir(), "ora-plugin-models-"));
		// int8: the packaged embedder, so the start does not build fp32 into the empty models folder.
		env = { ORA_HF_ENDPOINT: await startHub(), ORA_MODELS_DIR: models, ORA_EMBED_MODEL: "int8" };
		live = await startSidecar({ env });
	});
	afterAll(async () => {
		restarted?.stop();
		await live?.stop();
		hub?.stdin?.end();
		hub?.kill();
		rmSync(models, { recursive: true, force: true });
	});

	it("downloads a model with progress, then says what switching to it costs, and switches", async () => {
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
			confirm: async (_title, text) => {
				asked.push(text);
				return true;
			},
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
		const before = controller.state.report?.catalogue.find((m) => m.name === BGE);
		expect(before).toMatchObject({ kind: "embedder", installed: false, size: null, active: false });

		await controller.download(BGE);
		expect(controller.state.pulls.get(BGE)).toEqual({ phase: "installed", kind: "embedder" });
		const onnx = progress.filter((p) => p.file === "model.onnx");
		expect(onnx.length).toBeGreaterThan(2); // progress arrived while the file was still coming
		const last = onnx[onnx.length - 1];
		expect(last?.done).toBe(last?.total);
		const after = controller.state.report?.catalogue.find((m) => m.name === BGE);
		expect(after).toMatchObject({ installed: true, active: false });
		expect(after?.size).toBeGreaterThan(last?.total ?? 0);

		const switched = await controller.switchTo(BGE, BGE);
		expect(asked[0]).toMatch(/^Switching to bge-small-en-v1\.5 re-embeds every chunk of the index \(\d+ chunks\), (under a second|about \d+ (s|min))/);
		expect(controller.state.notice).toBe("Switched to bge-small-en-v1.5. The index is re-embedding; the status bar shows its progress.");
		expect(switched).toBe(true);
		expect(controller.state.report?.embedder.chosen).toBe(BGE);
		const status = await waitForStatus(live.client, (s) => !s.reconcile.running && s.queue === 0 && s.chunks > 0);
		expect(status.model.startsWith(`${BGE}:onnx:`)).toBe(true);
	});
});

