"""What every contradiction judge answers, and the protocol judges follow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Verdict:
    """One judged claim pair: does A contradict B, how sure, and why.

    `score` is in 0..1 and comparable only within one judge; `cue` names the reason (a rules
    cue such as "negation", or the judge's label); `detail` is shown to the user as evidence.
    `judge` names the judge that actually decided when it is not the one asked (a fallback).
    """

    contradiction: bool
    score: float
    cue: str
    detail: dict[str, Any] = field(default_factory=dict)
    judge: str | None = None


# Per claim pair: (claim A's note is ai-derived, claim B's note is ai-derived).
Origins = list[tuple[bool, bool]]


class Judge(Protocol):
    """A contradiction judge: `name` is reported with every pair it finds."""

    name: str

    async def judge(self, pairs: list[tuple[str, str]],
                    private: Sequence[bool] = (),
                    origins: Origins | None = None) -> list[Verdict]:
        """One verdict per (claim A, claim B), in order. `private[i]` says pair i holds a private
        note's claim: a judge that sends text off this machine must not send those
        (`sidecar/privacy/egress.py`); local judges read them like any other. `origins` says
        which claims come from AI-derived notes; a judge that reads only the wording (rules,
        NLI) ignores it."""
        ...
