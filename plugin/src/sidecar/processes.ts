import { execFile } from "child_process";
import { promises as fs } from "fs";

/** What Ora can learn about a local process: enough to tell whether it is this vault's sidecar. */
export interface ProcessInfo {
	pid: number;
	/** Its command line, one argument per entry; null where only the joined line is known (ps). */
	argv: string[] | null;
	/** Its command line as one line, to show. */
	command: string;
	/** "stopped": suspended by a signal (SIGSTOP, Ctrl+Z), holding SIGTERM until continued. */
	state: "running" | "stopped" | "zombie";
	/** When it started, in the system's own units: a reused pid has another value. */
	startedAt: string;
}

/** Looks at other processes (Linux: /proc); each answer is null when it cannot be known. */
export interface Processes {
	/** The process listening on TCP `port`, trying `hint` first; null when not found or not visible. */
	listener(port: number, hint?: number): Promise<number | null>;
	info(pid: number): Promise<ProcessInfo | null>;
}

/** Whether a process runs `ora serve`, by its arguments, or by its joined command line where that is all there is. */
export function runsOraServe(info: Pick<ProcessInfo, "argv" | "command">): boolean {
	return info.argv !== null ? isOraServe(info.argv) : /(^|[\\/])ora(\.exe)? serve( |$)/i.test(info.command);
}

/** Whether a command line is `ora serve`: the `ora` program (or the script Python runs) given `serve`. */
export function isOraServe(argv: readonly string[]): boolean {
	// argv[0] is ora itself, or the interpreter (python, or the Windows launcher) running the ora script.
	for (const i of [0, 1]) {
		const name = (argv[i] ?? "").split(/[\\/]/).pop()?.toLowerCase() ?? "";
		if ((name === "ora" || name === "ora.exe" || name === "ora-script.py") && argv[i + 1] === "serve") return true;
	}
	return false;
}

/** A command line as a user would type it (arguments with spaces quoted). */
export function commandText(argv: readonly string[]): string {
	return argv.map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : a)).join(" ");
}

/** What this platform lets Ora see: /proc on Linux, ps and lsof on macOS; elsewhere nothing (every process is unverified). */
export function localProcesses(): Processes {
	if (process.platform === "linux") return new ProcFs();
	if (process.platform === "darwin") return new PsLsof();
	return { listener: async () => null, info: async () => null };
}

/** Linux's /proc: listening sockets from net/tcp{,6}, their owners from each process's fd links. */
export class ProcFs implements Processes {
	constructor(private readonly root = "/proc") {}

	async listener(port: number, hint?: number): Promise<number | null> {
		const inodes = await this.listeningInodes(port);
		if (inodes.size === 0) return null;
		const pids = (await fs.readdir(this.root).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).map(Number);
		const order = hint === undefined ? pids : [hint, ...pids.filter((p) => p !== hint)];
		for (const pid of order) {
			if (await this.holds(pid, inodes)) return pid;
		}
		return null;
	}

	async info(pid: number): Promise<ProcessInfo | null> {
		try {
			const [cmdline, stat] = await Promise.all([
				fs.readFile(`${this.root}/${pid}/cmdline`, "utf8"),
				fs.readFile(`${this.root}/${pid}/stat`, "utf8"),
			]);
			// The fields after "(comm)": state, then 18 more, then starttime (stat field 22).
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			const code = fields[0] ?? "";
			const state = code === "T" || code === "t" ? "stopped" : code === "Z" || code === "X" ? "zombie" : "running";
			const argv = cmdline.split("\0").filter((a, i, all) => a !== "" || i < all.length - 1);
			return { pid, argv, command: commandText(argv), state, startedAt: fields[19] ?? "" };
		} catch {
			return null;
		}
	}

	/** Socket inodes listening on `port` (IPv4 or IPv6, any address). */
	private async listeningInodes(port: number): Promise<Set<string>> {
		const inodes = new Set<string>();
		for (const table of ["tcp", "tcp6"]) {
			const text = await fs.readFile(`${this.root}/net/${table}`, "utf8").catch(() => "");
			for (const line of text.split("\n").slice(1)) {
				const cols = line.trim().split(/\s+/);
				const local = cols[1] ?? "";
				// st 0A is LISTEN; the port is the hex after the address.
				if (cols[3] === "0A" && parseInt(local.slice(local.lastIndexOf(":") + 1), 16) === port && cols[9]) inodes.add(cols[9]);
			}
		}
		return inodes;
	}

	private async holds(pid: number, inodes: Set<string>): Promise<boolean> {
		const dir = `${this.root}/${pid}/fd`;
		const fds = await fs.readdir(dir).catch(() => [] as string[]); // another user's: not visible
		for (const fd of fds) {
			const target = await fs.readlink(`${dir}/${fd}`).catch(() => "");
			const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
			if (inode !== undefined && inodes.has(inode)) return true;
		}
		return false;
	}
}

/** A program's standard output; empty when it fails (not found, nothing matched) or takes over 5 s. */
function output(file: string, args: string[]): Promise<string> {
	return new Promise((resolve) => {
		// LC_ALL=C: ps writes its start time in English, the same at every check.
		execFile(file, args, { timeout: 5_000, env: { ...process.env, LC_ALL: "C" } }, (err, stdout) => resolve(err ? "" : stdout));
	});
}

/** Where there is no /proc (macOS): the listener from lsof, the process from ps. */
export class PsLsof implements Processes {
	async listener(port: number, hint?: number): Promise<number | null> {
		const text = await output("lsof", ["-nP", `-iTCP:${port}`, "-sTCP:LISTEN", "-t"]);
		const pids = text.split(/\s+/).filter((p) => /^\d+$/.test(p)).map(Number);
		return hint !== undefined && pids.includes(hint) ? hint : (pids[0] ?? null);
	}

	async info(pid: number): Promise<ProcessInfo | null> {
		const text = await output("ps", ["-o", "stat=,lstart=,args=", "-p", String(pid)]);
		// "T    Mon Nov 30 21:53:07 2026 /usr/bin/python3 /path/to/ora serve /vault"
		const m = /^(\S+)\s+(\w{3}\s+\w{3}\s+\d+\s+[\d:]+\s+\d{4})\s+(.*)$/.exec(text.trim());
		if (!m) return null;
		const [, stat = "", startedAt = "", command = ""] = m;
		const state = stat.startsWith("T") ? "stopped" : stat.startsWith("Z") ? "zombie" : "running";
		return { pid, argv: null, command, state, startedAt };
	}
}
