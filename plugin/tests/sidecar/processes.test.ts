import { spawn, spawnSync, type ChildProcess } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { createServer, type Server } from "net";
import { tmpdir } from "os";
import { join } from "path";

import { afterEach, describe, expect, it } from "vitest";

import { commandText, isOraServe, ProcFs, PsLsof, runsOraServe, type Processes } from "../../src/sidecar/processes";

const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill("SIGKILL");
	for (const server of servers.splice(0)) server.close();
});

describe("isOraServe", () => {
	it.each([
		[["/home/me/repo/.venv/bin/python", "/home/me/repo/.venv/bin/ora", "serve", "/vault"], true],
		[["ora", "serve"], true],
		[["C:\\Python\\Scripts\\ora.exe", "serve", "C:\\vault"], true],
		[["/usr/bin/python3", "/home/me/repo/.venv/bin/ora", "ask", "serve"], false],
		[["/usr/bin/node", "-e", "ora", "serve"], false],
		[["/usr/bin/python3", "-m", "http.server", "8765"], false],
		[["/opt/aurora", "serve"], false],
	])("%j → %s", (argv, expected) => {
		expect(isOraServe(argv)).toBe(expected);
	});
});

describe("runsOraServe", () => {
	it.each([
		["/usr/bin/python3 /Users/me/My vault/.venv/bin/ora serve /Users/me/My vault", true],
		["ora serve", true],
		["/usr/bin/python3 /opt/aurora serve", false],
		["/usr/bin/python3 /repo/.venv/bin/ora ask serve", false],
	])("%s → %s (from ps's joined line)", (command, expected) => {
		expect(runsOraServe({ argv: null, command })).toBe(expected);
	});
});

describe("commandText", () => {
	it("quotes arguments with spaces", () => {
		expect(commandText(["ora", "serve", "/My vault"])).toBe('ora serve "/My vault"');
	});
});

/** Whether `program` can be run here (ps and lsof are on macOS; a Linux box may lack lsof). */
function installed(program: string): boolean {
	return spawnSync(program, ["-v"], { stdio: "ignore" }).error === undefined;
}

const IMPLEMENTATIONS: [string, () => Processes, boolean][] = [
	["ProcFs (/proc)", () => new ProcFs(), process.platform === "linux"],
	["PsLsof (ps, lsof)", () => new PsLsof(), process.platform !== "win32" && installed("ps") && installed("lsof")],
];

describe.each(IMPLEMENTATIONS)("%s", (_name, make, available) => {
	it.skipIf(!available)("finds the process listening on a port, and sees a stopped process as stopped, with the same start time", async () => {
		const server = createServer();
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const port = (server.address() as { port: number }).port;
		const procs = make();
		expect(await procs.listener(port)).toBe(process.pid);
		const script = "setInterval(()=>0,1000)"; // no spaces: /proc and ps show it alike
		const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
		children.push(child);
		const pid = child.pid ?? -1;
		await new Promise((resolve) => setTimeout(resolve, 100));
		const running = await procs.info(pid);
		expect(running).toMatchObject({ pid, command: `${process.execPath} -e ${script}`, state: "running" });
		expect(runsOraServe(running ?? { argv: [], command: "" })).toBe(false);
		child.kill("SIGSTOP");
		await new Promise((resolve) => setTimeout(resolve, 100));
		const stopped = await procs.info(pid);
		expect(stopped?.state).toBe("stopped");
		expect(stopped?.startedAt).toBe(running?.startedAt);
	});

	it.skipIf(!available)("knows nothing of a port nobody listens on, or a pid that does not exist", async () => {
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const port = (server.address() as { port: number }).port;
		await new Promise((resolve) => server.close(resolve));
		const procs = make();
		expect(await procs.listener(port)).toBeNull();
		expect(await procs.info(2 ** 22 + 1)).toBeNull();
	});

	it.skipIf(!available)("sees an ora serve command line as one", async () => {
		const dir = mkdtempSync(join(tmpdir(), "ora-procs-"));
		const ora = join(dir, "ora");
		writeFileSync(ora, `#!${process.execPath}\nsetInterval(() => undefined, 1000);\n`, { mode: 0o755 });
		const child = spawn(ora, ["serve", join(dir, "My vault")], { stdio: "ignore" });
		children.push(child);
		try {
			await new Promise((resolve) => setTimeout(resolve, 200));
			const info = await make().info(child.pid ?? -1);
			expect(info?.command).toContain(`${ora} serve`);
			expect(runsOraServe(info ?? { argv: [], command: "" })).toBe(true);
		} finally {
			child.kill("SIGKILL");
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
