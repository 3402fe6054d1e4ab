"""The LLM extractor: the configured model (`llm_url`) proposes claims; its answer is data.

The prompt is `schema/extraction.json` `llm`: the instructions as the system message, the turns,
numbered and labelled by role, as the user message. The answer must be exactly one JSON object
`{"proposals": [{"turn", "text", "title"?, "subtype"?}]}` (a single ``` fence around it is
tolerated), no larger than `max_answer_chars`, each text short enough to be one claim, each turn
one of the conversation's, and each text and title grounded in its turn: at least
`min_grounding` of its content stems appear in that turn, and it holds no link the turn does not
hold, so a model cannot slip in text the conversation never held. Both are then read as the rule
extractor reads a turn, as plain text (links and emphasis reduced to their text): a link a model
writes is never live in an engram. Whether a claim is AI-derived, where it comes from and which
file it goes to are never the model's to say: they follow from the turn, and from whether the
text is the turn's own words (a user's or a document's claim the model reworded is the model's
text: AI-derived). Nor is whether it is private: a private turn's claim is private, and when the
request held any private turn (private mode, a public note with a private turn), so is every
claim the model wrote in other words than its public turn's own (`Candidate.private`): a model
merging turns, paraphrasing or translating can carry a private turn's content in words no
grounding check tells apart, and only a run of the public turn's own words is surely free of it;
such a claim keeps the model's title only when that too is the turn's own words, else the gate
gives it one from its text. What a turn only asks ("Is it true that X?") or denies ("I never
said that X") it does not state: a claim grounded only there is no claim of the turn, and the
gate drops it (not a claim), nor is a run of words inside such a sentence the turn's own words.
The answer's strings are decoded encodable (a `\\ud83d` escape becomes U+FFFD: `models/chat.py`
`json_reply`). Any other answer (not JSON, another shape, extra keys such as a path to write, a
claim or title about text not in the conversation, a failure to answer) is refused whole:
`ExtractionRefused`, and the caller falls back to the rule extractor.

A private conversation goes only to a model the egress rule allows (`privacy/egress.py`:
this machine, or a host the user trusts with private text); `complete` refuses otherwise.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema

from sidecar.cleaning.claims import plain
from sidecar.errors import LlmFailed
from sidecar.extraction.gate import content_stems, judged
from sidecar.extraction.proposals import Candidate, Source, Turn, extraction_data
from sidecar.extraction.rules import is_question, sentences, standalone, words
from sidecar.models.chat import complete, json_reply
from sidecar.schema import get_schema
from sidecar.settings import Config
from sidecar.vault.links import links

_FENCE = re.compile(r"^```(?:json)?\s*\n(?P<body>.*)\n```$", re.S)


class ExtractionRefused(Exception):
    """The model's answer cannot be used; the message says why (reported as `fallback`)."""


def _answer_schema(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object", "required": ["proposals"], "additionalProperties": False,
        "properties": {"proposals": {
            "type": "array", "maxItems": int(spec["max_proposals"]),
            "items": {
                "type": "object", "required": ["turn", "text"], "additionalProperties": False,
                "properties": {
                    "turn": {"type": "integer", "minimum": 1},
                    "text": {"type": "string", "minLength": 1,
                             "maxLength": int(spec["max_text_chars"])},
                    "title": {"type": "string", "maxLength": int(spec["max_title_chars"])},
                    "subtype": {"enum": sorted(get_schema().subtypes)},
                }}}}}


def messages(source: Source) -> list[dict[str, str]]:
    spec = extraction_data()["llm"]
    turns = "\n\n".join(
        spec["turn_label"].format(n=t.n, role=spec["roles"][t.role]) + "\n" + t.content
        for t in source.turns)
    return [{"role": "system", "content": spec["system"]}, {"role": "user", "content": turns}]


def _grounded(text: str, held: str, least: float) -> bool:
    said = content_stems(text)
    return not said or len(said & content_stems(held)) / len(said) >= least


def _held(value: str, turn: Turn, least: float, what: str) -> str:
    """A proposed text or title as plain text; ExtractionRefused when it adds a link the turn
    does not hold (an embed of a private note, say) or words the turn does not hold."""
    if any(value[link.start:link.end] not in turn.content for link in links(value)):
        raise ExtractionRefused(f"the answer's {what} for turn {turn.n} holds a link the turn "
                                "does not")
    text = plain(value)
    if not _grounded(text, turn.content, least):
        raise ExtractionRefused(f"the answer proposes {what} that turn {turn.n} does not hold")
    return text


