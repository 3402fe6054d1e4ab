"""The quality gate: every candidate, whichever extractor found it, passes the same checks.

In order:

1. **Not a claim**: questions, greetings, chatter, aims, guesses, sentences that name nothing
   in particular, fragments, and sentences that lean on another (`rules.standalone`,
   `rules.not_a_claim`); a model's claim that its turn only asks or denies (`llm.py`). Reason
   `not-a-claim`.
2. **Already extracted**: the source note's `extracted` property holds the proposal's id (it was
   kept before): left out, neither proposed nor dropped.
3. **Pushback**: an assistant claim the user rejected later in the same conversation. A user turn
   with a pushback cue ("no, that's wrong", `schema/extraction.json` `pushback`) rejects the
   assistant turn before it: the claims of that turn that a sentence of the user turn
   contradicts (the contradiction survey's rules detector, `cleaning/rules.py`), or, when it
   contradicts none of them, all of that turn's claims (a sentence contradicting an older turn
   tells nothing about this one). A later user sentence that contradicts an assistant claim
   rejects it whatever words it uses. A claim the user says again is the user's, never
   rejected. Reason `pushback`. (A document has neither side: nothing to push back.)
4. **Duplicate**: an existing engram's claim says the same (the same words: normalised
   equality, or a Dice overlap of content stems ≥ `duplicate_overlap`; or a cosine ≥
   `duplicate_similarity`), one side's content stems all among the other's whichever path found
   it (a word replaced, another subject, day or number, makes another claim, however near the
   two are in meaning: "every Monday morning" is not "every Sunday morning"), and the detector
   does not call the two a contradiction. Reason `duplicate`, `of` the engram. A claim repeated
   within the conversation is proposed once (a correction that negates an earlier claim is not
   a repetition, however many words it shares); when the user repeats the assistant's very
   words, the claim is the user's (its turn, not AI-derived).
5. **Contradicts**: an existing engram's claim close enough to be about the same thing (the
   survey's `claim_similarity`) that the detector calls a contradiction. Still proposed, with
   `contradicts`: the vault accepts content quickly and the cleaning queue surfaces the pair.

The detector reads numbers as digits; the gate gives it numbers written as words in digits
(`numerals`: "six hours" against "two hours" is a contradiction, not a repetition).

Existing engrams are looked up through `EngramLookup` (`engrams.py`): private engrams only for a
private extraction, so a public answer never names one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Protocol

from sidecar.cleaning.claims import split_claims
from sidecar.cleaning.rules import detect
from sidecar.cleaning.verdict import Verdict
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
from sidecar.language.languages import segment

_TOKEN = re.compile(r"[^\W_]+")
class EngramLookup(Protocol):
    """The existing engrams' claims nearest to each text, best first."""

    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]: ...


@lru_cache(maxsize=1024)  # each pair of claims asks for both sides' stems up to three times
def content_stems(text: str) -> frozenset[str]:
    cues = get_cues()
    # Any script's words, a run written without spaces as its character pairs (a Russian or
    # Chinese claim has words too: with none, any two claims were "contained" in each other).
    return frozenset(stem(w, cues.suffixes) for w in _TOKEN.findall(segment(text).lower())
                     if w not in cues.stopwords)


def overlap(a: str, b: str) -> float:
    """Dice overlap of the two texts' content stems."""
    x, y = content_stems(a), content_stems(b)
    return 2 * len(x & y) / (len(x) + len(y)) if x or y else 0.0


@cache
def _numbers() -> tuple[dict[str, int], re.Pattern[str]]:
    """`schema/extraction.json` `number_words`, every language's, and their pattern."""
    data = extraction_data()["number_words"]
    values = {word: int(n) for lang, words in data.items() if lang != "description"
              for word, n in words.items()}
    tens = "|".join(w for w, n in values.items() if n >= 20 and n % 10 == 0)
    units = "|".join(w for w, n in values.items() if 0 < n < 10)
    return values, re.compile(rf"\b(?:(?P<tens>{tens})[- ](?P<unit>{units})|"
                              rf"(?P<word>{'|'.join(values)}))\b", re.I)


def numerals(text: str) -> str:
    """`text` with its numbers written as words in digits ("twenty-five hours" → "25 hours")."""
    values, pattern = _numbers()

    def digits(m: re.Match[str]) -> str:
        if m["tens"]:
            return str(values[m["tens"].lower()] + values[m["unit"].lower()])
        return str(values[m["word"].lower()])
    return pattern.sub(digits, text)


