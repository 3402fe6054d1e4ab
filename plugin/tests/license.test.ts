// The community-plugin checklist asks for a LICENSE file in the repository.
import { readFileSync } from "fs";
import { join } from "path";

import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../..");

describe("the repository's licence", () => {
	it("has a LICENSE file naming the licence package.json and pyproject.toml declare", () => {
		const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
		const declared = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string }).license;
		expect(license.startsWith(`${declared} License\n`)).toBe(true);
		expect(readFileSync(join(ROOT, "pyproject.toml"), "utf8")).toContain(`license = { text = "${declared}" }`);
		expect(license).toMatch(/Copyright \(c\) \d{4} /);
	});
});
