"""Grounded, cited answers (ADR-0005 decision 5): retrieve → numbered context → generate.

Retrieval is the normal `search()` (hybrid, re-ranked, filtered; private chunks only in private
mode). With a language model (`llm_url`) the answer is generated from the numbered passages and
the conversation's memory; without one, or when the model fails, the answer is extractive — it
says why and quotes the passages — and `generator` is `none` with `generator_reason`. In a
conversation the question is appended to the conversation's chat note before the model is asked
(a crash mid-answer keeps it), then a generated answer with its cited sources; an extractive
answer is noted there but never remembered as the assistant's turn. A note that refuses a turn
(another program's save outlasting the retries) costs the asker nothing: the answer is returned
and the turn written at the next chance (`memory/notes.py`). The conversation's own note (by
its conversation id, under any path) is never one of its passages; nor is a passage of a note
the index no longer holds as it is on disk (gone, renamed or edited since `ora index`): it would
quote text the note no longer holds and cite a path that does not open. A chat note holds no
web result's text, only its title and URL (`web_sources.py`). An answer longer than
`answer_max_tokens` × `chars_per_token` characters (`schema/memory.json`) is cut, with a marker
saying so (`kept_reply`). A citation marker naming a passage or web result the model was not
given is taken out of the answer (`given_markers`) before it is returned or written to the chat
note, and out of a streamed answer's pieces as they are sent (`AnswerDeltas`); a reply left with
nothing else answers nothing, and the answer is extractive as when the model fails. A passage
below the relevance floor of the embedder (`answer_floor`) is neither sent to the model nor
cited: when none is left, the answer says nothing in the notes matches and the model is not
asked, unless the conversation has earlier turns (a follow-up, a thank-you) or the web tier
found results: then it is asked, told that no passage matches. When the asker of a streamed
answer hangs up while the answer is being generated, the model call is abandoned and the chat
note records a `no answer` line after the question saying it was cancelled; once generated, the
answer is written whether or not the asker is still there. Outside private mode the document
never names a private chat note (`conversation_note`: null).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np

from sidecar.answers.prompt import (
    SYSTEM_PROMPT,
    citation,
    extractive,
    flag_text,
    given_refs,
    mark_cited,
    numbered_context,
    referenced,
)
from sidecar.answers.web_sources import (
    given_web_refs,
    web_refs,
    web_source_line,
    without_web_text,
)
from sidecar.errors import LlmFailed, OraError
from sidecar.index.index import Index
from sidecar.index.records import ChunkRecord
from sidecar.memory.chat_note import source_line
from sidecar.memory.conversation import ConversationMemory
from sidecar.models.catalogue import calibration
from sidecar.models.chat import DeltaRefused, OnDelta, complete, generator_name
from sidecar.models.embedder import REMOTE, Embedder, FloatArray
from sidecar.models.files import EMBED_NAME
from sidecar.models.reranker import Reranker
from sidecar.retrieval.on_disk import OnDisk
from sidecar.retrieval.relations import search_related
from sidecar.retrieval.search import Chunk, RememberedQueries, SearchOptions
from sidecar.schema import load_json
from sidecar.settings import Config
from sidecar.web.searxng import web_tier

log = logging.getLogger("sidecar.answers")
NO_PASSAGES = "Nothing in your notes matches this question, so there is nothing to cite."
CANCELLED = ("the question was cancelled before its answer was complete (the asker disconnected, "
             "or the server stopped)")


# The end of a streamed text that may still become a marker: blanks (a removed marker takes the
# blank before it), then an open `[` with only what a passage's or a web result's marker holds.
_OPEN_TAIL = re.compile(r"\s*(?:\[(?:W\d*|[\d\s,;]*))?\Z")


def given_markers(text: str, passages: int, web: int) -> str:
    """`text` with only the markers of the passages 1..`passages` and web results 1..`web` the
    model was given (`prompt.given_refs`, `web_sources.given_web_refs`)."""
    return given_web_refs(given_refs(text, passages), web)


def kept_reply(reply: str, most: int, passages: int, web: int) -> str:
    """The reply as the asker gets it: its first `most` characters, markers the model was not
    given taken out, then, when it was longer, a line saying where Ora cut it; "" when nothing
    but such markers (and blanks) is left, which answers nothing. The line states only what Ora
    knows (the reply is read no further than the cut plus slack, `models.chat.reply_chars`), and
    is the same in the answer and its streamed pieces."""
    kept = given_markers(reply[:most], passages, web)
    if not kept.strip():
        return ""
    if len(reply) <= most:
        return kept
    return (kept.rstrip() + f"\n\n[Ora cut this answer at {most:,} characters: the model's "
            "reply was longer, more than answer_max_tokens allows.]")


class AnswerDeltas:
    """Hands on a streamed answer's pieces with `given_markers` applied: each piece sent is the
    next part of the cleaned text so far, less its open tail (trailing blanks, and an unclosed
    `[…` or `[W…` of marker characters, however long: released early, a marker closed later
    would take back text already sent), which waits for `finish`. Nothing past `most`
    characters is read, and leading blanks wait as the reply's are stripped (`complete`), so
    the pieces sent are the start of the final answer (`kept_reply`); `finish` sends the rest
    of it."""

    def __init__(self, passages: int, web: int, on_delta: Callable[[str], Awaitable[None]],
                 most: int) -> None:
        self.passages = passages
        self.web = web
        self.on_delta = on_delta
        self.most = most
        self.raw = ""
        self.sent = ""

    async def __call__(self, piece: str) -> None:
        self.raw += piece
        seen = self.raw.lstrip()[: self.most]
        tail = _OPEN_TAIL.search(seen)
        await self._send(given_markers(seen[: tail.start()] if tail is not None else seen,
                                       self.passages, self.web))

    async def finish(self, answer: str) -> None:
        """Send the rest of the final `answer`: the text is whole."""
        await self._send(answer)

    async def _send(self, cleaned: str) -> None:
        # A cleaned prefix only grows at its end (the open tail is held); were it ever to differ,
        # nothing more is sent: the final document holds the cleaned answer.
        if cleaned.startswith(self.sent) and len(cleaned) > len(self.sent):
            piece, self.sent = cleaned[len(self.sent):], cleaned
            await self.on_delta(piece)


def default_k() -> int:
    """Passages retrieved for an answer unless the caller asks for more or fewer."""
    return int(load_json("memory.json")["answers"]["k"])


@dataclass(frozen=True)
class AnswerLimits:
    """Passages retrieved and extractive quote size (`schema/memory.json` `answers`), reply
    length (the `answer_max_tokens` setting) and the most characters an answer keeps."""

    k: int
    max_tokens: int
    quote_chars: int
    max_chars: int

    @classmethod
    def load(cls, config: Config) -> AnswerLimits:
        a = load_json("memory.json")["answers"]
        tokens = int(config.answer_max_tokens)
        return cls(int(a["k"]), tokens, int(a["quote_chars"]), tokens * int(a["chars_per_token"]))


async def _generate(
    config: Config, question: str, citations: list[dict[str, Any]], history: list[dict[str, str]],
    max_tokens: int, web: list[dict[str, Any]], *, private: bool, on_delta: OnDelta | None = None,
) -> str:
    """The model's answer. A private-mode question (its passages, its conversation's turns, the
    question itself) goes only to a model trusted with private text: otherwise PrivateWithheld,
    and the answer is extractive, saying why (docs/privacy.md)."""
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, *history,
                {"role": "user", "content": numbered_context(citations, question, web)}]
    private = private or any(c["private"] for c in citations)
    return await complete(config, messages, private=private, max_tokens=max_tokens,
                          on_delta=on_delta)


# The relevance floor: search keeps its top k whatever they score (a ranked list always has a
# first result); an answer sends and cites only the passages whose similarity to the question,
# by the embedder's own vectors (those the index stores: `StoredVectors`), reaches the floor
# measured for that embedder (bench/bench_answer_floor.py). An embedder not measured (a
# server's, a pulled one) has none: one model's floor would misjudge another model's scale.
@cache
def answer_floor(model_id: str) -> float | None:
    """The least question-passage similarity an answer keeps for the embedder `model_id`, or
    None (no floor) for an embedder not measured: a server's (`remote:…`), whose scale is not
    known, or one whose calibration gives none."""
    if not model_id or model_id.startswith(f"{REMOTE}:"):
        return None
    tuned = calibration(model_id)
    if tuned is None and model_id.startswith(f"{EMBED_NAME}:"):
        tuned = load_json("ranking.json")["fusion"]
    floor = (tuned or {}).get("answer_floor")
    return None if floor is None else float(floor)


def passage_text(result: dict[str, Any]) -> str:
    """What is compared with the question when its chunk has no current stored vector: the note
    title, then the passage (as the re-ranker reads it: titles carry much of the topic)."""
    title, text = str(result.get("title") or ""), str(result["text"])
    return text if not title or text.lstrip().startswith(title) else f"{title}\n{text}"


class StoredVectors:
    """The passages' vectors as the index stores them, read instead of embedding each passage
    again (which would be nearly all of the floor's cost). Passed to the search as its `shown` hook,
    it notes the chunk behind each result (results do not name it); `vectors` then reads those
    chunks' stored vectors, each only when current (`Index.current_vectors`: of this embedder,
    of the text the chunk holds now) and of the very text the result shows (not changed since
    the search read it)."""

    def __init__(self, index: Index, options: SearchOptions) -> None:
        self.index = index
        self.private = options.private
        self.namespace = options.namespace
        self.shown: list[tuple[dict[str, Any], ChunkRecord]] = []

    def __call__(self, result: dict[str, Any], record: ChunkRecord) -> None:
        self.shown.append((result, record))

    def record(self, result: dict[str, Any]) -> ChunkRecord | None:
        """The record this very result was made from; None for one the search did not make."""
        return next((rec for made, rec in self.shown if made is result), None)

    def vectors(self, results: Sequence[dict[str, Any]],
                model: str) -> list[FloatArray | None]:
        """Each result's stored vector by `model`, or None where it has none current."""
        records = [self.record(r) for r in results]
        ids = [rec.id for rec in records if rec is not None]
        current = self.index.current_vectors(ids, model, private=self.private,
                                             namespace=self.namespace) if ids else {}
        out: list[FloatArray | None] = []
        for result, rec in zip(results, records, strict=True):
            held = current.get(rec.id) if rec is not None else None
            out.append(held[1] if held is not None and held[0] == result["text"] else None)
        return out


