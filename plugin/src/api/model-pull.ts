import { isRecord } from "./client";
import { CALL_TIMEOUTS } from "./timeouts";
import { postEventStream, type SsePostOptions } from "./sse-post";
import type { PulledModel, PullProgress } from "./types";

/**
 * POST /v1/models/pull: downloads catalogue model `name` into the sidecar's models folder, handing
 * each `progress` event to `onProgress`, and resolves with the installed manifest. A failed pull
 * rejects with the sidecar's code (`hub_unreachable`, `checksum_mismatch`, `model_unavailable`).
 */
export function pullModel(options: SsePostOptions, name: string, onProgress: (progress: PullProgress) => void): Promise<PulledModel> {
	return postEventStream<PulledModel>(
		{ ...options, timeoutMs: options.timeoutMs ?? CALL_TIMEOUTS["pull-stream"] },
		"/v1/models/pull",
		{ name },
		(event, data) => {
			if (event === "progress") {
				const progress = toPullProgress(data);
				if (progress) onProgress(progress);
			} else if (event === "installed" && isRecord(data)) {
				return { result: data as unknown as PulledModel };
			}
			return undefined;
		},
		"The download stream ended before the model was installed.",
	);
}

/** The progress a `progress` event's data describes, or null when it is not one. */
export function toPullProgress(data: unknown): PullProgress | null {
	if (!isRecord(data) || typeof data.file !== "string" || typeof data.done !== "number") return null;
	return { file: data.file, done: data.done, total: typeof data.total === "number" ? data.total : null };
}
