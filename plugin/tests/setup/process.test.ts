import { existsSync, mkdtempSync, readFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { describe, expect, it } from "vitest";

import { runProcess } from "../../src/setup/process";

/** Running (a killed orphan may linger as a zombie until some init reaps it: that is not running). */
function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	const stat = `/proc/${pid}/stat`;
	return !existsSync(stat) || !/^\d+ \(.*\) Z/.test(readFileSync(stat, "utf8"));
}

describe("runProcess", () => {
	it("streams each output line, from stdout and stderr, and keeps both", async () => {
		const lines: string[] = [];
		const result = await runProcess("sh", ["-c", "printf 'one\\ntwo\\n'; echo three >&2; printf 'pip\\r50%%\\rdone\\nlast'"], { onLine: (l) => lines.push(l) });
		expect(result.code).toBe(0);
		expect(result.error).toBeNull();
		expect(lines.sort()).toEqual(["50%", "done", "last", "one", "pip", "three", "two"]);
		expect(result.stderr).toBe("three\n");
	});

	it("reports a program that does not exist instead of throwing", async () => {
		const result = await runProcess("/no/such/program", ["--version"]);
		expect(result.code).toBeNull();
		expect(result.error).toContain("ENOENT");
	});

	it("passes arguments as they are, without a shell", async () => {
		const result = await runProcess("printf", ["%s|", "a b", "$HOME", "; rm -rf /"]);
		expect(result.stdout).toBe("a b|$HOME|; rm -rf /|");
	});

	it("stops a program that runs past its time limit", async () => {
		const result = await runProcess("sleep", ["30"], { timeoutMs: 200 });
		expect(result.code).toBeNull();
		expect(result.error).toContain("did not finish within");
	});

	it("on cancel, kills the program and what it started (uv's downloads and builds run in children)", async (ctx) => {
		if (process.platform === "win32") return ctx.skip(); // taskkill /T: the same contract, a Windows-only program
		const pidFile = join(mkdtempSync(join(tmpdir(), "ora-kill-")), "pid");
		const abort = new AbortController();
		const running = runProcess("sh", ["-c", `sleep 30 & echo $! > ${pidFile}; wait`], { signal: abort.signal });
		while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") await new Promise((r) => setTimeout(r, 20));
		const grandchild = Number(readFileSync(pidFile, "utf8"));
		const started = Date.now();
		abort.abort();
		const result = await running;
		expect(result).toMatchObject({ code: null, error: "cancelled" });
		expect(Date.now() - started).toBeLessThan(5000);
		await new Promise((r) => setTimeout(r, 100));
		expect(alive(grandchild)).toBe(false); // the grandchild is gone too
	});

	it("does not start a program once cancelled", async () => {
		const abort = new AbortController();
		abort.abort();
		expect(await runProcess("sleep", ["30"], { signal: abort.signal })).toMatchObject({ code: null, error: "cancelled" });
	});
});
