import { describe, expect, it } from "vitest";

import { vaultLanguage } from "../../src/onboarding/language";

const repeat = (text: string, times: number): string[] => Array.from({ length: times }, () => text);

describe("vaultLanguage", () => {
	it("tells English notes from others, and says nothing about a near-empty vault", () => {
		expect(vaultLanguage(repeat("The meeting notes are in the folder of the project, and it is the one that we use for planning.", 20))).toBe("english");
		expect(vaultLanguage(repeat("Les notes de la réunion sont dans le dossier du projet, et c'est celui que nous utilisons pour la planification.", 20))).toBe("other");
		expect(vaultLanguage(repeat("Die Notizen der Besprechung liegen im Ordner des Projekts, den wir für die Planung verwenden.", 20))).toBe("other");
		expect(vaultLanguage(repeat("会議のメモはプロジェクトのフォルダーにあり、計画に使っているものです。", 60))).toBe("other");
		expect(vaultLanguage(["# Todo", "buy milk"])).toBe("unknown");
		expect(vaultLanguage([])).toBe("unknown");
	});
});
