import { spawn, type ChildProcess } from "child_process";
import { createServer, type Server } from "net";

import { afterEach, describe, expect, it } from "vitest";

import { commandText, isOraServe, ProcFs } from "../../src/sidecar/processes";

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

describe("commandText", () => {
	it("quotes arguments with spaces", () => {
		expect(commandText(["ora", "serve", "/My vault"])).toBe('ora serve "/My vault"');
	});
});

describe.skipIf(process.platform !== "linux")("ProcFs", () => {
	it("finds the process listening on a port, and sees a stopped process as stopped", async () => {
		const server = createServer();
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const port = (server.address() as { port: number }).port;
		const procs = new ProcFs();
		expect(await procs.listener(port)).toBe(process.pid);
		const child = spawn(process.execPath, ["-e", "setInterval(() => undefined, 1000)"], { stdio: "ignore" });
		children.push(child);
		const pid = child.pid ?? -1;
		const running = await procs.info(pid);
		expect(running).toMatchObject({ pid, argv: [process.execPath, "-e", "setInterval(() => undefined, 1000)"], state: "running" });
		child.kill("SIGSTOP");
		await new Promise((resolve) => setTimeout(resolve, 100));
		const stopped = await procs.info(pid);
		expect(stopped?.state).toBe("stopped");
		expect(stopped?.startedAt).toBe(running?.startedAt);
	});

	it("knows nothing of a port nobody listens on, or a pid that does not exist", async () => {
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const port = (server.address() as { port: number }).port;
		await new Promise((resolve) => server.close(resolve));
		const procs = new ProcFs();
		expect(await procs.listener(port)).toBeNull();
		expect(await procs.info(2 ** 22 + 1)).toBeNull();
	});
});
