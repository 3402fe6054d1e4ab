"""The cleaning framework's data: thresholds (`schema/cleaning.json`) and the deterministic
detector's vocabularies (`schema/contradiction_cues.json`), read once and typed.

Words in the vocabularies are stemmed with the same `stem` the detector applies to claims, so the
files can list plain base forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from sidecar.errors import SchemaDataError
from sidecar.schema import load_json

_MIN_STEM = 3
_KEEP_DOUBLE = frozenset("aeiouls")


@dataclass(frozen=True)
class KindRule:
    """Which notes a candidate kind covers: their `type`, and a tag they must carry (or None)."""

    types: tuple[str, ...]
    tag: str | None


@dataclass(frozen=True)
class Thresholds:
    archive_tag: str
    supersedes: str
    provenance_tag: str
    kinds: dict[str, KindRule]
    note_similarity: float
    neighbours: int
    claim_similarity: float
    claims_per_pair: int
    max_claims_per_note: int
    titled_kinds: tuple[str, ...]
    min_claim_words: int
    judge_order: tuple[str, ...]
    rules_threshold: float
    nli_threshold: float
    llm_threshold: float
    llm_timeout: float
    llm_max_tokens: int
    min_overlap: float
    number_tolerance: float
    cue_weights: dict[str, float]
    news_similarity: float
    news_date_properties: tuple[str, ...]
    news_min_shared_title_words: int
    web_finding_similarity: float


@dataclass(frozen=True)
class Cues:
    """Stemmed vocabularies of the rules detector."""

    suffixes: tuple[str, ...]
    negation: frozenset[str]
    antonyms: dict[str, frozenset[str]]
    comparatives: dict[str, frozenset[str]]
    comparative_markers: frozenset[str]
    clause_break: re.Pattern[str]
    non_assertive: re.Pattern[str]
    units: dict[str, str]
    labels: frozenset[str]  # stemmed: a number right after one names something
    year_range: tuple[int, int]
    stopwords: frozenset[str]
    elisions: frozenset[str]  # l', j', n': split off the word they lean on
    synonyms: dict[str, str]  # stem -> the first stem of its side of an antonym group
    weekdays: frozenset[str]
    months: frozenset[str]
    single_valued: frozenset[str]  # stemmed: whose object is one value at a time (is, live)
    slot_links: frozenset[str]  # stemmed: may stand between a single_valued word and its value
    preference_verbs: frozenset[str]
    preference_markers: frozenset[str]
    conditions: re.Pattern[str]
    opening_conditions: re.Pattern[str]  # only where they open the text or a clause
    qualifiers: re.Pattern[str]
    time_markers: re.Pattern[str]


def stem(word: str, suffixes: tuple[str, ...]) -> str:
    """A light suffix stripper: enough to meet `increases`, `increased` and `increase` as one.

    The first listed suffix that leaves a stem of three letters or more is removed (`ies`
    becomes `y`, a doubled final consonant is undoubled: dropped, drop), then a final `e`;
    `ss` endings keep their `s` (less, process).
    """
    for suffix in suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            if suffix == "s" and word.endswith("ss"):
                continue
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            if word[-1] == word[-2] and word[-1] not in _KEEP_DOUBLE:
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > _MIN_STEM:
        word = word[:-1]
    return word


def opposite_table(raw: list[list[Any]], suffixes: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """word -> its opposites; an entry is two words or two groups (each word of one group is
    the opposite of every word of the other)."""
    table: dict[str, set[str]] = {}
    for entry in raw:
        if len(entry) != 2:
            raise SchemaDataError(f"contradiction_cues.json: {entry!r} is not a pair")
        left, right = ({stem(w.lower(), suffixes) for w in ([s] if isinstance(s, str) else s)}
                       for s in entry)
        for a in left:
            table.setdefault(a, set()).update(right)
        for b in right:
            table.setdefault(b, set()).update(left)
    return {k: frozenset(v) for k, v in table.items()}


def same_side_table(raw: list[list[Any]], suffixes: tuple[str, ...]) -> dict[str, str]:
    """stem -> the first stem of the group side it is on: `reduce` and `lower` are the same
    word when two claims are compared for what else differs. A word's first side wins."""
    table: dict[str, str] = {}
    for entry in raw:
        for side in entry:
            words = [stem(w.lower(), suffixes) for w in ([side] if isinstance(side, str) else side)]
            for w in words:
                table.setdefault(w, words[0])
    return table


def by_language(value: Any) -> list[Any]:
    """A vocabulary as one list: written as a list, or as lists keyed by language."""
    if isinstance(value, dict):
        return [item for lang, items in value.items() if lang != "description" for item in items]
    if isinstance(value, list):
        return value
    raise TypeError(f"{value!r} is neither a list nor lists by language")


