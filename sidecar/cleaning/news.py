"""The news supersession sweep: newer articles on the same story propose to supersede older ones.

Two `news` resources report the same story when their note vectors have cosine ≥ `news.similarity`
and they share a subject: the same `cluster` when both set one, else at least
`min_shared_title_words` content words in their titles. Stories are the connected groups of that
relation. Each article is proposed to supersede the newest older article of its story, ordered by
`published`, else `date created` (articles without a date, or with the same date, are not
ordered and get no proposal). Proposals wait in the queue as kind "news", batched per story; the
user approves one, or a whole batch — nothing is applied silently.

A private article changes no answer outside private mode: public stories (their proposals,
their batch ids, which come from a story's lowest path) are computed over the public articles
alone, and private mode's stories over every article, from which only proposals naming a
private article are kept (`propose`); a story's batch id comes from its lowest public path.
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


def _edges(notes: list[NoteState], limits: Thresholds) -> dict[str, set[str]]:
    """Same-story neighbours of each note (a relation of two notes alone, whoever else is
    in the pool)."""
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
    return edges


def _roots(edges: dict[str, set[str]], by_path: dict[str, NoteState]) -> dict[str, str]:
    """Each note's story root: the lowest public path of its connected group (the lowest path
    of an all-private one), so a story with a public article has one batch in private mode,
    named as outside it."""
    root: dict[str, str] = {}
    for start in sorted(edges):
        if start in root:
            continue
        group, todo = {start}, [start]
        while todo:
            for nxt in edges[todo.pop()] - group:
                group.add(nxt)
                todo.append(nxt)
        first = min(group, key=lambda p: (by_path[p].private, p))
        for path in group:
            root[path] = first
    return root


def _public_view(edges: dict[str, set[str]], by_path: dict[str, NoteState]
                 ) -> dict[str, set[str]]:
    """The story graph of the public notes alone: what it would be with no private note."""
    public = {p for p in edges if not by_path[p].private}
    return {p: edges[p] & public for p in public}


def _side(state: NoteState) -> Side:
    text, start, end = state.claims[0] if state.claims else (state.title, 1, 1)
    return Side(state.path, start, end, text, state.hash)


Loader = Callable[[Iterable[str]], dict[str, NoteState]]


Found = tuple[NoteState, NoteState, str]  # (older article, newer article, its story's root)


def _newest_older(paths: Iterable[str], edges: dict[str, set[str]],
                  by_path: dict[str, NoteState], root: dict[str, str]) -> list[Found]:
    """For each of `paths`, the newest older article of its story in the graph `edges`."""
    found: list[Found] = []
    for path in sorted(paths):
        newer = by_path[path]
        if newer.date is None:
            continue
        older = [by_path[p] for p in edges[path]
                 if by_path[p].date is not None and str(by_path[p].date) < newer.date]
        if not older:
            continue
        found.append((max(older, key=lambda s: (str(s.date), s.path)), newer, root[path]))
    return found


def _around(paths: set[str], edges: dict[str, set[str]]) -> set[str]:
    return paths | {n for p in paths for n in edges[p]}


def _private_found(edges: dict[str, set[str]], by_path: dict[str, NoteState],
                   changed: set[str]) -> tuple[set[str], list[Found]]:
    """Private mode's proposals near the changed articles, over every article: those naming a
    private one (the others are the public view's). The private articles whose open pairs they
    replace are returned with them; no public article's pairs are replaced here, so a private
    change leaves the public answers as they were."""
    near = _around({p for p in edges if p in changed}, edges)
    # a stale proposal names a private article next to `near` (proposals join neighbours)
    replaced = {p for p in _around(near, edges) if by_path[p].private}
    if not replaced:
        return set(), []
    found = _newest_older(_around(replaced, edges), edges, by_path, _roots(edges, by_path))
    return replaced, [f for f in found if f[0].private or f[1].private]


def propose(states: dict[str, NoteState], changed: set[str], limits: Thresholds,
            load: Loader | None = None) -> tuple[set[str], list[Pair]]:
    """(notes whose open proposals are replaced, the new proposals). `load` reads the whole
    states of the proposals' notes when `states` are light ones (their first claim is shown).

    Public stories, their proposals and batch ids come from the public articles alone: what
    they would be if no private article existed. Stories over every article give private
    mode's proposals, only those naming a private article (listed only in private mode; their
    batch is their story's public one, or named after a private path when the story has no
    public article)."""
    notes = pool(states.values(), KIND)
    if changed.isdisjoint(s.path for s in notes):
        return set(), []  # only stories with a changed article are proposed again
    by_path = {s.path: s for s in notes}
    edges = _edges(notes, limits)
    public = _public_view(edges, by_path)
    affected = _around({p for p in public if p in changed}, public)
    found = _newest_older(affected, public, by_path, _roots(public, by_path))
    replaced, private = _private_found(edges, by_path, changed)
    affected |= replaced
    found += private
    proposals = []
    for at, (previous, newer, root) in enumerate(found):
        if at % LOAD_WINDOW == 0:
            window = found[at : at + LOAD_WINDOW]
            whole = load({s.path for x, y, _ in window for s in (x, y)}) if load else by_path
        a, b = _side(whole[previous.path]), _side(whole[newer.path])
        similarity = float(note_vector(previous) @ note_vector(newer))
        batch = "news-" + hashlib.sha256(root.encode()).hexdigest()[:12]
        proposals.append(Pair(
            id=pair_id(KIND, a, b), kind=KIND, a=a, b=b, judge=JUDGE,
            score=round(similarity, 4), batch=batch, private=previous.private or newer.private,
            evidence={"proposal": "b supersedes a", "similarity": round(similarity, 4),
                      "dates": [previous.date, newer.date],
                      "titles": [previous.title, newer.title]},
        ))
    return affected, proposals
