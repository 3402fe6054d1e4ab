// The plugin's own onload path (main.ts) with the `obsidian` stand-in, against real processes: a
// stopped `ora serve` started outside Obsidian, and a loopback port that never answers. What the
// status bar says, what a click on it does, and that no second sidecar starts beside a stuck one.
import { spawn, type ChildProcess } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { createServer } from "http";
import type { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";

import { afterEach, describe, expect, it } from "vitest";

import { SidecarClient } from "../src/api/client";
import * as standIn from "./__mocks__/obsidian";
import { ScriptedTransport } from "./builders";
import { pluginOn, until, type PluginHost } from "./plugin-host";
import { fakeOra } from "./sidecar/fake-sidecar";

/** Health checks time out after 5 s and a stuck sidecar is asked again every 5 s: the real limits. */
const SLOW_MS = 30_000;

const cleanups: (() => void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) cleanup();
	await new Promise((resolve) => setTimeout(resolve, 100));
});

interface Rig extends PluginHost {
	/** How many times the plugin ran its `ora` (each run appends to a file). */
	spawned: () => number;
}

function aVault(): string {
	const vault = mkdtempSync(join(tmpdir(), "ora-main-"));
	cleanups.push(() => rmSync(vault, { recursive: true, force: true }));
	return vault;
}

/** The plugin on `vault`, its Ora command a stand-in `ora` that notes each start. */
function rig(vault: string, settings: Record<string, unknown> = {}): Rig {
	const bin = join(vault, ".bin-plugin");
	mkdirSync(bin);
	const runs = join(bin, "runs");
	const ora = fakeOra(bin, `require("fs").appendFileSync(${JSON.stringify(runs)}, "x");`);
	const plugin = pluginOn(vault, { oraCommand: ora, ...settings });
	cleanups.push(() => {
		plugin.host.unload();
		killRecorded(vault); // the plugin's own sidecar, if the unload's stop has not ended it yet
	});
	return { ...plugin, spawned: () => (existsSync(runs) ? readFileSync(runs, "utf8").length : 0) };
}

