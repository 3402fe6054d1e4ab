"""The LLM judge: an OpenAI-compatible `/v1/chat/completions` endpoint (`llm_url`).

Each claim pair is one chat request at temperature 0 asking for a JSON verdict
`{"label": "contradiction"|"entailment"|"neutral", "confidence": 0..1}`. A pair is a
contradiction when the label says so with confidence ≥ `llm_threshold`. Transport errors and
answers that are not such JSON raise ModelUnavailable: a judge that silently says "no
contradiction" would hide the failure.
"""

from __future__ import annotations

import asyncio
import json
import re

from sidecar.cleaning.verdict import Verdict
from sidecar.cleaning.vocab import get_thresholds
from sidecar.errors import LlmFailed, ModelUnavailable
from sidecar.models.chat import complete
from sidecar.settings import Config

LABELS = ("contradiction", "entailment", "neutral")
_CONCURRENCY = 4
_JSON = re.compile(r"\{.*\}", re.S)
SYSTEM_PROMPT = (
    "You compare two claims from a person's notes. Answer with one JSON object and nothing "
    'else: {"label": "contradiction" | "entailment" | "neutral", "confidence": number 0..1}. '
    '"contradiction" means both cannot be true of the same subject at the same time; claims '
    'about different things, or that merely differ in detail, are "neutral".'
)


def parse_answer(content: str) -> tuple[str, float]:
    """(label, confidence) from the model's reply; ValueError if it is not the asked JSON."""
    match = _JSON.search(content)
    if match is None:
        raise ValueError(f"no JSON object in {content[:80]!r}")
    doc = json.loads(match.group(0))
    label = str(doc.get("label", "")).strip().lower()
    if label not in LABELS:
        raise ValueError(f"label {label!r} is not one of {', '.join(LABELS)}")
    confidence = float(doc.get("confidence", 1.0))
    return label, min(max(confidence, 0.0), 1.0)


class LlmJudge:
    """Judges claim pairs by asking the configured chat model (`sidecar.models.chat`)."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self.name = f"llm:{str(config.llm_model) or 'default'}"

    async def _ask(self, a: str, b: str) -> Verdict:
        limits = get_thresholds()
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": f"Claim A: {a}\nClaim B: {b}"}]
        try:
            content = await complete(self._config, messages, max_tokens=limits.llm_max_tokens,
                                     timeout=limits.llm_timeout)
            label, confidence = parse_answer(content)
        except LlmFailed as exc:
            raise ModelUnavailable(f"LLM judge failed: {exc.message}") from exc
        except ValueError as exc:
            raise ModelUnavailable(f"LLM judge gave an unusable answer: {exc}") from exc
        is_contradiction = label == "contradiction" and confidence >= limits.llm_threshold
        score = confidence if label == "contradiction" else 0.0
        return Verdict(is_contradiction, score, label, {"label": label, "confidence": confidence})

    async def judge(self, pairs: list[tuple[str, str]]) -> list[Verdict]:
        gate = asyncio.Semaphore(_CONCURRENCY)

        async def one(a: str, b: str) -> Verdict:
            async with gate:
                return await self._ask(a, b)

        return list(await asyncio.gather(*(one(a, b) for a, b in pairs)))