def similarities(embedder: Embedder, question: str, results: Sequence[dict[str, Any]],
                 query: FloatArray | None = None,
                 stored: Sequence[FloatArray | None] | None = None) -> list[float]:
    """The cosine similarity of `question` to each result's passage. `query` is the question's
    query vector when the caller has it (the search that found the results embedded it:
    `RememberedQueries`); else the question is embedded here. `stored` holds each passage's
    stored vector (`StoredVectors`) or None: only those without one are embedded here
    (`passage_text`)."""
    if not results:
        return []
    if query is None:
        query = embedder.embed_queries([question])[0]
    vectors = list(stored) if stored is not None else [None] * len(results)
    missing = [n for n, v in enumerate(vectors) if v is None]
    if missing:
        for n, v in zip(missing, embedder.embed([passage_text(results[n]) for n in missing]),
                        strict=True):
            vectors[n] = v
    passages = np.stack([np.asarray(v, dtype=np.float32) for v in vectors])
    norms = np.linalg.norm(passages, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    return [float(s) for s in (passages @ query) / np.maximum(norms, 1e-12)]


def above_floor(embedder: Embedder, question: str, results: list[dict[str, Any]],
                query: FloatArray | None = None,
                stored: StoredVectors | None = None) -> list[dict[str, Any]]:
    """`results` without those below the embedder's floor (all of them when it has none);
    `query`, the question's query vector if already embedded, and `stored`, where the
    passages' stored vectors are read (`similarities`)."""
    model = str(getattr(embedder, "model_id", ""))
    floor = answer_floor(model)
    if floor is None or not results:
        return results
    vectors = stored.vectors(results, model) if stored is not None else None
    scores = similarities(embedder, question, results, query, vectors)
    return [r for r, s in zip(results, scores, strict=True) if s >= floor]


def _left_out(index: Index, memory: ConversationMemory | None) -> Callable[[Chunk], bool]:
    """What an answer's search leaves out before its top-k cut (deeper passes fill the places):
    the conversation's own chat note, known by its conversation id whatever its path (a renamed
    note's old chunks too: the conversation already has its turns, and a long one's note would
    fill the top k), and passages of notes the index does not hold as they are on disk (gone,
    renamed or changed since they were indexed: `retrieval/on_disk.py`)."""
    conversation = memory.conversation if memory is not None else None
    own_note = memory.note_path if memory is not None else None
    on_disk = OnDisk(index.config, index.ledger, index.namespace)

    def left_out(chunk: Chunk) -> bool:
        if conversation is not None and (chunk.conversation == conversation
                                         or chunk.path == own_note):
            return True
        return not on_disk.holds(chunk.path)

    return left_out


async def answer(
    config: Config, index: Index, embedder: Embedder, reranker: Reranker | None,
    question: str, options: SearchOptions, *, reranker_reason: str = "",
    memory: ConversationMemory | None = None, limits: AnswerLimits | None = None,
    web: bool = False, on_delta: OnDelta | None = None,
) -> dict[str, Any]:
    """The `ora ask --json` document; `memory` (same private mode as `options`) is used and
    extended with this question and its answer. `on_delta` receives the generated answer's
    pieces as the model streams them (the returned document is still the whole truth: after a
    failure mid-stream it holds the extractive answer)."""
    limits = limits or AnswerLimits.load(config)
    if memory is not None and memory.private != options.private:
        raise ValueError("the conversation memory and the search must share private mode")
    if memory is not None:
        await asyncio.to_thread(memory.check_writable)
    # The search's query vector is the floor's too: the question is embedded once.
    queries = RememberedQueries(embedder)
    stored = StoredVectors(index, options)  # and the passages' vectors are read, not embedded
    found = await search_related(index, queries, reranker, question,
                                 replace(options, leave_out=_left_out(index, memory),
                                         shown=stored),
                                 reranker_reason=reranker_reason)
    # search() already filters; checked again so a non-private answer can never quote one.
    results = [r for r in found["results"] if options.private or not r["private"]][: options.k]
    # Search keeps its top k whatever they score; an answer only the passages that match.
    results = await asyncio.to_thread(above_floor, embedder, question, results,
                                      queries.vector(question), stored)
    citations = [citation(n, r) for n, r in enumerate(results, start=1)]
    history = await memory.context(question) if memory is not None else []
    earlier = memory is not None and await asyncio.to_thread(memory.has_earlier_turns, question)
    external = (await web_tier(config, embedder, question, int(config.web_results),
                               private=options.private) if web else {})
    web_results: list[dict[str, Any]] = external.get("web", [])
    if memory is not None:  # before the model is asked: a crash mid-answer keeps the question
        await asyncio.shield(_noted(memory.remember, "user", question))
    generator, reason, text = generator_name(config), "", NO_PASSAGES
    if not citations and (generator is None or not (earlier or web_results)):
        # In a conversation the model still answers: its turns may hold what is asked.
        generator, reason = None, "no passage in the vault matches the question"
    elif generator is None:
        reason = "no language model is configured (set llm_url)"
    else:
        # The pieces streamed carry only the markers the model was given, as the answer does.
        deltas = (AnswerDeltas(len(citations), len(web_results), on_delta, limits.max_chars)
                  if on_delta is not None else None)
        try:
            reply = await _generate(config, question, citations, history, limits.max_tokens,
                                    web_results, private=options.private, on_delta=deltas)
            # Only the markers the model was given reach the asker, the note and `cited`.
            kept = kept_reply(reply, limits.max_chars, len(citations), len(web_results))
            if not kept:  # nothing sent either: the pieces are the start of `kept`
                raise LlmFailed("the language model's reply held only citation markers of "
                                "sources it was not given")
            text = kept
            if deltas is not None:
                with contextlib.suppress(DeltaRefused):  # generated: kept whoever listens
                    await deltas.finish(text)
            mark_cited(citations, referenced(text, len(citations)))
        except LlmFailed as err:
            generator, reason = None, err.message
        except (DeltaRefused, asyncio.CancelledError):
            # DeltaRefused: the stream's client is gone; CancelledError: a server that cancels
            # the handler of a closed connection, or one stopping.
            if memory is not None:
                await asyncio.shield(_remember(memory, None, CANCELLED, citations, []))
            raise
    if generator is None and citations:
        text = extractive(citations, reason, limits.quote_chars)
        mark_cited(citations, {c["n"] for c in citations})
    if memory is not None:  # shielded: an asker leaving now must not orphan the question
        await asyncio.shield(_remember(memory, text if generator else None, reason, citations,
                                       web_results))
    document: dict[str, Any] = {"question": question, "answer": text,
                                "generator": generator or "none"}
    if reason:
        document["generator_reason"] = reason
    document.update(citations=citations, namespace=options.namespace, rerank=found["rerank"],
                    conversation=memory.conversation if memory is not None else None)
    if memory is not None:
        document["conversation_note"] = await asyncio.to_thread(memory.shown_note)
    document.update(external)
    return document


async def _noted(write: Callable[..., object], *args: Any, **kwargs: Any) -> None:
    """Run a chat-note write of a conversation's memory. One the note refuses (another program
    held it past the retries, or it cannot be written) costs the asker nothing: the turn is
    kept, to be written with the conversation's next one or at its next sync
    (`ChatNotes._append`), and the answer is returned all the same."""
    try:
        await asyncio.to_thread(write, *args, **kwargs)
    except OraError as err:
        log.warning("a turn is kept until its chat note can be written: %s", err.message)


async def _remember(memory: ConversationMemory, generated: str | None, reason: str,
                    citations: list[dict[str, Any]], web: list[dict[str, Any]]) -> None:
    """The generated answer with its cited sources (web results by title and URL, their text
    left out), after its question; an answer that was not generated is noted in the chat note
    but never becomes an assistant turn."""
    if generated is None:
        await _noted(memory.no_answer, reason)
        return
    noted, quoted = without_web_text(generated, web)
    cited = [c for c in citations if c["cited"]]
    sources = [source_line(c, flag_text(c["flags"], explained=False)) for c in cited]
    sources += [web_source_line(n, web[n - 1])
                for n in sorted(web_refs(generated, len(web)) | quoted)]
    topic = cited[0]["title"] if cited else None
    await _noted(memory.remember, "assistant", noted, sources=sources, topic=topic)
