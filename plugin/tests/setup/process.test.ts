import { describe, expect, it } from "vitest";

import { runProcess } from "../../src/setup/process";

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
});
