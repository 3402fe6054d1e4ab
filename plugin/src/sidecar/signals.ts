import { execFile } from "child_process";

/**
 * Ending processes the way each platform allows. POSIX: signals (a stopped process is continued
 * so that SIGTERM lands). Windows has neither SIGCONT (Node throws for it) nor a polite signal a
 * windowless console process would get, and `ora.exe` is a launcher whose Python child holds the
 * index: the whole tree is ended at once (`taskkill /pid N /T /F`).
 */

/** Ends process `pid` and its children on Windows; default: taskkill. */
export type TreeKill = (pid: number) => void;

/** `taskkill /pid N /T /F`, its failure (the process already gone) ignored. */
export const taskkill: TreeKill = (pid) => {
	execFile("taskkill", taskkillArgs(pid), { windowsHide: true }, () => undefined);
};

export function taskkillArgs(pid: number): string[] {
	return ["/pid", String(pid), "/T", "/F"];
}

export function onWindows(): boolean {
	return process.platform === "win32";
}

/**
 * Sends `signal` to `pid` where the platform has it: on Windows SIGCONT is skipped (no process
 * there is stopped by a signal) and SIGTERM and SIGKILL both end the whole tree. Throws when the
 * process is gone (as process.kill does).
 */
export function sendSignal(pid: number, signal: NodeJS.Signals, treeKill: TreeKill = taskkill): void {
	if (!onWindows()) {
		process.kill(pid, signal);
		return;
	}
	if (signal === "SIGCONT") return;
	process.kill(pid, 0); // throws when it is gone, as on POSIX
	treeKill(pid);
}
