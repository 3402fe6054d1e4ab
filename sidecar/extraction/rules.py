"""The deterministic extractor, and the text rules every proposal passes, whoever proposed it.

Without a language model, each turn is cut into sentences by the contradiction survey's claim
splitter (`cleaning/claims.py`: prose only, links and emphasis reduced to text, file lines kept),
and every sentence is a candidate. The gate then keeps the declarative claims: a question, a
greeting, thanks, talk about the conversation itself, a statement of aims, a sentence too short
to say anything or too long to be one idea is not a claim (`not_a_claim`).

A sentence made of chatter and fragments ("Great question, let me explain.", "Sure, I can
help.": a clause that is chatter, the others too short to be a claim) is not a claim either, nor
is a request in another language's imperative ("Parle-moi de…", "Erzähl mir…"), a question
marked in any script ("…？", "¿…"), a guess ("Probably…", "Vielleicht…", "Quizás…, but I am
guessing": `schema/extraction.json` `hedges`), a report of who said what in the conversation
("I never said that…", "You said…": `reported_speech`), or a sentence whose every word is a
stopword or names nothing in particular ("There are many things to consider here.": `vague`).

A claim must stand alone (`standalone`): an answer's citation markers (`[1]`) are removed, a
leading discourse word ("Actually,", "No,") and a back-reference ("as I said,") are removed; a
leading pushback cue ("No, that's wrong,", also after an interjection: "Hmm, I don't think
so,") is removed, and what goes on from the cue without a pause ("I don't think so about the
banneton") is what is rejected, not a claim; a leading "it"/"they" is replaced by the subject
of the sentence before it in the same turn when that subject is short and plain; a sentence
that still leans on another ("This means…", "That is why…") is not proposed. The subtype is the
first of `schema/extraction.json` `subtypes` whose pattern matches ("X is a Y" a definition,
"because" causal, "should/always" a process principle, "better/worse" evaluative), else a fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from sidecar.cleaning.claims import split_claims
from sidecar.cleaning.vocab import get_cues, stem
from sidecar.extraction.proposals import Candidate, Source, extraction_data
from sidecar.language.languages import unspaced_share
from sidecar.language.languages import word_count as count_words

_WORD = re.compile(r"\w+(?:['’]\w+)*")
_END = re.compile(r"[\s.;:,!]+$")
_CLAUSE = re.compile(r"\s*[,;:—–]\s+|\s+-\s+")


def _alternation(phrases: list[str]) -> str:
    ordered = sorted((p.casefold() for p in phrases), key=len, reverse=True)
    return "|".join(re.escape(p).replace("'", "['’]") for p in ordered)


def _bounded(edge: str) -> bool:
    """Whether a phrase's first or last letter `edge` has a word boundary to match at: a letter
    of a script written with spaces (Chinese and Japanese have none: `你说的不对`)."""
    return re.match(r"\w", edge) is not None and not unspaced_share(edge)


def _cue_words(phrases: list[str]) -> re.Pattern[str]:
    """Any of `phrases` as whole words, at the edges where words have boundaries."""
    ordered = sorted({p.casefold() for p in phrases}, key=len, reverse=True)
    return re.compile("|".join(
        (r"(?<!\w)" if _bounded(p[0]) else "") + re.escape(p).replace("'", "['’]")
        + (r"(?!\w)" if _bounded(p[-1]) else "") for p in ordered), re.I)


def _opening(phrases: list[str]) -> re.Pattern[str]:
    """Any of `phrases` opening a sentence, after at most two interjections set off by a comma
    ("Hmm, I never said…"), ending where a word does (when its script has word boundaries)."""
    ordered = sorted({p.casefold() for p in phrases}, key=len, reverse=True)
    return re.compile(r"^(?:[^\W\d_]+\s*[,!]+\s*){0,2}(?:" + "|".join(
        re.escape(p).replace("'", "['’]") + (r"(?!\w)" if _bounded(p[-1]) else "")
        for p in ordered) + ")", re.I)


def _by_language(section: dict[str, list[str]]) -> dict[str, list[str]]:
    """A section of phrases by language code, without its description."""
    return {lang: list(phrases) for lang, phrases in section.items() if lang != "description"}


@dataclass(frozen=True)
class _Rules:
    lead: re.Pattern[str]
    citation: re.Pattern[str]
    references: re.Pattern[str]
    resolvable: re.Pattern[str]
    dangling: re.Pattern[str]
    subject: re.Pattern[str]
    not_claim: tuple[re.Pattern[str], ...]
    requests: tuple[re.Pattern[str], ...]
    pushback: re.Pattern[str]
    reaction: re.Pattern[str]
    hedges: re.Pattern[str]
    reported: re.Pattern[str]  # "I never said…", "You said…": talk about the conversation
    vague: tuple[frozenset[str], ...]  # per language, stemmed
    question_end: tuple[str, ...]
    question_start: tuple[str, ...]
    question_breaks: re.Pattern[str]  # the space after a question or before its opening mark
    subtypes: tuple[tuple[str, re.Pattern[str]], ...]
    default_subtype: str
    min_words: int
    max_words: int
    title_chars: int


@cache
def text_rules() -> _Rules:
    data = extraction_data()
    c = data["claims"]
    cues = [p for phrases in _by_language(data["pushback"]).values() for p in phrases]
    about = _alternation(data["pushback_about"]["words"])
    suffixes = get_cues().suffixes
    return _Rules(
        citation=re.compile(c["citation_marker"]),
        lead=re.compile(rf"^(?:{_alternation(c['lead_words'] + ['no'])})\s*[,!:]\s*", re.I),
        references=re.compile(rf",?\s*\b(?:{_alternation(c['reference_phrases'])})\b\s*,?\s*",
                              re.I),
        resolvable=re.compile(rf"^(?:{_alternation(c['resolvable_pronouns'])})\b\s+", re.I),
        dangling=re.compile(rf"^(?:{_alternation(c['dangling_starts'])})\b", re.I),
        # the words before a listed verb, or before a present-tense verb ("ferments") after
        # at most four words none of which ends in s (so "Starters need" is not cut wrongly)
        subject=re.compile(rf"^(?:(?P<subject>.+?)\s+(?:{_alternation(c['subject_verbs'])})\b"
                           r"|(?P<short>(?:\w*[^\Ws\d] ){0,3}\w*[^\Ws\d])\s+[a-z]+[^\Ws]s\b)"),
        not_claim=tuple(re.compile(p, re.I) for p in data["not_a_claim"]),
        requests=tuple(re.compile(p, re.I) for p in data["requests"]["patterns"]),
        pushback=_cue_words(cues),
        # a cue opening a sentence, after at most two interjections set off by a comma ("Hmm,
        # I don't think so"); `topic` when it goes on, unpaused, into what it is about
        reaction=re.compile(rf"^(?:[^\W\d_]+\s*[,!]+\s*){{0,2}}(?:{_alternation(cues)})(?!\w)"
                            rf"(?P<topic>\s+(?:{about})\b)?", re.I),
        hedges=_cue_words([p for phrases in _by_language(data["hedges"]).values()
                           for p in phrases]),
        reported=_opening([p for phrases in _by_language(data["reported_speech"]).values()
                           for p in phrases]),
        vague=tuple(frozenset(stem(w.casefold(), suffixes) for w in phrases)
                    for phrases in _by_language(data["vague"]).values()),
        question_end=tuple(data["questions"]["end"]),
        question_start=tuple(data["questions"]["start"]),
        question_breaks=re.compile(
            "(?:" + "|".join(f"(?<={re.escape(m)})" for m in data["questions"]["end"])
            + r")[*_\"'”’)\]]*\s+(?=[\"'“‘(\[¿¡]?(?P<next>\w))|(?<=[.!?…])\s+(?="
            + "|".join(re.escape(m) for m in data["questions"]["start"]) + ")"),
        subtypes=tuple((s["subtype"], re.compile(s["pattern"], re.I)) for s in data["subtypes"]),
        default_subtype=str(data["default_subtype"]),
        min_words=int(c["min_words"]),
        max_words=int(c["max_words"]),
        title_chars=int(c["title_max_chars"]),
    )


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def word_count(text: str) -> int:
    """How many words `text` holds, a run of Chinese or Japanese counted by its letters
    (`languages.word_count`): as one word, every such sentence was too short to be a claim."""
    return count_words(words(text))


def pushes_back(text: str) -> bool:
    """The user rejects what was said before ("no, that's wrong", "I don't think so", …)."""
    return text_rules().pushback.search(text) is not None


def _subject(sentence: str) -> str | None:
    """The plain noun phrase a sentence opens with ("Sourdough starter" of "Sourdough starter
    is…"), or None."""
    m = text_rules().subject.match(sentence)
    if m is None:
        return None
    subject = (m["subject"] or m["short"]).strip()
    n = word_count(subject)
    if not 1 <= n <= 6 or "," in subject or text_rules().resolvable.match(subject + " "):
        return None
    return subject


def standalone(text: str, previous: str | None = None) -> str | None:
    """`text` stated so that it stands alone, or None when it leans on what came before."""
    rules = text_rules()
    text = rules.citation.sub("", text)
    text = rules.references.sub(" ", text).strip()
    reaction = rules.reaction.match(text)
    if reaction is not None:
        if reaction["topic"]:
            return None
        text = text[reaction.end():].strip()
    text = re.sub(r"^[\s,;:.!\-，、；：。！]+", "", text)
    while (m := rules.lead.match(text)) is not None:
        text = text[m.end():]
    m = rules.resolvable.match(text)
    if m is not None:
        subject = _subject(previous) if previous else None
        if subject is None:
            return None
        text = subject + " " + text[m.end():]
    if not text or rules.dangling.match(text):
        return None
    return text[0].upper() + text[1:]


_CLOSING = "\"'”’」』）)]»"


def is_question(text: str) -> bool:
    """A sentence marked as a question in any script (`schema/extraction.json` `questions`):
    "…?", "…？", "¿…", closing quotes aside."""
    rules = text_rules()
    stripped = text.strip()
    return (stripped.rstrip(_CLOSING).endswith(rules.question_end)
            or stripped.lstrip("\"'“‘「『（([«").startswith(rules.question_start))


def hedged(text: str) -> bool:
    """The speaker says it is a guess ("Probably…", "Maybe…", "…, but I am guessing")."""
    return text_rules().hedges.search(text) is not None


def vague(text: str) -> bool:
    """Every word of `text` is a stopword or a word that names nothing in particular, all of one
    language's (`schema/extraction.json` `vague`): "There are many things to consider here."."""
    cues = get_cues()
    said = {stem(w, cues.suffixes) for w in map(str.casefold, words(text))
            if w not in cues.stopwords}
    return any(said <= generic for generic in text_rules().vague)


def not_a_claim(text: str) -> bool:
    """A question, a greeting, chatter, an aim, a guess, a sentence that names nothing in
    particular, a rejection ("No, eso es falso."), a report of who said what ("I never said
    that…", "You said…"), or not one idea's worth of words."""
    rules = text_rules()
    stripped = text.strip()
    n = word_count(stripped)
    if is_question(stripped) or not rules.min_words <= n <= rules.max_words:
        return True
    if get_cues().non_assertive.search(stripped) or hedged(stripped) or vague(stripped):
        return True
    if rules.reported.match(stripped):
        return True
    rest = rules.pushback.sub(" ", stripped)  # a rejection with nothing else in it
    if rest != stripped and word_count(rest) < rules.min_words:
        return True
    if any(p.search(stripped) for p in rules.not_claim):
        return True
    clauses = [c for c in _CLAUSE.split(stripped) if c.strip()]
    chatter = [any(p.search(c) for p in (*rules.requests, *rules.not_claim))
               for c in clauses]
    return any(chatter) and all(said or word_count(c) < rules.min_words
                                for c, said in zip(clauses, chatter, strict=True))


def subtype_of(text: str) -> str:
    rules = text_rules()
    return next((name for name, p in rules.subtypes if p.search(text)), rules.default_subtype)


def title_of(text: str) -> str:
    """The claim itself, without its final stop, cut at a word under the title length."""
    title = _END.sub("", text.strip())
    limit = text_rules().title_chars
    if len(title) <= limit:
        return title
    cut = title[:limit].rsplit(" ", 1)[0]
    return _END.sub("", cut) or title[:limit]


def sentences(content: str, line_start: int) -> Iterator[tuple[str, str | None]]:
    """Each sentence of a turn with the one before it (for resolving a leading pronoun). A
    question is a sentence of its own, though the splitter leaves it with what follows when
    that does not open with a letter ("**Why?** Because…", "¿Puedo usarla? ¿Y tú?")."""
    previous = None
    for claim in split_claims(content, line_start):
        for text in _questions_apart(claim.text):
            yield text, previous
            previous = text


def _questions_apart(sentence: str) -> list[str]:
    """`sentence` cut after each question mark that a capital or a digit follows, and before
    each opening question mark ("¿") after a sentence's end."""
    begin, parts = 0, []
    for m in text_rules().question_breaks.finditer(sentence):
        if m["next"] is not None and not (m["next"].isupper() or m["next"].isdigit()):
            continue
        parts.append(sentence[begin:m.start()])
        begin = m.end()
    return [*parts, sentence[begin:]]


def rule_candidates(source: Source) -> list[Candidate]:
    """Every sentence of every turn, stated to stand alone where it can be; a sentence that
    cannot is kept as written, for the gate to drop."""
    found = []
    for turn in source.turns:
        for text, previous in sentences(turn.content, turn.line_start):
            found.append(Candidate(standalone(text, previous) or text, turn))
    return found
