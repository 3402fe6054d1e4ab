import { promises as fs } from "fs";

/** What Ora can learn about a local process: enough to tell whether it is this vault's sidecar. */
export interface ProcessInfo {
	pid: number;
	/** Its command line, one argument per entry. */
	argv: string[];
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

/** What this platform lets Ora see: /proc on Linux; elsewhere nothing (every process is unverified). */
export function localProcesses(): Processes {
	return process.platform === "linux" ? new ProcFs() : { listener: async () => null, info: async () => null };
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
			return { pid, argv: cmdline.split("\0").filter((a, i, all) => a !== "" || i < all.length - 1), state, startedAt: fields[19] ?? "" };
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
