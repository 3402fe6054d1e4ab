// A loopback package index that misbehaves on demand, for the set-up's download failures: it
// lists a small stand-in of uv's wheel (a zip holding `uv-V.data/scripts/uv`) in a JSON API as
// pypi.org's, and serves the listing and the file whole, stalled (part sent, then silence),
// dropped (part sent, then the connection closed) and so on, as `listing` and `file` say.
import { createHash } from "crypto";
import { createServer, type Server } from "http";
import type { AddressInfo, Socket } from "net";

import installer from "../../../schema/installer.json";

export const UV_VERSION = installer.uv.version;
export const UV_TAG = installer.uv.wheels["linux-x64"];
export const UV_WHEEL = `uv-${UV_VERSION}-py3-none-${UV_TAG}.whl`;

export type ListingMode = "ok" | "silent" | "stall" | "closed" | "not-json" | "http-500";
/** not-a-zip: whole, and listed with its sha256, but not a zip file. */
export type FileMode = "ok" | "stall" | "drop" | "not-a-zip";

export interface FlakyIndex {
	url: string;
	listing: ListingMode;
	file: FileMode;
	/** The uv binary inside the wheel. */
	readonly binary: Buffer;
	readonly wheel: Buffer;
	/** Requests seen, as "GET /path". */
	readonly seen: string[];
	close(): Promise<void>;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});

function crc32(data: Buffer): number {
	let c = 0xffffffff;
	for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

/** A zip with one stored (uncompressed) member. */
export function storedZip(name: string, content: Buffer): Buffer {
	const file = Buffer.from(name, "utf8");
	const crc = crc32(content);
	const local = Buffer.alloc(30);
	local.writeUInt32LE(0x04034b50, 0);
	local.writeUInt16LE(20, 4);
	local.writeUInt32LE(crc, 14);
	local.writeUInt32LE(content.length, 18);
	local.writeUInt32LE(content.length, 22);
	local.writeUInt16LE(file.length, 26);
	const central = Buffer.alloc(46);
	central.writeUInt32LE(0x02014b50, 0);
	central.writeUInt16LE(20, 4);
	central.writeUInt16LE(20, 6);
	central.writeUInt32LE(crc, 16);
	central.writeUInt32LE(content.length, 20);
	central.writeUInt32LE(content.length, 24);
	central.writeUInt16LE(file.length, 28);
	central.writeUInt32LE(0, 42);
	const directoryAt = local.length + file.length + content.length;
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(1, 8);
	end.writeUInt16LE(1, 10);
	end.writeUInt32LE(central.length + file.length, 12);
	end.writeUInt32LE(directoryAt, 16);
	return Buffer.concat([local, file, content, central, file, end]);
}

export async function startFlakyIndex(): Promise<FlakyIndex> {
	// Big enough that a part of it is not the whole: 200 kB of a fake binary.
	const binary = Buffer.concat([Buffer.from("#!/bin/sh\necho uv\n"), Buffer.alloc(200_000, 0x23)]);
	const wheel = storedZip(`uv-${UV_VERSION}.data/scripts/uv`, binary);
	const junk = Buffer.from("<html>This is not a wheel</html>");
	const sockets = new Set<Socket>();
	const state: FlakyIndex = {
		url: "",
		listing: "ok",
		file: "ok",
		binary,
		wheel,
		seen: [],
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
	const server: Server = createServer((req, res) => {
		state.seen.push(`${req.method} ${req.url}`);
		const path = (req.url ?? "").split("?")[0];
		const served = state.file === "not-a-zip" ? junk : wheel;
		const sha256 = createHash("sha256").update(served).digest("hex");
		if (path === `/pypi/uv/${UV_VERSION}/json`) {
			const body = JSON.stringify({ urls: [{ filename: UV_WHEEL, url: `/files/${UV_WHEEL}`, size: served.length, digests: { sha256 } }] });
			switch (state.listing) {
				case "silent":
					return; // never answers
				case "stall":
					res.writeHead(200, { "Content-Length": body.length, "Content-Type": "application/json" });
					res.write(body.slice(0, 20));
					return; // never ends
				case "closed":
					req.socket.destroy();
					return;
				case "not-json":
					res.writeHead(200, { "Content-Type": "text/html" });
					res.end("<html>Sign in to the hotel wifi</html>");
					return;
				case "http-500":
					res.writeHead(500);
					res.end();
					return;
				default:
					res.writeHead(200, { "Content-Type": "application/json" });
					res.end(body);
					return;
			}
		}
		if (path === `/files/${UV_WHEEL}`) {
			res.writeHead(200, { "Content-Length": served.length });
			if (state.file === "stall") {
				res.write(served.subarray(0, 50_000));
				return; // never ends
			}
			if (state.file === "drop") {
				res.write(served.subarray(0, 50_000), () => res.destroy());
				return;
			}
			res.end(served);
			return;
		}
		res.writeHead(404);
		res.end();
	});
	server.on("connection", (socket: Socket) => {
		sockets.add(socket);
		socket.on("close", () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return state;
}
