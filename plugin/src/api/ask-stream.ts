import { isRecord } from "./client";
import { CALL_TIMEOUTS } from "./timeouts";
import { postEventStream, type SsePostOptions } from "./sse-post";
import type { AskDocument, AskRequest } from "./types";

export type AskStreamOptions = SsePostOptions;

/**
 * POST /v1/ask/stream: hands each piece of the answer to `onDelta` as the model writes it and
 * resolves with the whole answer document (the `answer` event).
 */
export function askStream(options: AskStreamOptions, request: AskRequest, onDelta: (text: string) => void): Promise<AskDocument> {
	return postEventStream<AskDocument>(
		{ ...options, timeoutMs: options.timeoutMs ?? CALL_TIMEOUTS["ask-stream"] },
		"/v1/ask/stream",
		request,
		(event, data) => {
			if (event === "delta" && isRecord(data) && typeof data.text === "string") onDelta(data.text);
			else if (event === "answer" && isRecord(data)) return { result: data as unknown as AskDocument };
			return undefined;
		},
		"The answer stream ended before the answer arrived.",
	);
}
