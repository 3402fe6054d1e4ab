import { spawn, type ChildProcess, type ChildProcessByStdio } from "child_process";
import type { Readable } from "stream";

/** One finished child process. `code` is null when it could not start (see `error`). */
export interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
	/** Why the process could not be started (ENOENT: no such program), or null. */
	error: string | null;
}

export interface RunOptions {
	env?: NodeJS.ProcessEnv;
	cwd?: string;
	/** Each line of output as it comes, stdout and stderr alike (pip logs to both). */
	onLine?: (line: string) => void;
	/** Kills the child after this long; the result then has code null and an error. */
	timeoutMs?: number;
	/** Aborting kills the child and everything it started (uv runs downloads and builds in children). */
	signal?: AbortSignal;
}

/** Runs a program (never through a shell: arguments are passed as they are). */
export type Runner = (command: string, args: readonly string[], options?: RunOptions) => Promise<RunResult>;

/** The Runner of Node's child_process. */
export const runProcess: Runner = (command, args, options = {}) =>
	new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		let error: string | null = null;
		let pending: Record<"out" | "err", string> = { out: "", err: "" };
		const emit = (key: "out" | "err", chunk: string, flush = false): void => {
			const text = pending[key] + chunk;
			const lines = text.split(/\r?\n|\r/);
			pending = { ...pending, [key]: flush ? "" : (lines.pop() ?? "") };
			for (const line of lines) if (line.trim() !== "") options.onLine?.(line);
		};
		if (options.signal?.aborted) {
			resolve({ code: null, stdout, stderr, error: "cancelled" });
			return;
		}
		let child: ChildProcessByStdio<null, Readable, Readable>;
		try {
			// Its own process group on POSIX, so a cancel reaches the grandchildren too.
			child = spawn(command, [...args], { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" });
		} catch (err) {
			resolve({ code: null, stdout, stderr, error: message(err) });
			return;
		}
		const timer = options.timeoutMs
			? window.setTimeout(() => {
					error = `${command} did not finish within ${Math.round((options.timeoutMs ?? 0) / 1000)} s`;
					killTree(child, process.platform);
				}, options.timeoutMs)
			: null;
		const onAbort = (): void => {
			error = "cancelled";
			killTree(child, process.platform);
		};
		options.signal?.addEventListener("abort", onAbort, { once: true });
		child.stdout.setEncoding("utf8");
		child.stderr.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			stdout += chunk;
			emit("out", chunk);
		});
		child.stderr.on("data", (chunk: string) => {
			stderr += chunk;
			emit("err", chunk);
		});
		child.on("error", (err) => (error = err.message));
		child.on("close", (code) => {
			if (timer) window.clearTimeout(timer);
			options.signal?.removeEventListener("abort", onAbort);
			emit("out", "", true);
			emit("err", "", true);
			resolve({ code: error === null ? code : null, stdout, stderr, error });
		});
	});

/**
 * Kills a child and its descendants: its process group on POSIX (it was started detached), and
 * `taskkill /T` on Windows, where signals do not reach a process's children.
 */
export function killTree(child: ChildProcess, platform: NodeJS.Platform): void {
	const pid = child.pid;
	if (pid === undefined) return;
	try {
		if (platform === "win32") spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore" });
		else process.kill(-pid, "SIGKILL");
	} catch {
		child.kill("SIGKILL"); // the group is gone already, or was never made
	}
}

function message(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
