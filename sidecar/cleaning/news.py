"""The news supersession sweep: newer articles on the same story propose to supersede older ones.

Two `news` resources report the same story when their note vectors have cosine ≥ `news.similarity`
and they share a subject: the same `cluster` when both set one, else at least
`min_shared_title_words` content words in their titles. Stories are the connected groups of that
relation. Each article is proposed to supersede the newest older article of its story, ordered by
`published`, else `date created` (articles without a date, or with the same date, are not
ordered and get no proposal). Proposals wait in the queue as kind "news", batched per story; the
user approves one, or a whole batch — nothing is applied silently.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

import numpy as np

from sidecar.cleaning.candidates import note_vector, pool
from sidecar.cleaning.store import NoteState, Pair, Side, pair_id
from sidecar.cleaning.vocab import Thresholds, get_cues, stem

JUDGE = "news-sweep"
KIND = "news"
# Rows of the similarity matrix computed at once (not the whole notes × notes matrix).
_BLOCK = 256
# Proposals whose notes' whole states are read at once.
LOAD_WINDOW = 128
_WORD = re.compile(r"[a-z]+")


def _title_words(title: str) -> set[str]:
    cues = get_cues()
    return {stem(w, cues.suffixes) for w in _WORD.findall(title.lower())
            if w not in cues.stopwords and len(w) > 2}


def same_subject(x: NoteState, y: NoteState, limits: Thresholds) -> bool:
    if x.cluster and y.cluster:
        return x.cluster == y.cluster
    shared = _title_words(x.title) & _title_words(y.title)
    return len(shared) >= limits.news_min_shared_title_words


def _stories(notes: list[NoteState], limits: Thresholds) -> tuple[dict[str, set[str]],
                                                                  dict[str, str]]:
    """Same-story neighbours of each note, and each note's story root (its oldest path)."""
    edges: dict[str, set[str]] = {s.path: set() for s in notes}
    if len(notes) > 1:
        matrix = np.stack([note_vector(s) for s in notes])
        for block in range(0, len(notes), _BLOCK):
            sims = matrix[block : block + _BLOCK] @ matrix.T
            for row, i in enumerate(range(block, min(block + _BLOCK, len(notes)))):
                x = notes[i]
                for j in np.flatnonzero(sims[row, i + 1 :] >= limits.news_similarity) + i + 1:
                    y = notes[int(j)]
                    if same_subject(x, y, limits):
                        edges[x.path].add(y.path)
                        edges[y.path].add(x.path)
    root: dict[str, str] = {}
    for start in sorted(edges):
        if start in root:
            continue
        group, todo = {start}, [start]
        while todo:
            for nxt in edges[todo.pop()] - group:
                group.add(nxt)
                todo.append(nxt)
        for path in group:
            root[path] = min(group)
    return edges, root


def _side(state: NoteState) -> Side:
    text, start, end = state.claims[0] if state.claims else (state.title, 1, 1)
    return Side(state.path, start, end, text, state.hash)


Loader = Callable[[Iterable[str]], dict[str, NoteState]]


def propose(states: dict[str, NoteState], changed: set[str], limits: Thresholds,
            load: Loader | None = None) -> tuple[set[str], list[Pair]]:
    """(notes whose open proposals are replaced, the new proposals). `load` reads the whole
    states of the proposals' notes when `states` are light ones (their first claim is shown)."""
    notes = pool(states.values(), KIND)
    if changed.isdisjoint(s.path for s in notes):
        return set(), []  # only stories with a changed article are proposed again
    edges, root = _stories(notes, limits)
    affected = {p for p in edges if p in changed}
    affected |= {n for p in affected for n in edges[p]}
    by_path = {s.path: s for s in notes}
    found: list[tuple[NoteState, NoteState, str]] = []
    for path in sorted(affected):
        newer = by_path[path]
        if newer.date is None:
            continue
        older = [by_path[p] for p in edges[path]
                 if by_path[p].date is not None and str(by_path[p].date) < newer.date]
        if not older:
            continue
        found.append((max(older, key=lambda s: (str(s.date), s.path)), newer, path))
    proposals = []
    for at, (previous, newer, path) in enumerate(found):
        if at % LOAD_WINDOW == 0:
            window = found[at : at + LOAD_WINDOW]
            whole = load({s.path for x, y, _ in window for s in (x, y)}) if load else by_path
        a, b = _side(whole[previous.path]), _side(whole[newer.path])
        similarity = float(note_vector(previous) @ note_vector(newer))
        batch = "news-" + hashlib.sha256(root[path].encode()).hexdigest()[:12]
        proposals.append(Pair(
            id=pair_id(KIND, a, b), kind=KIND, a=a, b=b, judge=JUDGE,
            score=round(similarity, 4), batch=batch, private=previous.private or newer.private,
            evidence={"proposal": "b supersedes a", "similarity": round(similarity, 4),
                      "dates": [previous.date, newer.date],
                      "titles": [previous.title, newer.title]},
        ))
    return affected, proposals