/** `ora serve` run in a terminal for `vault` (another copy of the stand-in), once it has recorded itself. */
async function startedOutside(vault: string): Promise<ChildProcess> {
	const bin = join(vault, ".bin-terminal");
	mkdirSync(bin);
	const child = spawn(fakeOra(bin), ["serve", vault, "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
	cleanups.push(() => {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
	});
	await until(() => existsSync(join(vault, ".ora", "server.json")));
	return child;
}

function killRecorded(vault: string): void {
	try {
		const { pid } = JSON.parse(readFileSync(join(vault, ".ora", "server.json"), "utf8")) as { pid: number };
		process.kill(pid, "SIGKILL");
	} catch {
		// no record, or already gone
	}
}

describe("the plugin with a sidecar that does not answer", () => {
	it("says not responding for a stopped sidecar of this vault at start-up, starts no second one, and attaches once it runs again", { timeout: SLOW_MS }, async () => {
		const vault = aVault();
		const outside = await startedOutside(vault);
		outside.kill("SIGSTOP");
		const r = rig(vault);
		try {
			await r.load();
			expect(r.status().text).toBe("Ora: starting");
			await until(() => r.status().text === "Ora: not responding");
			expect(r.status().tooltip).toContain(`This vault's sidecar (ora serve, pid ${outside.pid}, started outside Obsidian) is running but does not answer: it is stopped`);
			expect(r.status().tooltip).toContain("Click to restart the sidecar.");
			expect(standIn.shownNotices.at(-1)).toBe("Ora's sidecar is not responding. Restart it");
		} finally {
			outside.kill("SIGCONT");
		}
		await until(() => r.status().text === "Ora: ready"); // the next check, within 5 s
		expect(r.spawned()).toBe(0);
	});

	it("restarts a stopped ora serve started outside Obsidian from the notice's link, and runs its own", { timeout: SLOW_MS }, async () => {
		const vault = aVault();
		const outside = await startedOutside(vault);
		const exited = new Promise((resolve) => outside.on("exit", (_code, signal) => resolve(signal)));
		outside.kill("SIGSTOP");
		const r = rig(vault);
		await r.load();
		await until(() => r.status().text === "Ora: not responding");
		expect(r.spawned()).toBe(0);
		const notice = standIn.noticeEls.at(-1);
		expect(notice?.textContent).toBe("Ora's sidecar is not responding. Restart it");
		notice?.querySelector("a")?.click();
		expect(await exited).toBe("SIGTERM");
		await until(() => r.status().text === "Ora: ready");
		expect(r.spawned()).toBe(1);
	});

	it("names the process holding a fixed port that never answers, tells how to stop it on a click, and starts nothing beside it", { timeout: SLOW_MS }, async () => {
		const silent = createServer(() => undefined);
		await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
		cleanups.push(() => {
			silent.closeAllConnections();
			silent.close();
		});
		const port = (silent.address() as AddressInfo).port;
		const r = rig(aVault(), { port });
		await r.load();
		await until(() => r.status().text === "Ora: not responding");
		const holder = `Port ${port} is held by process ${process.pid} (`;
		expect(r.status().tooltip).toContain(holder);
		expect(r.status().tooltip).toContain("Click for details.");
		expect(standIn.shownNotices.at(-1)).toBe("Ora's sidecar is not responding. Show details");
		r.clickStatus();
		expect(standIn.shownNotices.at(-1)).toContain(`stop it yourself (for example: kill ${process.pid})`);
		expect(r.spawned()).toBe(0);
	});
});

describe("the plugin with chat notes moved while Obsidian was closed", () => {
	it("reports a moved chat note as a rename once Obsidian has read its frontmatter, found by its conversation", async () => {
		const vault = aVault();
		mkdirSync(join(vault, ".ora"));
		// Where the sidecar last saw the conversation's note.
		writeFileSync(join(vault, ".ora", "conversations.json"), JSON.stringify([{ conversation: "c1", namespace: "default", note: "Chats/Ora/c1.md" }]));
		const r = rig(vault);
		await r.load(); // Obsidian has not read the notes' frontmatter yet: nothing carries c1
		await until(() => r.status().text === "Ora: ready");
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(existsSync(join(vault, ".ora", "events.log"))).toBe(false);
		r.app.vault.files = [standIn.TFile.at("Archive/Bread chat.md"), standIn.TFile.at("Notes/Other.md")];
		r.app.metadataCache.frontmatter.set("Archive/Bread chat.md", { type: "chat", conversation: "c1", namespace: "default" });
		r.app.metadataCache.frontmatter.set("Notes/Other.md", { type: "engram" });
		r.app.metadataCache.trigger("resolved");
		await until(() => existsSync(join(vault, ".ora", "events.log")));
		const sent = readFileSync(join(vault, ".ora", "events.log"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as unknown);
		expect(sent).toEqual([{ events: [{ kind: "renamed", path: "Archive/Bread chat.md", old_path: "Chats/Ora/c1.md" }] }]);
	});
});

describe("the plugin with a sidecar it did not start", () => {
	it.each([
		["ora serve in a terminal", [], "was started outside Obsidian (ora serve in a terminal, perhaps), so Ora did not restart it. New settings apply when you restart it there."],
		["another Obsidian window", ["--parent-pid", String(process.ppid)], "was started by another Obsidian window, so Ora did not restart it. New settings apply when it is restarted there, or once that window is closed."],
	])("leaves the one started by %s running on Restart sidecar, and says where to restart it", { timeout: SLOW_MS }, async (_who, extra, said) => {
		const vault = aVault();
		const bin = join(vault, ".bin-elsewhere");
		mkdirSync(bin);
		const outside = spawn(fakeOra(bin), ["serve", vault, "--port", "0", ...extra], { stdio: ["ignore", "ignore", "pipe"] });
		cleanups.push(() => {
			if (outside.exitCode === null && outside.signalCode === null) outside.kill("SIGKILL");
		});
		await until(() => existsSync(join(vault, ".ora", "server.json")));
		const r = rig(vault);
		await r.load();
		await until(() => r.status().text === "Ora: ready");
		standIn.shownNotices.length = 0;
		const restart = r.host.commands.find((c) => c.id === "restart-sidecar") as unknown as { callback: () => void };
		restart.callback();
		await until(() => standIn.shownNotices.some((n) => n.includes("so Ora did not restart it")));
		expect(standIn.shownNotices.at(-1)).toBe(`The sidecar of this vault (pid ${outside.pid}) ${said}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect([outside.exitCode, outside.signalCode]).toEqual([null, null]);
		expect(r.spawned()).toBe(0);
		expect(r.status().text).toBe("Ora: ready");
	});
});

describe("the plugin disabled and enabled again", () => {
	it("disabled and enabled again at once, waits for its old sidecar to exit and starts its own, never attaching to the one going", { timeout: SLOW_MS }, async () => {
		const vault = aVault();
		const bin = join(vault, ".bin-plugin");
		mkdirSync(bin);
		const runs = join(bin, "runs");
		// Like ora serve: it answers for a while after SIGTERM, finishing its writes.
		const ora = fakeOra(bin, `require("fs").appendFileSync(${JSON.stringify(runs)}, "x"); process.on("SIGTERM", () => setTimeout(() => process.exit(0), 700));`);
		const recorded = () => (JSON.parse(readFileSync(join(vault, ".ora", "server.json"), "utf8")) as { pid: number }).pid;
		const before = pluginOn(vault, { oraCommand: ora });
		await before.load();
		await until(() => before.status().text === "Ora: ready");
		const old = recorded();
		before.host.unload(); // disabled…
		const after = pluginOn(vault, { oraCommand: ora }); // …and enabled again
		cleanups.push(() => {
			after.host.unload();
			killRecorded(vault);
		});
		await after.load();
		await until(() => after.status().text === "Ora: ready");
		expect(recorded()).not.toBe(old);
		expect(() => process.kill(old, 0)).toThrow(); // the old one has exited
		expect(readFileSync(runs, "utf8")).toBe("xx");
	});
});


describe("the plugin disabled during set-up", () => {
	it.skipIf(process.platform === "win32")("kills uv when it unloads in the middle of a set-up, leaving a state Install finishes", { timeout: SLOW_MS }, async () => {
		const vault = aVault();
		const data = join(vault, ".data-home");
		const pidFile = join(data, "uv.pid");
		const uv = join(data, "ora-vault", "bin", "uv");
		mkdirSync(join(data, "ora-vault", "bin"), { recursive: true });
		const version = (JSON.parse(readFileSync(join(__dirname, "../../schema/installer.json"), "utf8")) as { uv: { version: string } }).uv.version;
		// uv as set-up finds it from an earlier run: it answers --version, then installs Python "slowly".
		writeFileSync(uv, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "uv ${version}"; exit 0; fi\necho $$ > ${JSON.stringify(pidFile)}\nexec sleep 60\n`, { mode: 0o755 });
		const saved = process.env.XDG_DATA_HOME;
		process.env.XDG_DATA_HOME = data; // the machine's data folder, read when the plugin loads
		cleanups.push(() => (saved === undefined ? delete process.env.XDG_DATA_HOME : (process.env.XDG_DATA_HOME = saved)));
		const r = rig(vault, { autoStart: false });
		await r.load();
		const setUp = r.host.commands.find((c) => c.id === "setup-sidecar") as unknown as { callback: () => void };
		setUp.callback();
		const install = [...document.querySelectorAll("button")].find((b) => b.textContent === "Install");
		install?.click();
		await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
		const pid = Number(readFileSync(pidFile, "utf8"));
		expect(() => process.kill(pid, 0)).not.toThrow(); // uv is running
		r.host.unload(); // Obsidian quits, or the plugin is disabled
		await until(() => {
			try {
				process.kill(pid, 0);
				return false;
			} catch {
				return true;
			}
		});
		expect(existsSync(join(data, "ora-vault", "install.json"))).toBe(false); // not marked installed: Install finishes it
		document.body.empty();
	});
});

describe("Re-index vault now", () => {
	it("says a re-index whose connection broke after sending may have started, not that it could not", async () => {
		const r = pluginOn(aVault(), {});
		// The command's client, as onload makes it, over a connection that breaks once the request is sent.
		const client = new SidecarClient(new ScriptedTransport([new Error("net::ERR_CONNECTION_RESET")]), { baseUrl: "http://127.0.0.1:1", token: () => "t" });
		const plugin = Object.assign(r.host, { client }) as unknown as { reindex(): Promise<void> };
		await plugin.reindex();
		expect(standIn.shownNotices.at(-1)).toBe(
			'Not sure re-indexing started: The connection to the sidecar at http://127.0.0.1:1 broke before it answered (net::ERR_CONNECTION_RESET), so it may have applied the change. The status bar says "indexing" in a moment if it did.',
		);
	});
});
