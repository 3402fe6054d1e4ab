// A small Node program that behaves like `ora serve` at its edges (DATA/server.json, DATA/token,
// /v1/health, /v1/status, /v1/events/stream, /v1/conversations, /v1/events), run as `node -e` or as
// an `ora` program.
import { writeFileSync } from "fs";
import { join } from "path";

/** A stand-in `ora serve VAULT DATA [SERVED_VAULT]`: listens on a free port and records itself. */
export const FAKE_SIDECAR = `
const http = require("http"), fs = require("fs"), path = require("path");
const [vault, data, served] = process.argv.slice(1);
fs.mkdirSync(data, { recursive: true });
fs.writeFileSync(path.join(data, "token"), "tok\\n");
const status = { vault: served || vault, pid: process.pid, files: 3, chunks: 9, queue: 0, indexing: false,
  reconcile: { running: false, phase: "done", done: 3, total: 3 }, model: "m",
  reranker: { name: "none", reason: null }, contradictions_open: 2, last_error: null,
  cleaning: { running: false, phase: "done", done: 0, total: 0, scans: 1, last_finished: null, fallbacks: 0 } };
const server = http.createServer((req, res) => {
  if (req.url === "/v1/health") return res.end(JSON.stringify({ status: "ok", version: "0.1.0" }));
  if (req.headers.authorization !== "Bearer tok") { res.statusCode = 401; return res.end("{}"); }
  if (req.url === "/v1/status") return res.end(JSON.stringify(status));
  // Chat-note links from DATA/conversations.json; vault events appended to DATA/events.log.
  if (req.url === "/v1/conversations?private=true") {
    const file = path.join(data, "conversations.json");
    return res.end(JSON.stringify({ conversations: fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : [] }));
  }
  if (req.url === "/v1/events" && req.method === "POST") {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      fs.appendFileSync(path.join(data, "events.log"), body + "\\n");
      res.end(JSON.stringify({ accepted: JSON.parse(body).events.length, deduplicated: 0, queued: false }));
    });
    return;
  }
  if (req.url === "/v1/events/stream") {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write("event: contradictions\\ndata: {\\"open\\": 2}\\n\\n");
    return;
  }
  res.statusCode = 404; res.end("{}");
});
server.listen(0, "127.0.0.1", () => {
  const record = { pid: process.pid, port: server.address().port, vault: served || vault,
    parent_pid: Number(process.env.PARENT_PID) || null };
  // Atomic, as ora serve writes it: a reader never sees the file created but still empty.
  fs.writeFileSync(path.join(data, ".server.json.tmp"), JSON.stringify(record));
  fs.renameSync(path.join(data, ".server.json.tmp"), path.join(data, "server.json"));
});
`;

/** Turns `ora serve VAULT [--port P] [--data DATA] [--parent-pid PID]` into the arguments above. */
const ORA_CLI = `{
const args = process.argv.slice(2), flag = (name) => { const i = args.indexOf(name); return i < 0 ? "" : args[i + 1]; };
if (flag("--parent-pid")) process.env.PARENT_PID = flag("--parent-pid");
process.argv = [process.argv[0], args[1], flag("--data") || require("path").join(args[1], ".ora")];
}`;

/**
 * The stand-in as an executable `DIR/ora`, taking `ora serve`'s arguments as the plugin passes
 * them: its command line is `node DIR/ora serve VAULT …`, which Ora verifies as `ora serve`.
 * `before`: code run first (e.g. to ignore SIGTERM).
 */
export function fakeOra(dir: string, before = ""): string {
	const path = join(dir, "ora");
	writeFileSync(path, `#!${process.execPath}\n${before}\n${ORA_CLI}\n${FAKE_SIDECAR}`, { mode: 0o755 });
	return path;
}
