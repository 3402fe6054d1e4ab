"""Property: a note that ora.yaml's `private` makes private leaves every answer outside private
mode as soon as the file says so, before the index has filed it as private (`private_now.py`).

The vault is indexed once with nothing private; then, example after example, ora.yaml is saved
(by rename, as editors do) with random `private` patterns and never indexed again. No search
(its relationships and one-hop expansion included), no answer (its citations and text), and no
related-notes list may then hold the path or the text of a note the new patterns cover, nor a
note ingested from a document they cover; a private-now note's related list is a 404, word for
word the one of a note that does not exist. What the patterns leave public is still found, as
many results as the search asked for (what is left out is left out before the top-k cut), and
what is left out leaves no gap in the ranks of what is shown (it is left out before fusion).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.answers import answer
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.errors import NotFound
from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.related import RelatedOptions, related
from sidecar.retrieval.relations import search_related
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import make_config
from tests.settled_save import settle

from ..documents.make_pdfs import one_page_pdf
from .conftest import NoteSpec, write_vault

WORDS = ["tomatoes", "watering", "summer", "ferritin", "sleep", "budget", "orbit", "harvest"]
GARDEN = "Open/Garden.md"  # no pattern covers Open/
NOTES = {
    GARDEN: "tomatoes watering summer harvest",
    "Open/Orbit.md": "orbit budget sleep",
    "Health/Bloodwork.md": "ferritin sleep tomatoes",
    "Big/b0.md": "tomatoes watering summer",
    "Big/b1.md": "watering summer harvest",
    "Big/b2.md": "budget orbit ferritin",
    "Notes/Top.md": "sleep budget watering",
    "Notes/Sub/Sub note.md": "summer harvest orbit",
    "Notes/Sub/Deep/Deep one.md": "ferritin watering budget",
    "Other/Deep/Deep two.md": "harvest sleep tomatoes",
}
DOCUMENT = "Papers/Report.pdf"
# Each pattern, and the notes it makes private (written out, not worked out by Ora's matcher).
PATTERNS: dict[str, set[str]] = {
    "Health/": {"Health/Bloodwork.md"},
    "health": {"Health/Bloodwork.md"},
    "BIG/": {"Big/b0.md", "Big/b1.md", "Big/b2.md"},
    "Bi*/": {"Big/b0.md", "Big/b1.md", "Big/b2.md"},
    "Notes/": {"Notes/Top.md", "Notes/Sub/Sub note.md", "Notes/Sub/Deep/Deep one.md"},
    "Notes/Sub/": {"Notes/Sub/Sub note.md", "Notes/Sub/Deep/Deep one.md"},
    "**/Deep/": {"Notes/Sub/Deep/Deep one.md", "Other/Deep/Deep two.md"},
    "Notes/Top.md": {"Notes/Top.md"},
    "Papers/": {DOCUMENT},  # and the page note ingested from it, wherever it lies
}


def secret(path: str) -> str:
    """A word only this note (or document) holds."""
    return "zqx" + "".join(c for c in path.casefold() if c.isalnum()) + "secret"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Index]:
    """The vault, indexed once while nothing is private, the document ingested into page
    notes (`page_notes`) before that."""
    root = tmp_path_factory.mktemp("private-now")
    vault = root / "vault"
    vault.mkdir()
    links = {"relationships": {"supports": ["[[Bloodwork]]", "[[Deep one]]", "[[b0]]"],
                               "extends": ["[[Top]]", "[[Deep two]]"]}}
    write_vault(vault, [NoteSpec(path, "resource", f"{words} {secret(path)}",
                                 extra=links if path == GARDEN else {})
                        for path, words in NOTES.items()])
    (vault / "Papers").mkdir()
    (vault / DOCUMENT).write_bytes(one_page_pdf(f"tomatoes budget {secret(DOCUMENT)}",
                                                title=f"Report {secret(DOCUMENT)}"))
    (vault / "ora.yaml").write_text("private: []\n", encoding="utf-8")
    apply_ingest(vault, plan_ingest(vault, DOCUMENT, data=None), data=None)
    config = make_config(vault, root / "data", llm_url="", cohere_api_key="",
                         reranker_dir=str(root / "none"))
    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
        yield index


def page_notes(vault: Path) -> set[str]:
    manifest = json.loads((vault / ".ora-journal" / "ingested.json").read_text("utf-8"))
    return set(manifest["documents"][DOCUMENT]["notes"])


def save_settings(vault: Path, patterns: list[str]) -> None:
    """ora.yaml with these `private` patterns, saved as an editor does: a new file renamed over
    the old one, and settled. The index is not told."""
    text = "private:\n" + "".join(f"  - {json.dumps(p)}\n" for p in patterns)
    temporary = vault / ".ora.yaml.tmp"
    temporary.write_text(text if patterns else "private: []\n", encoding="utf-8")
    os.replace(temporary, vault / "ora.yaml")
    # A save that drops a pattern the last one had is trusted only once settled (a save read
    # halfway drops it too)
    settle(vault / "ora.yaml")


def hidden_in(document: dict[str, Any], private: set[str]) -> list[str]:
    """The private notes' paths and secret words that `document` holds (but for the query it
    repeats, which may ask for one)."""
    dumped = json.dumps({key: value for key, value in document.items()
                         if key not in ("query", "question")}, ensure_ascii=False)
    return [w for path in private for w in (path, secret(path)) if w in dumped]


def paths_of(document: dict[str, Any]) -> set[str]:
    return {r["path"] for r in document["results"]}


async def responses(index: Index, embedder: Embedder, query: str,
                    k: int) -> tuple[dict[str, Any], ...]:
    options = SearchOptions(k=k, rerank=False)
    found = await search_related(index, embedder, None, query, options, expand=True)
    asked = await answer(index.config, index, embedder, None, query, options)
    near = await related(index, embedder, GARDEN, RelatedOptions(k=k))
    return found, asked, near


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns=st.lists(st.sampled_from(sorted(PATTERNS)), max_size=4, unique=True),
       query_words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
       ask_secret=st.sampled_from([None, *NOTES, DOCUMENT]),
       k=st.sampled_from([2, 5, 20]))
def test_no_non_private_response_holds_a_note_the_settings_made_private_since_it_was_indexed(
    indexed: Index, embedder: Embedder, patterns: list[str], query_words: list[str],
    ask_secret: str | None, k: int,
) -> None:
    vault = indexed.config.vault
    private = set().union(*(PATTERNS[p] for p in patterns))
    if DOCUMENT in private:
        private |= page_notes(vault)
    public = {*NOTES, *page_notes(vault)} - private
    save_settings(vault, patterns)
    query = " ".join(query_words + ([secret(ask_secret)] if ask_secret else []))

    found, asked, near = asyncio.run(responses(indexed, embedder, query, k))

    for document in (found, asked, near):
        assert hidden_in(document, private) == [], (patterns, query)
    # left out before the cut: as many results as asked for while public notes remain
    direct = [r for r in found["results"] if "expanded_from" not in r]
    assert len(direct) == min(k, len(public)), (patterns, paths_of(found))
    assert len(near["results"]) == min(k, len(public - {GARDEN}))
    if k == 20:  # every public chunk is shown: their ranks in each list leave no gap (ties
        # share the first of their places)
        for retriever in ("dense_rank", "bm25_rank"):
            ranks = sorted(r["why"][retriever] for r in direct if r["why"][retriever])
            assert all(rank in (place, ranks[place - 2] if place > 1 else 1)
                       for place, rank in enumerate(ranks, 1)), (patterns, retriever, ranks)
    for gone in sorted(private - {DOCUMENT})[:2]:
        with pytest.raises(NotFound) as err:
            asyncio.run(related(indexed, embedder, gone, RelatedOptions(k=k)))
        with pytest.raises(NotFound) as missing:
            asyncio.run(related(indexed, embedder, "Open/Nothing.md", RelatedOptions(k=k)))
        assert err.value.message.replace(gone, "X") == missing.value.message.replace(
            "Open/Nothing.md", "X")


def test_in_private_mode_a_note_made_private_since_it_was_indexed_is_still_found(
    indexed: Index, embedder: Embedder,
) -> None:
    save_settings(indexed.config.vault, ["BIG/"])
    options = SearchOptions(k=20, rerank=False, private=True)
    found = asyncio.run(search_related(indexed, embedder, None, "tomatoes watering", options))
    assert {"Big/b0.md", "Big/b1.md"} <= paths_of(found)
    near = asyncio.run(related(indexed, embedder, "Big/b0.md", RelatedOptions(private=True)))
    assert near["results"]

