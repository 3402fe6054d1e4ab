// findPython against the real interpreters of this machine.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "fs";
import { homedir, tmpdir } from "os";
import { join } from "path";
import { describe, expect, it } from "vitest";

import { runProcess } from "../../src/setup/process";
import { findPython, installAdvice, pythonCandidates } from "../../src/setup/python";

const here = pythonCandidates(process.platform, homedir());

/** An interpreter older than 3.11, if pyenv has one here (3.10, 3.9, …). */
function oldPython(): string | null {
	const versions = join(process.env.PYENV_ROOT ?? join(homedir(), ".pyenv"), "versions");
	if (!existsSync(versions)) return null;
	const old = readdirSync(versions).find((v) => /^3\.(9|10)\./.test(v));
	return old ? join(versions, old, "bin", "python3") : null;
}

describe("findPython", () => {
	it("finds a Python 3.11+ that can make a venv, by its absolute path", async () => {
		const found = await findPython(runProcess, here, process.platform);
		expect(found.ok).toBe(true);
		if (!found.ok) return;
		expect(found.executable.startsWith("/") || /^[A-Za-z]:/.test(found.executable)).toBe(true);
		const [major, minor] = found.version.split(".").map(Number);
		expect(major === 3 && (minor ?? 0) >= 11).toBe(true);
	});

	it("skips missing programs and too-old Pythons, naming what it found and what to install", async (ctx) => {
		const old = oldPython();
		if (!old) return ctx.skip();
		const found = await findPython(runProcess, [{ command: "/no/such/python3", args: [] }, { command: old, args: [] }], "linux");
		expect(found.ok).toBe(false);
		if (found.ok) return;
		expect(found.message).toMatch(/^Found only Python 3\.(9|10)\.\d+ \(.+\)\. Install Python 3\.11 or newer/);
		expect(found.message).toContain("sudo apt install python3 python3-venv");
	});

	it("says no Python was found when none runs", async () => {
		const found = await findPython(runProcess, [{ command: "/no/such/python3", args: [] }], "darwin");
		expect(found).toEqual({ ok: false, message: `No Python found. ${installAdvice("darwin")}` });
	});

	it("asks for the venv module when the Python lacks it (as Debian ships python3)", async () => {
		// A real interpreter whose ensurepip fails to import, as on Debian without python3-venv.
		const shadow = mkdtempSync(join(tmpdir(), "ora-no-venv-"));
		mkdirSync(join(shadow, "ensurepip"));
		writeFileSync(join(shadow, "ensurepip", "__init__.py"), "raise ImportError('no ensurepip')\n");
		const found = await findPython(runProcess, here, "linux", { ...process.env, PYTHONPATH: shadow });
		expect(found.ok).toBe(false);
		if (found.ok) return;
		expect(found.message).toMatch(/^Python 3\.\d+\.\d+ \(.+\) cannot create virtual environments: install its venv module \(Debian, Ubuntu: sudo apt install python3\.\d+-venv\)/);
	});

	it("looks in the usual install folders, not only on PATH", () => {
		expect(pythonCandidates("darwin", "/Users/me").map((c) => c.command)).toContain("/opt/homebrew/bin/python3.12");
		expect(pythonCandidates("linux", "/home/me").map((c) => c.command)).toContain("/home/me/.pyenv/shims/python3");
		const windows = pythonCandidates("win32", "C:\\Users\\me", "C:\\Users\\me\\AppData\\Local");
		expect(windows[0]).toEqual({ command: "py", args: ["-3"] });
		expect(windows.map((c) => c.command)).toContain("C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\\python.exe");
	});
});