def judged(a: str, b: str) -> Verdict:
    """The survey's rules detector on two claims, their numbers in digits."""
    return detect(numerals(a), numerals(b))


def _contained(a: str, b: str) -> bool:
    """One side's content stems all among the other's: a replaced word ("Monday" for "Sunday"),
    another subject or another number makes another claim, however near in meaning."""
    x, y = content_stems(a), content_stems(b)
    return x <= y or y <= x


def _same(a: str, b: str, limit: float) -> bool:
    """The same words: equal once normalised, or nearly the same content stems with one side's
    all among the other's (`_contained`)."""
    if normalise(a) == normalise(b):
        return True
    return _contained(a, b) and overlap(a, b) >= limit


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
                  if c.turn.role == "assistant" and c.turn.n < user.n]
        negated = {i for i in before if any(judged(claims[i].text, s).contradiction
                                            for s in said)}
        rejected |= negated
        previous = next((t for t in reversed(turns[:j]) if t.role == "assistant"), None)
        if previous is not None and pushes_back(user.content):
            answered = {i for i in before if claims[i].turn.n == previous.n}
            if not answered & negated:  # a sentence negating an older turn picks none here
                rejected |= answered
    return rejected


def _repeats(text: str, pid: str, claims: list[Proposal], limit: float) -> int | None:
    """The index of the claim in `claims` that `text` says again, if any."""
    found = next((k for k, p in enumerate(claims) if p.id == pid), None)
    if found is None:
        found = next((k for k, p in enumerate(claims) if _same(text, p.text, limit)
                      and not judged(text, p.text).contradiction), None)
    return found


def gate(source: Source, candidates: list[Candidate],
         engrams: EngramLookup) -> tuple[list[Proposal], list[Dropped]]:
    """The proposals that pass, and what was dropped and why (see the module docstring)."""
    limits = extraction_data()["gate"]
    same_words = float(limits["duplicate_overlap"])
    dropped: list[Dropped] = []
    claims: list[Proposal] = []
    restated: set[int] = set()  # assistant claims the user said again in other words
    for c in candidates:
        text = standalone(c.text)
        if text is None or not c.stated or not_a_claim(text):
            dropped.append(Dropped(c.text, "not-a-claim"))
            continue
        pid = proposal_id(source.id, text)
        if pid in source.extracted:
            continue
        p = Proposal(pid, c.title or title_of(text), text, c.subtype or subtype_of(text), c.turn,
                     source.link(c.turn), list(source.nexus), reworded=c.reworded,
                     private_words=c.private)
        k = _repeats(text, pid, claims, same_words)
        if k is None:
            claims.append(p)
            continue
        # said again: proposed once; the user's own words make the assistant's claim theirs
        users = (c.turn.role == "user" and not c.reworded
                 and claims[k].turn.role == "assistant")
        if claims[k].id != pid:
            dropped.append(Dropped(text, "duplicate"))
            if users:
                restated.add(k)
        elif users:
            claims[k] = p
    rejected = _pushed_back(source, claims) - restated
    dropped += [Dropped(p.text, "pushback") for i, p in enumerate(claims) if i in rejected]
    kept = [p for i, p in enumerate(claims) if i not in rejected]
    proposals = []
    for p, matches in zip(kept, engrams.neighbours([p.text for p in kept]), strict=True):
        duplicate = _check(p, matches, float(limits["duplicate_similarity"]), same_words)
        if duplicate is not None:
            dropped.append(Dropped(p.text, "duplicate", duplicate))
        else:
            proposals.append(p)
    return proposals, dropped


def _check(p: Proposal, matches: list[Match], similar: float, same_words: float) -> str | None:
    """The engram `p` duplicates, if any; else records what it contradicts on `p`."""
    near = get_thresholds().claim_similarity
    for m in matches:
        verdict = judged(p.text, m.text)
        if verdict.contradiction:
            if m.similarity >= near:
                p.contradicts.append(Match(m.path, m.text, m.line_start, m.line_end,
                                           m.similarity, m.private, verdict.score,
                                           {"cue": verdict.cue, **verdict.detail}))
        elif _same(p.text, m.text, same_words) or (m.similarity >= similar
                                                     and _contained(p.text, m.text)):
            return m.path
    return None
