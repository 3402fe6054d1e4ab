import { parseVersion } from "./compat";
import type { Runner } from "./process";

/** The oldest Python the sidecar supports (pyproject.toml `requires-python`). */
export const MIN_PYTHON: readonly [number, number] = [3, 11];

/** A way to start a Python: a program and the arguments before ours (`py -3` on Windows). */
export interface PythonCandidate {
	command: string;
	args: string[];
}

export type PythonSearch =
	| { ok: true; executable: string; version: string }
	| { ok: false; message: string };

/** Printed by each candidate: its version, whether it can make a venv (Debian splits that off), its path. */
const PROBE = [
	"import json, sys",
	"try:",
	"    import ensurepip, venv",
	"    ok = True",
	"except ImportError:",
	"    ok = False",
	'print(json.dumps({"version": "%d.%d.%d" % sys.version_info[:3], "venv": ok, "executable": sys.executable}))',
].join("\n");

interface Probe {
	version: string;
	venv: boolean;
	executable: string;
}

/**
 * Where to look, best first. Obsidian started from a desktop launcher often has a short PATH, so
 * the usual install folders are tried by absolute path as well as by name.
 */
export function pythonCandidates(platform: NodeJS.Platform, home: string, localAppData = ""): PythonCandidate[] {
	const names = ["python3.13", "python3.12", "python3.11", "python3"];
	const plain = (command: string): PythonCandidate => ({ command, args: [] });
	if (platform === "win32") {
		const programs = localAppData ? ["313", "312", "311"].map((v) => `${localAppData}\\Programs\\Python\\Python${v}\\python.exe`) : [];
		return [{ command: "py", args: ["-3"] }, plain("python"), plain("python3"), ...programs.map(plain)];
	}
	const folders =
		platform === "darwin"
			? ["/opt/homebrew/bin", "/usr/local/bin", "/Library/Frameworks/Python.framework/Versions/Current/bin", `${home}/.pyenv/shims`, "/usr/bin"]
			: ["/usr/local/bin", "/usr/bin", `${home}/.pyenv/shims`, `${home}/.local/bin`];
	return [...names.map(plain), ...folders.flatMap((dir) => names.map((n) => plain(`${dir}/${n}`)))];
}

/** What to install, said exactly, for this platform. */
export function installAdvice(platform: NodeJS.Platform): string {
	const wanted = `Python ${MIN_PYTHON.join(".")} or newer`;
	if (platform === "darwin") {
		return `Install ${wanted} from https://www.python.org/downloads/macos/ (or, with Homebrew: brew install python@3.12), then try again.`;
	}
	if (platform === "win32") {
		return `Install ${wanted} from https://www.python.org/downloads/windows/ (tick "Add python.exe to PATH"), then try again.`;
	}
	return `Install ${wanted} with its venv module (Debian, Ubuntu: sudo apt install python3 python3-venv; Fedora: sudo dnf install python3), then try again.`;
}

function recentEnough(version: string): boolean {
	const v = parseVersion(version);
	return v !== null && (v.major > MIN_PYTHON[0] || (v.major === MIN_PYTHON[0] && v.minor >= MIN_PYTHON[1]));
}

function parseProbe(stdout: string): Probe | null {
	try {
		const value = JSON.parse(stdout.trim().split("\n").pop() ?? "") as Partial<Probe>;
		if (typeof value.version === "string" && typeof value.executable === "string") {
			return { version: value.version, venv: value.venv === true, executable: value.executable };
		}
	} catch {
		// not a Python, or one too old to run the probe: skipped
	}
	return null;
}

/**
 * The first candidate that is Python 3.11+ and can create a virtual environment; otherwise a
 * message naming what was found and exactly what to install.
 */
export async function findPython(run: Runner, candidates: PythonCandidate[], platform: NodeJS.Platform, env?: NodeJS.ProcessEnv): Promise<PythonSearch> {
	const found: Probe[] = [];
	const seen = new Set<string>();
	for (const candidate of candidates) {
		const result = await run(candidate.command, [...candidate.args, "-c", PROBE], { env, timeoutMs: 20_000 });
		const probe = result.code === 0 ? parseProbe(result.stdout) : null;
		if (!probe || seen.has(probe.executable)) continue;
		seen.add(probe.executable);
		if (recentEnough(probe.version) && probe.venv) return { ok: true, executable: probe.executable, version: probe.version };
		found.push(probe);
	}
	const noVenv = found.find((p) => recentEnough(p.version));
	if (noVenv) {
		const [major, minor] = noVenv.version.split(".");
		return {
			ok: false,
			message: `Python ${noVenv.version} (${noVenv.executable}) cannot create virtual environments: install its venv module (Debian, Ubuntu: sudo apt install python${major}.${minor}-venv), then try again.`,
		};
	}
	const seenText = found.length ? `Found only ${found.map((p) => `Python ${p.version} (${p.executable})`).join(", ")}. ` : "No Python found. ";
	return { ok: false, message: `${seenText}${installAdvice(platform)}` };
}
