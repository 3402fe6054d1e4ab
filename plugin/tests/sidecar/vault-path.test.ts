import { describe, expect, it } from "vitest";

import { sameVaultPath, vaultPathKey } from "../../src/sidecar/vault-path";

describe("the sidecar's vault and the open vault", () => {
	it("are one vault on Windows whatever the case, separators, trailing slash or long-path prefix", () => {
		expect(sameVaultPath("C:\\Users\\Me\\Vault", "c:\\users\\me\\vault", "win32")).toBe(true);
		expect(sameVaultPath("C:\\Users\\Me\\Vault\\", "C:/Users/Me/Vault", "win32")).toBe(true);
		expect(sameVaultPath("\\\\?\\C:\\Users\\Me\\Vault", "C:\\Users\\Me\\Vault", "win32")).toBe(true);
		expect(sameVaultPath("\\\\NAS\\Share\\Vault", "\\\\nas\\share\\vault\\", "win32")).toBe(true);
		expect(sameVaultPath("C:\\Users\\Me\\Vault", "C:\\Users\\Me\\Vault 2", "win32")).toBe(false);
		expect(sameVaultPath("\\\\NAS\\Share\\Vault", "\\NAS\\Share\\Vault", "win32")).toBe(false);
	});

	it("are one vault on macOS whatever the case or Unicode form", () => {
		expect(sameVaultPath("/Users/me/Notes", "/users/ME/notes/", "darwin")).toBe(true);
		// "Ärzte" as macOS may report it (A + combining diaeresis) and as typed (Ä).
		expect(sameVaultPath("/Users/me/A\u0308rzte", "/Users/me/\u00c4rzte", "darwin")).toBe(true);
		expect(sameVaultPath("/Users/me/Notes", "/Users/me/Notes-old", "darwin")).toBe(false);
	});

	it("differ on Linux when the case differs, and a backslash there is part of a name", () => {
		expect(sameVaultPath("/home/me/Vault", "/home/me/vault", "linux")).toBe(false);
		expect(sameVaultPath("/home/me/Vault/", "/home/me//Vault", "linux")).toBe(true);
		expect(sameVaultPath("/home/me/a\\b", "/home/me/a/b", "linux")).toBe(false);
		expect(sameVaultPath("/home/me/A\u0308rzte", "/home/me/\u00c4rzte", "linux")).toBe(true);
	});

	it("keeps a root's own separator", () => {
		expect(vaultPathKey("/", "linux")).toBe("/");
		expect(vaultPathKey("D:\\", "win32")).toBe("d:/");
		expect(vaultPathKey("D:", "win32")).toBe("d:");
	});
});
