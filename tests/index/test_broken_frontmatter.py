"""A note whose frontmatter does not parse is indexed by its body, as private, until it parses.

Real vaults are full of such notes (`title: Foo: bar`, an unclosed `[`, a tab, a repeated key, a
`---` never closed). Obsidian still shows and searches their bodies, so Ora indexes the body (as
a note without frontmatter: inline tags, folder-rule type, date from the name or mtime), never
the frontmatter itself, and keeps the note private, since what it cannot read may say `private`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sidecar.index import Index
from sidecar.index.plan import BROKEN_FRONTMATTER
from sidecar.index.scope import NoteFilter
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search

from .conftest import KETTLE, OpenIndex, write

# Each frontmatter holds a word (`nebulon`) that must never be indexed; each body a word of its
# own, found in private mode only. The last is the first line of the body.
BROKEN: dict[str, tuple[str, str, int]] = {
    "Colon.md": ("---\ntitle: Nebulon: the sequel\n---\n", "Wombats dig burrows with claws.", 4),
    "Bracket.md": ("---\ntags: [nebulon, draft\ntype: engram\n---\n",
                   "Axolotls regrow lost limbs.", 5),
    "Tab.md": ("---\ntags:\n\t- nebulon\n---\n", "Pangolins roll into armoured balls.", 5),
    "Duplicate.md": ("---\ntags: [nebulon]\ntags: [other]\n---\n",
                     "Narwhals have a spiral tusk.", 5),
    "List.md": ("---\n- nebulon\n---\n", "Capybaras bathe in warm springs.", 4),
    # Never closed: the lines written as frontmatter are left out up to the heading.
    "Unclosed.md": ("---\ntitle: Nebulon\ntags: [private, nebulon]\n\n",
                    "# Tapirs\n\nTapirs snorkel with their trunks.", 5),
}
WORDS = {"Colon.md": "wombats", "Bracket.md": "axolotls", "Tab.md": "pangolins",
         "Duplicate.md": "narwhals", "List.md": "capybaras", "Unclosed.md": "tapirs"}


def _search(index: Index, embedder: Embedder, query: str, **options: Any) -> dict[str, Any]:
    return asyncio.run(search(index, embedder, None, query, SearchOptions(rerank=False, **options)))


def _paths(doc: dict[str, Any]) -> list[str]:
    return [r["path"] for r in doc["results"]]


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "Engrams/Kettle.md", KETTLE)
    for rel, (front, body, _) in BROKEN.items():
        write(root, rel, front + body + "\n")
    return root


def test_a_broken_frontmatter_note_is_indexed_by_its_body_in_private_mode_only(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(_vault(tmp_path))
    summary = index.reconcile()
    assert summary["files"] == len(BROKEN) + 1
    errors = {e["path"]: e["message"] for e in summary["errors"]}
    assert sorted(errors) == sorted(BROKEN)
    assert all(m.startswith(f"{BROKEN_FRONTMATTER}: line ") for m in errors.values()), errors
    rows = index.ledger.rows(index.namespace)
    for rel, word in WORDS.items():
        row = rows[rel]
        assert row.private and row.chunk_ids and row.type == "resource", rel  # vault's untyped
        assert _paths(_search(index, embedder, word, k=10)) == ["Engrams/Kettle.md"], rel
        hits = _search(index, embedder, word, k=3, private=True)["results"]
        assert hits[0]["path"] == rel and hits[0]["private"] is True, (rel, hits)
        assert hits[0]["line_start"] == BROKEN[rel][2], (rel, hits[0])
    # The frontmatter itself is never indexed, not even privately.
    for store_private in (False, True):
        assert index.bm25_search("nebulon", 10, private=store_private) == []
    everything = _search(index, embedder, "nebulon", k=50, private=True)["results"]
    assert everything and all("nebulon" not in r["text"].lower() for r in everything)
    # Public search is as before: the valid note only.
    assert _paths(_search(index, embedder, "vinegar limescale", k=10)) == ["Engrams/Kettle.md"]
    # A second reconcile finds the stores and the ledger agreeing (no orphans, nothing redone).
    again = index.reconcile()
    assert (again["embedded"], again["removed"], again["chunks"]) == (0, 0, summary["chunks"])


def test_fixing_the_frontmatter_makes_the_note_public_and_breaking_it_private_at_once(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "vault"
    body = "# Quokkas\n\nQuokkas smile because of their jaw shape.\n"
    broken = "---\nnexus: []\ntype: engram\ntags: [zoo\n---\n" + body
    fixed = "---\nnexus: []\ntype: engram\ntags: [zoo]\n---\n" + body
    note = write(root, "Engrams/Quokka.md", broken)
    index = open_idx(root)
    first = index.reconcile()
    assert first["embedded"] >= 1
    assert _paths(_search(index, embedder, "quokkas smile", k=5)) == []
    note.write_text(fixed, encoding="utf-8")
    done = index.apply_paths(["Engrams/Quokka.md"])
    # made public: embedded again, in a call of public texts only (a vector of the private
    # store may have been computed beside private ones: tests/index/test_private_vector_reuse.py)
    assert (done["embedded"], done["errors"]) == (1, [])
    public = _search(index, embedder, "quokkas smile", k=5)["results"]
    assert _paths({"results": public}) == ["Engrams/Quokka.md"] and not public[0]["private"]
    row = index.ledger.rows(index.namespace)["Engrams/Quokka.md"]
    assert (row.type, row.tags, row.private, row.error) == ("engram", ("zoo",), False, None)

    note.write_text(broken, encoding="utf-8")
    done = index.apply_paths(["Engrams/Quokka.md"])
    assert done["embedded"] == 0
    assert _paths(_search(index, embedder, "quokkas smile", k=5)) == []
    assert index.chroma.count(index.namespace, False) == index.bm25.count(index.namespace, False)
    assert index.bm25_search("quokkas", 5, private=False) == []
    private = _search(index, embedder, "quokkas smile", k=5, private=True)["results"]
    assert _paths({"results": private}) == ["Engrams/Quokka.md"] and private[0]["private"]


def test_a_broken_note_takes_its_type_from_the_folder_rules_and_its_date_and_tags_from_the_body(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "vault"
    write(root, "ora.yaml", "folders:\n  Journal/: chat\n")
    write(root, "Journal/2023-05-04 Standup.md",
          "---\ntype: chat\ndate created: 2020-01-01: oops\n---\n"
          "Standup about the okapi enclosure. #project/alpha\n")
    index = open_idx(root)
    index.reconcile()
    row = index.ledger.rows(index.namespace)["Journal/2023-05-04 Standup.md"]
    assert (row.type, row.tags, row.decay_date) == ("chat", ("project/alpha",),
                                                     "2023-05-04T00:00:00")
    only = NoteFilter.make(types=["chat"], tags=["project"], since="2023-05-01")
    hits = _search(index, embedder, "okapi enclosure", k=5, private=True, filters=only)
    assert _paths(hits) == ["Journal/2023-05-04 Standup.md"]
    assert _search(index, embedder, "okapi enclosure", k=5, filters=only)["results"] == []
