import { promises as fs } from "fs";
import { inflateRawSync } from "zlib";

/**
 * One member of a zip file (a wheel), read through the central directory: the set-up needs the
 * uv binary out of uv's wheel and has no unzip program it can count on (Windows, minimal Linux).
 * Stored and deflated members only, which is what wheels use; no zip64 (uv's wheel is ~20 MB).
 */
export async function readZipMember(zipPath: string, member: string): Promise<Buffer> {
	const data = await fs.readFile(zipPath);
	const end = findEndOfCentralDirectory(data);
	if (end < 0) throw new Error(`${zipPath} is not a zip file`);
	const count = data.readUInt16LE(end + 10);
	let at = data.readUInt32LE(end + 16);
	for (let i = 0; i < count; i++) {
		if (data.readUInt32LE(at) !== 0x02014b50) throw new Error(`${zipPath}: damaged central directory`);
		const method = data.readUInt16LE(at + 10);
		const compressed = data.readUInt32LE(at + 20);
		const size = data.readUInt32LE(at + 24);
		const nameLength = data.readUInt16LE(at + 28);
		const extraLength = data.readUInt16LE(at + 30);
		const commentLength = data.readUInt16LE(at + 32);
		const local = data.readUInt32LE(at + 42);
		const name = data.toString("utf8", at + 46, at + 46 + nameLength);
		at += 46 + nameLength + extraLength + commentLength;
		if (name !== member) continue;
		if (data.readUInt32LE(local) !== 0x04034b50) throw new Error(`${zipPath}: damaged entry ${member}`);
		const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
		const raw = data.subarray(start, start + compressed);
		const out = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw) : null;
		if (out === null) throw new Error(`${zipPath}: ${member} uses compression method ${method}`);
		if (out.length !== size) throw new Error(`${zipPath}: ${member} is ${out.length} bytes, the directory says ${size}`);
		return out;
	}
	throw new Error(`${zipPath} has no ${member}`);
}

/** Where the end of the central directory is, or -1. */
function findEndOfCentralDirectory(data: Buffer): number {
	// The record is 22 bytes plus a comment of at most 65,535.
	for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65_535); i--) {
		if (data.readUInt32LE(i) === 0x06054b50) return i;
	}
	return -1;
}
