"""The library entry of extraction: find the source, plan, accept, undo (docs/extraction.md).

`load_source` reads a chat note, named by its conversation id (looked up among the notes of the
chats folder) or by its path, or, by its path, a document's resource note (`type: resource` with
`source_file`, as `ora ingest` writes one), each of its prose paragraphs a turn of role
`document`. A private source (its note tagged private, or in a folder ora.yaml makes private)
is found only in private mode: otherwise the answer is NotFound, word for word the one a note
that does not exist gets. Outside private mode, the private turns of a public chat note are
left out. The proposals' nexus is the note's, else its `cluster` when that names a matrix note.

`plan_extraction` runs the LLM extractor when a model is configured and the rule extractor
otherwise, or when the model's answer cannot be used (reported as `fallback`), then the gate.
A plan shown for review and accepted later is not extracted again (a model asked twice may word
a claim otherwise, or fail, and what is written would not be what was reviewed): `Reviews`
(`reviews.py`) holds the latest plan of each source, and `regated` puts its candidates through
the gate again on the note as it is by then. `chosen` picks the proposals an accept names and
`edited` applies the user's own wording to them; `accept` and `undo_extraction` are in
`accept.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from sidecar.cleaning.claims import paragraphs
from sidecar.documents.ingest import is_source_line, source_line
from sidecar.errors import BadRequest, Conflict, NotFound, OraError
from sidecar.extraction.gate import EngramLookup, gate
from sidecar.extraction.llm import ExtractionRefused, llm_candidates
from sidecar.extraction.proposals import (
    Candidate,
    Plan,
    Proposal,
    Source,
    Turn,
    extraction_data,
)
from sidecar.extraction.rules import rule_candidates, title_of
from sidecar.memory.chat_note import ChatNote, parse_chat
from sidecar.memory.store import ROLES
from sidecar.models.chat import generator_name
from sidecar.settings import Config
from sidecar.vault.links import NameIndex
from sidecar.vault.note import Note, decode_note, parse_note, string_list
from sidecar.vault.scan import iter_note_paths, normalise_rel, vault_path
from sidecar.vault.vault_settings import VaultSettings, load_vault_settings, note_private
from sidecar.vault.write import content_hash

DOCUMENT = "document"  # a resource note's paragraphs: the role of its turns, the source's kind


def _read(config: Config, rel: str,
          settings: VaultSettings) -> tuple[str, Note, ChatNote | None] | None:
    try:
        data = vault_path(config.vault, rel).read_bytes()
        note = parse_note(decode_note(data, rel, int(config.max_file_bytes)), rel)
    except (OSError, ValueError, OraError):  # ValueError: a NUL in the path
        return None
    return content_hash(data), note, parse_chat(note, settings)


def _find(config: Config, conversation: str, settings: VaultSettings,
          private: bool) -> tuple[str, str, Note, ChatNote] | None:
    folder = settings.chats_folder.strip("/")
    root = vault_path(config.vault, folder) if folder else config.vault
    found = []
    for rel in iter_note_paths(root) if root.is_dir() else []:
        rel = f"{folder}/{rel}" if folder else rel
        read = _read(config, rel, settings)
        if read is not None and read[2] is not None and read[2].conversation == conversation:
            found.append((rel, read[0], read[1], read[2]))
    if not private:  # a private conversation's public twin shares its id (memory/notes.py)
        found = [f for f in found if not f[3].private]
    # a conversation of this namespace first, then any (notes sorted: the first copy counts);
    # in private mode the private conversation before its public twin, outside it the twin
    found.sort(key=lambda f: (f[3].namespace != str(config.namespace),
                              f[3].holds_private != private))
    return found[0] if found else None


def _nexus(config: Config, note: Note, settings: VaultSettings) -> list[str]:
    """The conversation's nexus: the chat note's own, else its cluster when that names a matrix
    note (a project or passion the conversation was about), and one a public note may name: a
    private matrix's name in a public engram would tell that it exists."""
    if note.nexus or not note.cluster:
        return list(note.nexus)
    rel = NameIndex(iter_note_paths(config.vault)).resolve(note.cluster)
    read = _read(config, rel, settings) if rel is not None else None
    if read is None or read[1].type != "matrix" or (
            note_private(read[1], settings) and not note_private(note, settings)):
        return []
    return [f"[[{PurePosixPath(str(rel)).stem}]]"]


def _document_turns(note: Note, private: bool) -> list[Turn] | None:
    """A document's resource note as turns, one per prose paragraph (but the line linking the
    page it was made from); None for any other note."""
    if note.type != "resource" or "source_file" not in note.frontmatter:
        return None
    pointers = {source_line(link) for link in string_list(note.frontmatter.get("source_document"))}
    rel = str(note.frontmatter.get("source_path") or "")
    found = [(first, last, text) for first, last, text in paragraphs(note.body, note.body_line)
             if text.strip() not in pointers and not is_source_line(text, rel)]
    return [Turn(n, DOCUMENT, text, private, first, last)
            for n, (first, last, text) in enumerate(found, 1)]


