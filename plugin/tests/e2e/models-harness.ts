// What the models e2e tests share: a loopback model hub, and the Models section's controller wired
// to a real sidecar the way the plugin wires it (the setting becomes ORA_EMBED_MODEL, the sidecar
// restarts).
import { execFile, spawn, type ChildProcess } from "child_process";
import { mkdtempSync, readFileSync, rmSync } from "fs";
import { createServer, request, type Server } from "http";
import type { AddressInfo } from "net";
import { tmpdir } from "os";
import { join, resolve } from "path";
import { promisify } from "util";

import { pullModel } from "../../src/api/model-pull";
import type { PullProgress } from "../../src/api/types";
import { ModelsController } from "../../src/models/controller";
import { serveEnv } from "../../src/settings";
import type { SidecarSupervisor } from "../../src/sidecar/supervisor";
import { copyVault, ORA, realSupervisor, startSidecar, type LiveSidecar } from "./harness";

const ROOT = resolve(__dirname, "../../..");
const PYTHON = join(ROOT, ".venv/bin/python");

export interface ModelsBenchOptions {
	/**
	 * The vault comes with an index from before, made by `ora index` with this embedder
	 * (ORA_EMBED_MODEL), and the sidecar starts as the plugin starts it by default (its embedModel
	 * setting empty: no ORA_EMBED_MODEL, so `auto`, which keeps the index's embedder). `ora serve`
	 * then builds the fp32, q8 and multilingual embedders missing from the bench's models folder.
	 * The hub is reached through a front that records every request (`hubRequests`).
	 */
	indexedWith?: string;
}

/**
 * A sidecar whose model hub is a loopback server serving `repo`: on the packaged int8 embedder
 * named, or (`options.indexedWith`) left to `auto` on an index from before.
 */
export class ModelsBench {
	live!: LiveSidecar;
	restarted: SidecarSupervisor | null = null;
	readonly progress: PullProgress[] = [];
	/** What the controller asked the user to confirm. */
	readonly asked: string[] = [];
	/** The models the controller asked the sidecar to pull. */
	readonly pulls: string[] = [];
	/** What the hub was asked ("GET /path"), with `indexedWith` (else not recorded). */
	readonly hubRequests: string[] = [];
	private hub: ChildProcess | null = null;
	private front: Server | null = null;
	private models = "";
	private env: Record<string, string> = {};

	constructor(private readonly repo: string, private readonly vault?: string, private readonly options: ModelsBenchOptions = {}) {}

	async start(): Promise<void> {
		this.models = mkdtempSync(join(tmpdir(), "ora-plugin-models-"));
		if (this.options.indexedWith !== undefined) return this.startOnIndexFromBefore(this.options.indexedWith);
		// int8: the packaged embedder, as on a fresh install, so the start does not build fp32.
		this.env = { ORA_HF_ENDPOINT: await this.startHub(), ORA_MODELS_DIR: this.models, ORA_EMBED_MODEL: "int8" };
		this.live = await startSidecar({ env: this.env, ...(this.vault ? { vault: this.vault } : {}) });
	}

	async stop(): Promise<void> {
		this.restarted?.stop();
		await this.live?.stop();
		this.front?.close();
		this.hub?.stdin?.end();
		this.hub?.kill();
		rmSync(this.models, { recursive: true, force: true });
	}

	/**
	 * `ora index` on a copy of the vault with embedder `variant`, then `ora serve` on auto over it.
	 * The hub starts meanwhile (each is a Python start of some seconds).
	 */
	private async startOnIndexFromBefore(variant: string): Promise<void> {
		const before = copyVault(this.vault);
		try {
			const [hub] = await Promise.all([
				this.startHub().then((url) => this.startFront(url)),
				promisify(execFile)(ORA, ["index", before], { env: { ...process.env, ORA_MODELS_DIR: this.models, ORA_EMBED_MODEL: variant } }),
			]);
			this.env = { ORA_HF_ENDPOINT: hub, ORA_MODELS_DIR: this.models };
			// startSidecar copies the vault it is given, its index (.ora) with it.
			this.live = await startSidecar({ env: this.env, vault: before });
		} finally {
			rmSync(before, { recursive: true, force: true });
		}
	}

	/** `ora models build` into the bench's models folder, as a user told to build the packaged models runs it. */
	async build(): Promise<void> {
		await promisify(execFile)(ORA, ["models", "build"], { env: { ...process.env, ...this.env } });
	}

	/** The controller as the plugin builds it, every user confirmation answered yes. */
	controller(): ModelsController {
		const live = this.live;
		const token = (): string => readFileSync(join(live.vault, ".ora", "token"), "utf8").trim();
		return new ModelsController({
			models: () => live.client.models(),
			suggestion: () => live.client.modelsSuggestion(),
			switchEstimate: (name) => live.client.switchEstimate(name),
			pull: (name, onProgress, signal) => {
				this.pulls.push(name);
				return pullModel({ baseUrl: live.client.baseUrl, token: token(), signal }, name, (p) => {
					this.progress.push(p);
					onProgress(p);
				});
			},
			confirm: async (_title, text) => (this.asked.push(text), true),
			switchEmbedder: async (name) => {
				const running = this.restarted ?? live.supervisor; // the sidecar of the last switch, if any
				running.stop();
				await running.stopped();
				this.restarted = realSupervisor(live.vault, live.client, () => undefined, [], serveEnv({ llmTimeoutSeconds: 0, answerMaxTokens: 0, memoryWindowTokens: 0, embedModel: name }, this.env) as Record<string, string>);
				const outcome = await this.restarted.ensureRunning();
				if (!outcome.ok) throw new Error(outcome.reason);
			},
			sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)),
		});
	}

	/** A loopback front passing every request on to the hub at `hub`, each recorded in `hubRequests`; resolves with its URL. */
	private startFront(hub: string): Promise<string> {
		const target = new URL(hub);
		const front = createServer((req, res) => {
			this.hubRequests.push(`${req.method} ${req.url}`);
			const onward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
			onward.on("error", () => res.destroy());
			req.pipe(onward);
		});
		this.front = front;
		return new Promise((ok) => front.listen(0, "127.0.0.1", () => ok(`http://127.0.0.1:${(front.address() as AddressInfo).port}`)));
	}

	/** Starts the loopback hub (throttled, so a download takes a moment); resolves with its URL. */
	private startHub(): Promise<string> {
		const hub = spawn(PYTHON, ["-m", "tests.models.loopback_hub", this.repo, "--throttle", "0.002"], {
			cwd: ROOT,
			env: { ...process.env, PYTHONPATH: process.env.PYTHONPATH ?? ROOT },
			stdio: ["pipe", "pipe", "inherit"],
		});
		this.hub = hub;
		return new Promise((ok, fail) => {
			hub.stdout?.once("data", (chunk: Buffer) => ok(chunk.toString().trim()));
			hub.once("exit", (code) => fail(new Error(`the loopback hub exited (${code})`)));
		});
	}
}
