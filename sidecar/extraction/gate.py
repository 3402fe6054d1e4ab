"""The quality gate: every candidate, whichever extractor found it, passes the same checks.

In order:

1. **Not a claim**: questions, greetings, chatter, aims, fragments, and sentences that lean on
   another (`rules.standalone`, `rules.not_a_claim`). Reason `not-a-claim`.
2. **Already extracted**: the source note's `extracted` property holds the proposal's id (it was
   kept before): left out, neither proposed nor dropped.
3. **Pushback**: an assistant claim the user rejected later in the same conversation. A user turn
   with a pushback cue ("no, that's wrong", `schema/extraction.json` `pushback`) rejects the
   assistant turn before it: the claims that a sentence of that user turn contradicts (the
   contradiction survey's rules detector, `cleaning/rules.py`), or, when none does, all of that
   turn's claims. A later user sentence that contradicts an assistant claim rejects it whatever
   words it uses. Reason `pushback`. (A document has neither side: nothing to push back.)
4. **Duplicate**: an existing engram's claim says the same (cosine ≥ `duplicate_similarity`,
   or the same words: normalised equality or a Dice overlap of content stems ≥
   `duplicate_overlap`), and the detector does not call the two a contradiction. Reason
   `duplicate`, `of` the engram. A claim repeated within the conversation is proposed once (a
   correction that negates an earlier claim is not a repetition, however many words it shares).
5. **Contradicts**: an existing engram's claim close enough to be about the same thing (the
   survey's `claim_similarity`) that the detector calls a contradiction. Still proposed, with
   `contradicts`: the vault accepts content quickly and the cleaning queue surfaces the pair.

Existing engrams are looked up through `EngramLookup` (`engrams.py`): private engrams only for a
private extraction, so a public answer never names one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from sidecar.cleaning.claims import split_claims
from sidecar.cleaning.rules import detect
from sidecar.cleaning.vocab import get_cues, get_thresholds, stem
from sidecar.extraction.proposals import (
    Candidate,
    Dropped,
    Match,
    Proposal,
    Source,
    extraction_data,
    normalise,
    proposal_id,
)
from sidecar.extraction.rules import not_a_claim, pushes_back, standalone, subtype_of, title_of

_TOKEN = re.compile(r"[a-z0-9]+")


class EngramLookup(Protocol):
    """The existing engrams' claims nearest to each text, best first."""

    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]: ...


def content_stems(text: str) -> frozenset[str]:
    cues = get_cues()
    return frozenset(stem(w, cues.suffixes) for w in _TOKEN.findall(text.lower())
                     if w not in cues.stopwords)


def overlap(a: str, b: str) -> float:
    """Dice overlap of the two texts' content stems."""
    x, y = content_stems(a), content_stems(b)
    return 2 * len(x & y) / (len(x) + len(y)) if x or y else 0.0


def _same(a: str, b: str, limit: float) -> bool:
    return normalise(a) == normalise(b) or overlap(a, b) >= limit


def _pushed_back(source: Source, claims: list[Proposal]) -> set[int]:
    """Indexes (in `claims`) of the assistant claims the user rejected later."""
    rejected: set[int] = set()
    turns = source.turns
    for j, user in enumerate(turns):
        if user.role != "user":
            continue
        said = [s for c in split_claims(user.content, user.line_start)
                if (s := standalone(c.text)) is not None]
        before = [i for i, c in enumerate(claims)
                  if c.ai_derived and c.turn.n < user.n]
        negated = {i for i in before if any(detect(claims[i].text, s).contradiction for s in said)}
        rejected |= negated
        if pushes_back(user.content) and not negated:
            previous = next((t for t in reversed(turns[:j]) if t.role == "assistant"), None)
            if previous is not None:
                rejected |= {i for i in before if claims[i].turn.n == previous.n}
    return rejected


def gate(source: Source, candidates: list[Candidate],
         engrams: EngramLookup) -> tuple[list[Proposal], list[Dropped]]:
    """The proposals that pass, and what was dropped and why (see the module docstring)."""
    limits = extraction_data()["gate"]
    dropped: list[Dropped] = []
    claims: list[Proposal] = []
    seen: set[str] = set()
    for c in candidates:
        text = standalone(c.text)
        if text is None or not_a_claim(text):
            dropped.append(Dropped(c.text, "not-a-claim"))
            continue
        pid = proposal_id(source.id, text)
        if pid in source.extracted or pid in seen:
            continue
        if any(_same(text, p.text, float(limits["duplicate_overlap"]))
               and not detect(text, p.text).contradiction for p in claims):
            dropped.append(Dropped(text, "duplicate"))
            continue
        seen.add(pid)
        claims.append(Proposal(
            pid, c.title or title_of(text), text, c.subtype or subtype_of(text), c.turn,
            source.link(c.turn), list(source.nexus)))
    rejected = _pushed_back(source, claims)
    dropped += [Dropped(p.text, "pushback") for i, p in enumerate(claims) if i in rejected]
    kept = [p for i, p in enumerate(claims) if i not in rejected]
    proposals = []
    for p, matches in zip(kept, engrams.neighbours([p.text for p in kept]), strict=True):
        duplicate = _check(p, matches, float(limits["duplicate_similarity"]),
                           float(limits["duplicate_overlap"]))
        if duplicate is not None:
            dropped.append(Dropped(p.text, "duplicate", duplicate))
        else:
            proposals.append(p)
    return proposals, dropped


def _check(p: Proposal, matches: list[Match], similar: float, same_words: float) -> str | None:
    """The engram `p` duplicates, if any; else records what it contradicts on `p`."""
    near = get_thresholds().claim_similarity
    for m in matches:
        verdict = detect(p.text, m.text)
        if verdict.contradiction:
            if m.similarity >= near:
                p.contradicts.append(Match(m.path, m.text, m.line_start, m.line_end,
                                           m.similarity, m.private, verdict.score,
                                           {"cue": verdict.cue, **verdict.detail}))
        elif m.similarity >= similar or _same(p.text, m.text, same_words):
            return m.path
    return None