def load_source(config: Config, *, conversation: str | None = None,
                note: str | None = None, private: bool = False) -> Source:
    """The chat note or resource note to extract (see the module docstring)."""
    if (conversation is None) == (note is None):
        raise BadRequest("name the conversation by its id, or a note by its path")
    settings = load_vault_settings(config.vault, config.data)
    if note is not None:
        rel = normalise_rel(note)
        missing = NotFound(f"no note {rel!r}: give the path of a chat note or of a document's "
                           "resource note inside the vault")
        read = _read(config, rel, settings)
        if read is None or (note_private(read[1], settings) and not private):
            raise missing
        note_hash, parsed, chat = read
        if chat is None:
            turns = _document_turns(parsed, note_private(parsed, settings))
            if turns is None:
                raise BadRequest(
                    f"{rel} cannot be extracted: engrams are extracted from Ora's chat notes "
                    "(type: chat, with a conversation id) and from a document's resource notes "
                    "(type: resource, with source_file, as `ora ingest` writes them)")
            return _source(config, rel, rel, note_hash, parsed, turns, DOCUMENT, settings)
    else:
        assert conversation is not None
        folder = settings.chats_folder.strip("/") or "the vault"
        missing = NotFound(f"no conversation {conversation!r} among the chat notes of "
                           f"{folder}: name its chat note by its path instead")
        hit = _find(config, conversation, settings, private)
        if hit is None or (hit[3].private and not private):
            raise missing
        rel, note_hash, parsed, chat = hit
    turns = [Turn.of(n, t) for n, t in enumerate(chat.turns, 1)
             if t.role in ROLES and (private or not t.private)]
    return _source(config, chat.conversation, rel, note_hash, parsed, turns, "conversation",
                   settings)


def _source(config: Config, id_: str, rel: str, note_hash: str, note: Note, turns: list[Turn],
            kind: str, settings: VaultSettings) -> Source:
    key = str(extraction_data()["engram"]["extracted_property"])
    return Source(id_, rel, note_hash, turns, _nexus(config, note, settings),
                  note_private(note, settings),
                  frozenset(string_list(note.frontmatter.get(key))), kind)


async def plan_extraction(config: Config, source: Source, engrams: EngramLookup) -> Plan:
    """Proposals and drops for `source` (see the module docstring)."""
    model, fallback = generator_name(config), None
    candidates: list[Candidate] | None = None
    if model is not None:
        try:
            candidates = await llm_candidates(config, source)
        except ExtractionRefused as err:
            fallback = str(err)
    extractor = model if candidates is not None and model is not None else "rules"
    if candidates is None:
        candidates = rule_candidates(source)
    proposals, dropped = await asyncio.to_thread(gate, source, candidates, engrams)
    return Plan(source, extractor, proposals, dropped, fallback, candidates)


def _unchanged(now: Turn | None, then: Turn) -> bool:
    return now is not None and (now.role, now.content, now.private) == (
        then.role, then.content, then.private)


async def regated(held: Plan, source: Source, engrams: EngramLookup) -> Plan:
    """`held` (a plan shown for review) on `source`, the same note read again, with no
    extractor run: the candidates it was made of whose turn is still as it was (the same place,
    role, words and privacy; a kept proposal's record in the note moves the turns' lines, not
    their words) through the gate again, so a proposal kept since, a turn changed since, a new
    engram it repeats or a later turn pushing back on it leaves it out."""
    now = {t.n: t for t in source.turns}
    candidates = [replace(c, turn=now[c.turn.n]) for c in held.candidates
                  if _unchanged(now.get(c.turn.n), c.turn)]
    proposals, dropped = await asyncio.to_thread(gate, source, candidates, engrams)
    return Plan(source, held.extractor, proposals, dropped, held.fallback, candidates)


def chosen(plan: Plan, ids: str | Sequence[str]) -> list[Proposal]:
    """The proposals `ids` names ("all", or ids); Conflict naming one the plan does not hold."""
    if ids == "all":
        return list(plan.proposals)
    by_id = {p.id: p for p in plan.proposals}
    wanted = [ids] if isinstance(ids, str) else list(ids)
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise Conflict(f"{', '.join(unknown)}: not among the proposals of "
                       f"{PurePosixPath(plan.source.path).name} now (extracted already, "
                       "or the note changed); extract again to see them")
    return [by_id[i] for i in dict.fromkeys(wanted)]


def edited(proposals: list[Proposal], edits: Mapping[str, Mapping[str, str]]) -> list[Proposal]:
    """`proposals` with the user's own wording where the review gave one (`{ID: {"title"?,
    "text"?}}`, the review view's "edit"); an edited text without a title takes its own. The id
    stays the claim's, so the conversation still counts it as extracted. BadRequest for an edit
    of a proposal not kept, or an empty text or title."""
    unknown = sorted(set(edits) - {p.id for p in proposals})
    if unknown:
        raise BadRequest(f"edits of {', '.join(unknown)}, which are not among those kept")
    out = []
    for p in proposals:
        change = edits.get(p.id, {})
        text = " ".join(change.get("text", p.text).split())
        title = " ".join(change.get("title", p.title if "text" not in change
                                    else title_of(text)).split())
        if not text or not title:
            raise BadRequest(f"{p.id}: an edited text and title cannot be empty")
        # the user's own wording of a model's rewording of their claim is theirs again
        out.append(replace(p, text=text, title=title,
                           reworded=p.reworded and "text" not in change))
    return out
