import { describe, expect, it } from "vitest";

import { StatusModel } from "../../src/sidecar/status-model";
import { renderStatus } from "../../src/ui/status-bar";

describe("renderStatus", () => {
	it("shows the phase and a badge only when pairs are open", () => {
		const el = document.createElement("div");
		renderStatus(el, StatusModel.initial().view);
		expect(el.textContent).toBe("Ora: starting");
		expect(el.querySelector(".ora-status-badge")).toBeNull();
		renderStatus(el, StatusModel.initial().onEvent({ type: "contradictions", open: 3 }).failed("boom").view);
		expect(el.getAttribute("data-phase")).toBe("error");
		expect(el.querySelector(".ora-status-badge")?.textContent).toBe("3");
		expect(el.getAttribute("aria-label")).toBe("boom\nClick to restart the sidecar.");
	});
});
