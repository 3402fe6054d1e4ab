"""The library entry of extraction: find the conversation, plan, accept, undo (docs/extraction.md).

`load_conversation` reads a chat note, named by its conversation id (looked up among the notes
of the chats folder) or by its path. A private conversation (its note tagged private) is found
only in private mode: otherwise the answer is NotFound, word for word the one a conversation
that does not exist gets. Outside private mode, the private turns of a public note are left out.
The proposals' nexus is the chat note's, else its `cluster` when that names a matrix note.

`plan_extraction` runs the LLM extractor when a model is configured and the rule extractor
otherwise, or when the model's answer cannot be used (reported as `fallback`), then the gate.
`chosen` picks the proposals an accept names and `edited` applies the user's own wording to them;
`accept` and `undo_extraction` are in `accept.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from sidecar.errors import BadRequest, Conflict, NotFound, OraError
from sidecar.extraction.gate import EngramLookup, gate
from sidecar.extraction.llm import ExtractionRefused, llm_candidates
from sidecar.extraction.proposals import (
    Candidate,
    Conversation,
    Plan,
    Proposal,
    Turn,
    extraction_data,
)
from sidecar.extraction.rules import rule_candidates, title_of
from sidecar.memory.chat_note import ChatNote, parse_chat
from sidecar.models.chat import generator_name
from sidecar.settings import Config
from sidecar.vault.links import NameIndex
from sidecar.vault.note import Note, decode_note, parse_note, string_list
from sidecar.vault.scan import iter_note_paths, normalise_rel, vault_path
from sidecar.vault.vault_settings import load_vault_settings
from sidecar.vault.write import content_hash

ROLES = ("user", "assistant")


def _read(config: Config, rel: str) -> tuple[str, Note, ChatNote | None] | None:
    try:
        data = vault_path(config.vault, rel).read_bytes()
        note = parse_note(decode_note(data, rel, int(config.max_file_bytes)), rel)
    except (OSError, ValueError, OraError):  # ValueError: a NUL in the path
        return None
    return content_hash(data), note, parse_chat(note)


def _find(config: Config, conversation: str) -> tuple[str, str, Note, ChatNote] | None:
    folder = load_vault_settings(config.vault).chats_folder.strip("/")
    root = vault_path(config.vault, folder) if folder else config.vault
    found = []
    for rel in iter_note_paths(root) if root.is_dir() else []:
        rel = f"{folder}/{rel}" if folder else rel
        read = _read(config, rel)
        if read is not None and read[2] is not None and read[2].conversation == conversation:
            found.append((rel, read[0], read[1], read[2]))
    # a conversation of this namespace first, then any (notes sorted: the first copy counts)
    found.sort(key=lambda f: f[3].namespace != str(config.namespace))
    return found[0] if found else None


def _nexus(config: Config, note: Note) -> list[str]:
    """The conversation's nexus: the chat note's own, else its cluster when that names a matrix
    note (a project or passion the conversation was about)."""
    if note.nexus or not note.cluster:
        return list(note.nexus)
    rel = NameIndex(iter_note_paths(config.vault)).resolve(note.cluster)
    read = _read(config, rel) if rel is not None else None
    if read is None or read[1].type != "matrix":
        return []
    return [f"[[{PurePosixPath(str(rel)).stem}]]"]


def load_conversation(config: Config, *, conversation: str | None = None,
                      note: str | None = None, private: bool = False) -> Conversation:
    """The conversation to extract (see the module docstring)."""
    if (conversation is None) == (note is None):
        raise BadRequest("name the conversation by its id or by its chat note's path")
    if note is not None:
        rel = normalise_rel(note)
        missing = NotFound(f"no note {rel!r}: give the path of a chat note inside the vault")
        read = _read(config, rel)
        if read is None or (read[1].is_private and not private):
            raise missing
        note_hash, parsed, chat = read
        if chat is None:
            raise BadRequest(f"{rel} is not one of Ora's chat notes (type: chat, with a "
                             "conversation id)")
    else:
        assert conversation is not None
        folder = load_vault_settings(config.vault).chats_folder.strip("/") or "the vault"
        missing = NotFound(f"no conversation {conversation!r} among the chat notes of "
                           f"{folder}: name its chat note by its path instead")
        hit = _find(config, conversation)
        if hit is None or (hit[2].is_private and not private):
            raise missing
        rel, note_hash, parsed, chat = hit
    turns = [Turn.of(n, t) for n, t in enumerate(chat.turns, 1)
             if t.role in ROLES and (private or not t.private)]
    key = str(extraction_data()["engram"]["extracted_property"])
    return Conversation(chat.conversation, rel, note_hash, turns, _nexus(config, parsed),
                        parsed.is_private, frozenset(string_list(parsed.frontmatter.get(key))))


async def plan_extraction(config: Config, conversation: Conversation,
                          engrams: EngramLookup) -> Plan:
    """Proposals and drops for `conversation` (see the module docstring)."""
    model, fallback = generator_name(config), None
    candidates: list[Candidate] | None = None
    if model is not None:
        try:
            candidates = await llm_candidates(config, conversation)
        except ExtractionRefused as err:
            fallback = str(err)
    extractor = model if candidates is not None and model is not None else "rules"
    if candidates is None:
        candidates = rule_candidates(conversation)
    proposals, dropped = await asyncio.to_thread(gate, conversation, candidates, engrams)
    return Plan(conversation, extractor, proposals, dropped, fallback)


def chosen(plan: Plan, ids: str | Sequence[str]) -> list[Proposal]:
    """The proposals `ids` names ("all", or ids); Conflict naming one the plan does not hold."""
    if ids == "all":
        return list(plan.proposals)
    by_id = {p.id: p for p in plan.proposals}
    wanted = [ids] if isinstance(ids, str) else list(ids)
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise Conflict(f"{', '.join(unknown)}: not among the proposals of "
                       f"{PurePosixPath(plan.conversation.path).name} now (extracted already, "
                       "or the conversation changed); extract again to see them")
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
        out.append(replace(p, text=text, title=title))
    return out
