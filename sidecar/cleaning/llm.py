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
from typing import Any

import aiohttp

from sidecar.cleaning.verdict import Verdict
from sidecar.cleaning.vocab import get_thresholds
from sidecar.errors import ModelUnavailable
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


def chat_url(base: str) -> str:
    """The completions URL for a base URL given with or without `/v1`."""
    base = base.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if base.endswith("/v1"):
        return f"{base}/chat/completions"
    return f"{base}/v1/chat/completions"


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
    """Judges claim pairs by asking the configured chat model."""

    def __init__(self, config: Config) -> None:
        self._url = chat_url(str(config.llm_url))
        self._model = str(config.llm_model) or "default"
        self._key = str(config.llm_api_key)
        self.name = f"llm:{self._model}"

    async def _ask(self, session: aiohttp.ClientSession, a: str, b: str) -> Verdict:
        limits = get_thresholds()
        body: dict[str, Any] = {
            "model": self._model, "temperature": 0, "max_tokens": limits.llm_max_tokens,
            "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": f"Claim A: {a}\nClaim B: {b}"}],
        }
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        try:
            async with session.post(self._url, json=body, headers=headers) as resp:
                if resp.status != 200:
                    raise ModelUnavailable(
                        f"LLM judge at {self._url} answered HTTP {resp.status}; check llm_url")
                doc = await resp.json(content_type=None)
            label, confidence = parse_answer(doc["choices"][0]["message"]["content"])
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ModelUnavailable(f"LLM judge at {self._url} unreachable: {exc}") from exc
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ModelUnavailable(f"LLM judge gave an unusable answer: {exc}") from exc
        is_contradiction = label == "contradiction" and confidence >= limits.llm_threshold
        score = confidence if label == "contradiction" else 0.0
        return Verdict(is_contradiction, score, label, {"label": label, "confidence": confidence})

    async def judge(self, pairs: list[tuple[str, str]]) -> list[Verdict]:
        timeout = aiohttp.ClientTimeout(total=get_thresholds().llm_timeout)
        gate = asyncio.Semaphore(_CONCURRENCY)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async def one(a: str, b: str) -> Verdict:
                async with gate:
                    return await self._ask(session, a, b)
            return list(await asyncio.gather(*(one(a, b) for a, b in pairs)))
