"""The LLM judge: an OpenAI-compatible `/v1/chat/completions` endpoint (`llm_url`).

Each claim pair is one chat request at temperature 0 asking for a JSON verdict
`{"label": "contradiction"|"entailment"|"neutral", "confidence": 0..1}`. A pair is a
contradiction when the label says so with confidence ≥ `llm_threshold`. The prompt is data
(`schema/cleaning.json` `judges.llm_prompt`); when either claim's note is tagged `ai-derived`,
each claim is introduced with where it came from (an AI answer the user kept, or the user's own
note: `provenance.py`), and the verdict's evidence says the model was told (`told_provenance`).

A pair the model fails on (an HTTP error, a timeout, an answer that is not such JSON) is judged
by the rules detector instead, and its verdict says so (`fallback`, `judge_error`): the scan goes
on, and nothing pretends the model answered. After `_GIVE_UP` failures in one call the model is
not asked again in that call, so a dead endpoint costs a few timeouts, not one per pair.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from sidecar.cleaning.provenance import AI, USER
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.verdict import Origins, Verdict
from sidecar.cleaning.vocab import get_thresholds
from sidecar.errors import LlmFailed, SchemaDataError
from sidecar.models.chat import chat_url, complete
from sidecar.models.nli import LABELS
from sidecar.privacy.egress import may_send_private, withheld
from sidecar.schema import load_json
from sidecar.settings import Config

_CONCURRENCY = 4
_GIVE_UP = 3  # failures in one judge() call after which the rest go straight to the rules
_JSON = re.compile(r"\{.*\}", re.S)


@dataclass(frozen=True)
class Prompt:
    """The judge's prompt (`schema/cleaning.json` `judges.llm_prompt`)."""

    system: str
    claim: str  # one claim's line: {side}, {origin}, {text}
    origins: dict[str, str]  # "ai-derived" / "user" -> what {origin} says

    def messages(self, a: str, b: str, origins: tuple[bool, bool] | None) -> list[dict[str, str]]:
        """The chat messages for one pair; origins are named only when a side is AI-derived."""
        flags = origins or (False, False)

        def line(side: str, text: str, ai: bool) -> str:
            origin = self.origins[AI if ai else USER] if any(flags) else ""
            return self.claim.format(side=side, text=text, origin=origin)

        return [{"role": "system", "content": self.system},
                {"role": "user", "content": f"{line('A', a, flags[0])}\n{line('B', b, flags[1])}"}]


@cache
def get_prompt() -> Prompt:
    try:
        doc = load_json("cleaning.json")["judges"]["llm_prompt"]
        prompt = Prompt(str(doc["system"]), str(doc["claim"]),
                        {k: str(doc["origins"][k]) for k in (AI, USER)})
        prompt.messages("a", "b", (True, False))  # every placeholder is known
        return prompt
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise SchemaDataError(f"schema/cleaning.json judges.llm_prompt is malformed: {exc}"
                              ) from exc


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
    """Judges claim pairs by asking the configured chat model (`sidecar.models.chat`), with the
    rules detector standing in for any pair the model fails on."""

    def __init__(self, config: Config, timeout: float | None = None) -> None:
        self._config = config
        self._timeout = timeout
        self._rules = RulesJudge()
        self.name = f"llm:{str(config.llm_model) or 'default'}"

    async def _ask(self, a: str, b: str, private: bool,
                   origins: tuple[bool, bool] | None) -> Verdict:
        """The model's verdict; LlmFailed or ValueError when it gave none."""
        limits = get_thresholds()
        content = await complete(self._config, get_prompt().messages(a, b, origins),
                                 private=private,
                                 max_tokens=limits.llm_max_tokens,
                                 timeout=self._timeout or limits.llm_timeout)
        label, confidence = parse_answer(content)
        is_contradiction = label == "contradiction" and confidence >= limits.llm_threshold
        score = confidence if label == "contradiction" else 0.0
        detail: dict[str, object] = {"label": label, "confidence": confidence}
        if origins is not None and any(origins):
            detail["told_provenance"] = True
        return Verdict(is_contradiction, score, label, detail)

    async def _fallback(self, a: str, b: str, reason: str) -> Verdict:
        (verdict,) = await self._rules.judge([(a, b)])
        return Verdict(verdict.contradiction, verdict.score, verdict.cue,
                       {**verdict.detail, "fallback": self._rules.name, "judge_error": reason},
                       judge=self._rules.name)

    async def judge(self, pairs: list[tuple[str, str]],
                    private: Sequence[bool] = (),
                    origins: Origins | None = None) -> list[Verdict]:
        """Verdicts in order; a pair holding a private note's claim is judged by the rules
        detector, without asking, when the model is not trusted with private text."""
        gate = asyncio.Semaphore(_CONCURRENCY)
        failures: list[str] = []
        url = chat_url(str(self._config.llm_url))
        keep_private = may_send_private(self._config, url)

        async def one(a: str, b: str, is_private: bool,
                      told: tuple[bool, bool] | None) -> Verdict:
            if is_private and not keep_private:
                return await self._fallback(a, b, withheld("the language model", url))
            async with gate:
                if len(failures) >= _GIVE_UP:
                    return await self._fallback(
                        a, b, f"the language model failed {len(failures)} times in this scan, "
                        f"so it was not asked again; the last failure: {failures[-1]}")
                try:
                    return await self._ask(a, b, is_private, told)
                except LlmFailed as exc:
                    failures.append(exc.message)
                except ValueError as exc:
                    failures.append(f"the language model gave an unusable answer: {exc}")
                return await self._fallback(a, b, failures[-1])

        flags = list(private) or [False] * len(pairs)
        sides = origins if origins is not None else [None] * len(pairs)
        return list(await asyncio.gather(*(
            one(a, b, p, told) for (a, b), p, told in zip(pairs, flags, sides, strict=True))))