def _folded(text: str) -> str:
    return " " + " ".join(w.casefold() for w in words(text)) + " "


class _Stated:
    """What a turn states of a claim a model found in it: the turn, but its questions and the
    sentences that deny the claim ("Is it true that X?", "I never said that X": the
    contradiction detector calls X and the sentence a contradiction); a claim is the turn's only
    where the rest holds it."""

    def __init__(self, text: str, turn: Turn) -> None:
        pairs = list(sentences(turn.content, turn.line_start))
        denied = {t for t, _ in pairs if is_question(t) or judged(text, t).contradiction}
        rest = _folded(plain(turn.content))
        for t in sorted(denied, key=len, reverse=True):
            rest = rest.replace(_folded(t), " \n ")  # no run of words goes across it
        self.rest = rest
        self.sentences = [(t, before) for t, before in pairs if t not in denied]

    def holds(self, text: str, least: float) -> bool:
        """Whether what the turn states grounds `text` (as `_held` asks of the whole turn)."""
        return _grounded(text, self.rest, least)

    def own_words(self, text: str) -> bool:
        """Whether `text` is the turn's own words: a run of what it states, or one of its
        sentences as the rule extractor states it to stand alone; else the model reworded it (a
        run inside a question or a denial is not the turn's claim)."""
        said = _folded(standalone(text) or text)
        return said in self.rest or any(said in _folded(standalone(t, before) or t)
                                        for t, before in self.sentences)


def parse_answer(answer: str, source: Source) -> list[Candidate]:
    """The candidates of a model's answer (ExtractionRefused naming what is wrong with it)."""
    spec = extraction_data()["llm"]
    if len(answer) > int(spec["max_answer_chars"]):
        raise ExtractionRefused(f"the answer is longer than {spec['max_answer_chars']} characters")
    text = answer.strip()
    fenced = _FENCE.match(text)
    try:  # a `\ud83d` escape decodes to a lone surrogate: its strings are made encodable
        doc = json_reply(fenced["body"] if fenced else text)
    except ValueError as exc:
        raise ExtractionRefused(f"the answer is not JSON ({exc})") from exc
    try:
        jsonschema.validate(doc, _answer_schema(spec))
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "answer"
        raise ExtractionRefused(f"the answer has the wrong shape at {where}: "
                                f"{exc.message[:200]}") from exc
    by_n = {t.n: t for t in source.turns}
    saw_private = any(t.private for t in source.turns)
    found = []
    for item in doc["proposals"]:
        turn = by_n.get(item["turn"])
        if turn is None:
            raise ExtractionRefused(f"the answer names turn {item['turn']}, which the "
                                    "source does not have")
        least = float(spec["min_grounding"])
        text = _held(item["text"], turn, least, "text")
        title = _held(item["title"], turn, least, "a title") if item.get("title") else ""
        stated = _Stated(text, turn)
        own = stated.own_words(text)
        # The model read a private turn: only a public turn's own words are surely free of it.
        private = saw_private and not turn.private and not _verbatim(text, turn, own)
        if saw_private and not turn.private and title and not _verbatim(title, turn, False):
            title = ""  # the model's title of a public claim: the gate gives it its own
        found.append(Candidate(text, turn, title, item.get("subtype", ""),
                               turn.role != "assistant" and not own,
                               stated.holds(text, least), private))
    return found


def _verbatim(text: str, turn: Turn, own: bool) -> bool:
    """Whether `text` is nothing but the turn's own words (`own`: `_Stated.own_words` found it
    so): a run of them, or one of its sentences stated to stand alone. A model's rewording, or
    a text with no words, may carry what another turn it read said."""
    return bool(words(text)) and (own or _folded(text) in _folded(plain(turn.content)))


async def llm_candidates(config: Config, source: Source) -> list[Candidate]:
    """The model's proposals for `source` (ExtractionRefused when it cannot be used)."""
    private = source.private or any(t.private for t in source.turns)
    spec = extraction_data()["llm"]
    try:  # a private conversation to a model the egress rule refuses: PrivateWithheld
        answer = await complete(config, messages(source), private=private,
                                max_tokens=int(spec["max_tokens"]))
    except LlmFailed as err:
        raise ExtractionRefused(err.message) from err
    return parse_answer(answer, source)
