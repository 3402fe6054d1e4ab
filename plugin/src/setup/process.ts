import { spawn } from "child_process";

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
		let child;
		try {
			child = spawn(command, [...args], { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
		} catch (err) {
			resolve({ code: null, stdout, stderr, error: message(err) });
			return;
		}
		const timer = options.timeoutMs
			? window.setTimeout(() => {
					error = `${command} did not finish within ${Math.round((options.timeoutMs ?? 0) / 1000)} s`;
					child.kill("SIGTERM");
				}, options.timeoutMs)
			: null;
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
			emit("out", "", true);
			emit("err", "", true);
			resolve({ code: error === null ? code : null, stdout, stderr, error });
		});
	});

function message(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