def _phrases(words: list[str], opening: bool = False) -> re.Pattern[str]:
    """Any of `words` as written, whole words only, any case (group `w`); with `opening`,
    only at the start of the text or of a clause."""
    alternatives = "|".join(re.escape(w.lower()) for w in sorted(words, key=len, reverse=True))
    before = r"(?:^|[,;:.!?])\s*" if opening else r"(?<!\w)"
    return re.compile(rf"{before}(?P<w>{alternatives})(?!\w)", re.I)


def _separators(words: list[str]) -> re.Pattern[str]:
    """Any of the clause separators, but never a punctuation mark between two digits: `€12,000`
    and `10:30` are one number (split, `€12,000` read as `€12` and contradicted `€12,000`)."""
    return re.compile("|".join(
        rf"(?<!\d){re.escape(s)}|{re.escape(s)}(?!\d)" if s.strip() == s else re.escape(s)
        for s in words))


@cache
def get_cues() -> Cues:
    data: dict[str, Any] = load_json("contradiction_cues.json")
    try:
        sfx = tuple(data["stem_suffixes"])
        negation = {w.lower() for w in by_language(data["negation"])
                    + data["negation_contractions"] + by_language(data["denial"])}
        low, high = data["year_range"]
        antonyms = by_language(data["antonyms"])

        def stems(key: str) -> frozenset[str]:
            return frozenset(stem(w.lower(), sfx) for w in by_language(data[key]))
        return Cues(
            suffixes=sfx,
            negation=frozenset(negation),
            antonyms=opposite_table(antonyms, sfx),
            comparatives=opposite_table(data["comparatives"], sfx),
            comparative_markers=frozenset(data["comparative_markers"]),
            clause_break=_separators(data["clause_separators"]),
            non_assertive=re.compile(
                r"\b(?:" + "|".join(re.escape(p) for p in data["non_assertive"]) + r")\b", re.I),
            units={k.lower(): v for k, v in data["units"].items()},
            labels=frozenset(stem(w.lower(), sfx) for w in data["labels"]),
            year_range=(int(low), int(high)),
            stopwords=frozenset(w.lower() for w in by_language(data["stopwords"])),
            elisions=frozenset(w.lower() for w in data["elisions"]),
            synonyms=same_side_table(antonyms, sfx),
            weekdays=stems("weekdays"),
            months=stems("months"),
            single_valued=stems("single_valued"),
            slot_links=stems("slot_links"),
            preference_verbs=stems("preference_verbs"),
            preference_markers=stems("preference_markers"),
            conditions=_phrases(by_language(data["conditions"])),
            opening_conditions=_phrases(by_language(data["opening_conditions"]), opening=True),
            qualifiers=_phrases(by_language(data["qualifiers"])),
            time_markers=_phrases(by_language(data["time_markers"])),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SchemaDataError(f"schema/contradiction_cues.json is malformed: {exc}") from exc


@cache
def get_thresholds() -> Thresholds:
    data: dict[str, Any] = load_json("cleaning.json")
    try:
        cand, judges, rules = data["candidates"], data["judges"], data["rules"]
        news = data["news"]
        resolution = data["resolution"]
        return Thresholds(
            archive_tag=resolution["archive_tag"],
            supersedes=resolution["relationship"],
            provenance_tag=resolution["provenance_tag"],
            kinds={
                name: KindRule(types=tuple(v["types"]), tag=v["tag"])
                for name, v in data["kinds"].items()
            },
            note_similarity=float(cand["note_similarity"]),
            neighbours=int(cand["neighbours"]),
            claim_similarity=float(cand["claim_similarity"]),
            claims_per_pair=int(cand["claims_per_pair"]),
            max_claims_per_note=int(cand["max_claims_per_note"]),
            titled_kinds=tuple(cand["title_is_claim"]),
            min_claim_words=int(cand["min_claim_words"]),
            judge_order=tuple(judges["order"]),
            rules_threshold=float(judges["rules_threshold"]),
            nli_threshold=float(judges["nli_threshold"]),
            llm_threshold=float(judges["llm_threshold"]),
            llm_timeout=float(judges["llm_timeout"]),
            llm_max_tokens=int(judges["llm_max_tokens"]),
            min_overlap=float(rules["min_overlap"]),
            number_tolerance=float(rules["number_tolerance"]),
            cue_weights={k: float(v) for k, v in rules["cue_weights"].items()},
            news_similarity=float(news["similarity"]),
            news_date_properties=tuple(news["date_properties"]),
            news_min_shared_title_words=int(news["min_shared_title_words"]),
            web_finding_similarity=float(data["web"]["finding_similarity"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SchemaDataError(f"schema/cleaning.json is malformed: {exc}") from exc
