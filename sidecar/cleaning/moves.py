"""Notes renamed or moved since the last scan, and the triaged pairs that follow them.

A pair's id is made of its notes' paths and its claims (`store.pair_id`), so a note renamed in
Obsidian, or moved to another folder, gives the same two claims a new id. Left at that, the
next scan would queue them again as open, and a pair the user dismissed (or flagged, or
resolved) would come back. So the scan first pairs each note gone from its path with the one
new note that has its bytes (a rename, a folder move) or, failing that, its very claims (a
rename and a frontmatter edit between two scans), each only when that match is unique. Every
triaged pair with a side in a moved note takes the new path, the lines its claim has there
and the id that follows from them (`Queue.move_pairs`), its status kept. A claim whose words
changed matches nothing of the old pair, so it is judged afresh, as any changed claim is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Any

from sidecar.cleaning.store import NoteState, Pair, Queue, Side, pair_id
from sidecar.cleaning.survey import Survey

# The resolution fields that name a note of the pair (`resolve.py`).
_NOTE_FIELDS = ("newer", "older", "note")


def follow_moves(queue: Queue, seen: Survey) -> None:
    """Carry the triaged pairs, and the undo journal's files, of every note `seen` finds
    renamed or moved over to its new path. Runs before the scan saves its note states (the
    notes gone are still known to the queue, the new ones staged)."""
    moves = find_moves(queue, seen)
    if not moves:
        return
    # All at once: one transaction, one decisions append per note, one pass over the journal
    # (a folder of notes moved can carry thousands of pairs, inside the scan's save).
    queue.move_pairs([(pair, moved) for pair in queue.triaged(moves)
                      if (moved := moved_pair(pair, moves, seen.states)) is not None])
    queue.move_undo_files((old, state.path, state.hash) for old, state in sorted(moves.items()))


def find_moves(queue: Queue, seen: Survey) -> dict[str, NoteState]:
    """The new state of each note gone from its path that moved: old path -> new state."""
    if not seen.removed:
        return {}
    gone = queue.full_states(seen.removed, vectors=False)
    arrived = queue.full_states(seen.changed - queue.saved_paths(seen.changed), seen.scan,
                                vectors=False)
    moves = _unique(gone, arrived, lambda s: s.hash)
    left_gone = {p: s for p, s in gone.items() if p not in moves}
    taken = {s.path for s in moves.values()}
    left_arrived = {p: s for p, s in arrived.items() if p not in taken}
    moves.update(_unique(left_gone, left_arrived, _claim_texts))
    return moves


def _claim_texts(state: NoteState) -> tuple[str, ...] | None:
    """What a note claims, word for word, but its title, which a rename changes when it is the
    file's name (None for a note without other claims: nothing to match it by)."""
    return tuple(text for text, _, _ in state.claims if text != state.title) or None


def _unique(gone: dict[str, NoteState], arrived: dict[str, NoteState],
            key: Callable[[NoteState], Hashable | None]) -> dict[str, NoteState]:
    """Old path -> new state where exactly one gone and one arrived note share a key (two
    copies of one template are no rename of either)."""
    by_key: dict[Hashable, tuple[list[str], list[NoteState]]] = defaultdict(lambda: ([], []))
    for path, state in sorted(gone.items()):
        if (k := key(state)) is not None:
            by_key[k][0].append(path)
    for _, state in sorted(arrived.items()):
        if (k := key(state)) is not None:
            by_key[k][1].append(state)
    return {olds[0]: news[0] for olds, news in by_key.values()
            if len(olds) == 1 and len(news) == 1}


def moved_pair(pair: Pair, moves: dict[str, NoteState],
               states: dict[str, NoteState]) -> Pair | None:
    """`pair` with its moved sides at their new places, and the id that follows; private
    when a note of it is private now (its decision must not be recorded in the public note,
    nor the pair listed outside private mode).
    None when a moved note no longer makes its claim (a title that was the file's name): that
    decision was on words the vault no longer holds, and stays where it was."""
    a, b = _moved_side(pair.a, moves), _moved_side(pair.b, moves)
    if a is None or b is None:
        return None
    private = pair.private or any(
        states[s.path].private for s in (a, b) if s.path in states)
    paths = {old: state.path for old, state in moves.items()}
    return replace(pair, id=pair_id(pair.kind, a, b), a=a, b=b, private=private,
                   resolution=_moved_resolution(pair.resolution, paths))


def _moved_side(side: Side, moves: dict[str, NoteState]) -> Side | None:
    """The side at its note's new path, at the lines its claim has there (None: not there)."""
    state = moves.get(side.path)
    if state is None:
        return side
    lines = next(((start, end) for text, start, end in state.claims if text == side.text), None)
    if lines is None:
        return None
    return replace(side, path=state.path, line_start=lines[0], line_end=lines[1])


def _moved_resolution(resolution: dict[str, Any] | None,
                      paths: dict[str, str]) -> dict[str, Any] | None:
    """A resolution naming a moved note names it at its new path."""
    if not resolution:
        return resolution
    return {k: paths.get(v, v) if k in _NOTE_FIELDS and isinstance(v, str) else v
            for k, v in resolution.items()}
