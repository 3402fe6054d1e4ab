"""Contradiction judges, chosen by availability.

`judge_order` in `schema/cleaning.json` lists the preference: the LLM judge when `llm_url` is set,
the NLI cross-encoder when a model sits in `nli_dir` (or <models_dir>/nli), and always the
deterministic rules detector. `judge_status(config)` reports each one for `ora models` and
`GET /v1/status`; `build_judge(config)` returns the first available.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from sidecar.cleaning.llm import LlmJudge
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.verdict import Judge, Origins, Verdict
from sidecar.cleaning.vocab import get_thresholds
from sidecar.errors import BadRequest
from sidecar.models.chat import chat_url
from sidecar.models.nli import OnnxNLI, load_nli, nli_folder
from sidecar.models.pairs import missing_files
from sidecar.privacy.egress import may_send_private
from sidecar.settings import Config


class NliJudge:
    """An NLI cross-encoder: P(contradiction), averaged over both premise/hypothesis orders."""

    def __init__(self, model: OnnxNLI) -> None:
        self._model = model
        self.name = model.name

    def _predict(self, pairs: list[tuple[str, str]]) -> list[Verdict]:
        if not pairs:
            return []
        both = self._model.predict(pairs + [(b, a) for a, b in pairs])
        threshold = get_thresholds().nli_threshold
        verdicts = []
        for forward, backward in zip(both[: len(pairs)], both[len(pairs):], strict=True):
            p = (forward["contradiction"] + backward["contradiction"]) / 2
            label = max(forward, key=lambda k: forward[k] + backward[k])
            verdicts.append(Verdict(p >= threshold, round(p, 4), label,
                                    {"contradiction": round(p, 4), "label": label}))
        return verdicts

    async def judge(self, pairs: list[tuple[str, str]],
                    private: Sequence[bool] = (),
                    origins: Origins | None = None) -> list[Verdict]:
        return await asyncio.to_thread(self._predict, pairs)

    def release(self, idle_s: float) -> bool:
        return self._model.release(idle_s)


def _llm_status(config: Config) -> tuple[bool, str]:
    if not config.llm_url:
        return False, "llm_url is not set (ORA_LLM_URL)"
    url = chat_url(str(config.llm_url))
    if not may_send_private(config, url):
        return True, (f"OpenAI-compatible endpoint {url}; pairs with a private note's claim go "
                      "to the rules detector (it is not on this machine: private_remote_ok)")
    return True, f"OpenAI-compatible endpoint {url}"


def _nli_status(config: Config) -> tuple[bool, str]:
    folder = nli_folder(config)
    absent = missing_files(folder)
    if absent:
        return False, f"no NLI model: {folder} lacks {', '.join(absent)}"
    return True, f"ONNX NLI cross-encoder in {folder}"


def _rules_status(config: Config) -> tuple[bool, str]:
    return True, "deterministic detector over aligned claims (always available)"


_STATUS: dict[str, Callable[[Config], tuple[bool, str]]] = {
    "llm": _llm_status, "nli": _nli_status, "rules": _rules_status,
}
_BUILD: dict[str, Callable[[Config], Judge]] = {
    "llm": LlmJudge, "nli": lambda c: NliJudge(load_nli(c)), "rules": lambda c: RulesJudge(),
}


def judge_status(config: Config) -> list[dict[str, Any]]:
    """Every judge: {"name", "available", "selected", "reason"}, in preference order."""
    rows, chosen = [], False
    for name in get_thresholds().judge_order:
        available, reason = _STATUS[name](config)
        selected = available and not chosen
        chosen = chosen or selected
        rows.append({"name": name, "available": available, "selected": selected,
                     "reason": reason})
    return rows


def build_judge(config: Config, name: str | None = None) -> Judge:
    """The named judge, or the first available in `judge_order`. A judge asked for by name
    that is not configured is refused (BadRequest), never silently replaced by another."""
    if name is not None:
        if name not in _BUILD:
            raise BadRequest(f"unknown judge {name!r}: choose from {', '.join(_BUILD)}")
        available, reason = _STATUS[name](config)
        if not available:
            raise BadRequest(f"judge {name} is not available: {reason}")
        return _BUILD[name](config)
    for row in judge_status(config):
        if row["selected"]:
            return _BUILD[row["name"]](config)
    return RulesJudge()
