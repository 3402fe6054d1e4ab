"""Incoming-link text: a note is found by the words other notes' links to it are written in,
kept in step as those notes change, and never by a private note's words outside private mode."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from sidecar.index import anchors, bm25_engine
from sidecar.index import bm25 as bm25_module
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow
from sidecar.language import languages
from sidecar.models.embedder import Embedder

from .conftest import OpenIndex, note, write

GRAPH = "Circles are the notes and lines are the links between them, drawn as you zoom in."
MENTION = "See how your ideas connect as a network in the [[Tools/Graph view|graph]] of notes."


def _row(cid: str, path: str, text: str, *, archived: bool = False) -> SparseRow:
    return SparseRow(cid, path, archived, text, "", "")


def _store(tmp_path: Path) -> Bm25Store:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    return bm25


def _put(bm25: Bm25Store, *rows: SparseRow, private: bool = False) -> None:
    bm25.replace("ns", deletes={}, inserts={private: list(rows)})


def _ids(bm25: Bm25Store, query: str, *, private: bool = False) -> list[str]:
    return sorted(cid for cid, _ in bm25.search("ns", query, 5, private=private,
                                                include_archived=False))


def test_anchors_are_the_link_and_the_words_around_it_on_its_line() -> None:
    text = ("one two three four five six seven eight nine ten eleven twelve [[Graph view]] a b\n"
            "![[Graph view]] embedded, [[#Part]] here, [[Folder/Other.md#H|shown]] there")
    assert list(anchors.anchors(text)) == [
        ("graph view", "three four five six seven eight nine ten eleven twelve Graph view a b"),
        ("folder/other", "Graph view embedded, Part here, shown there")]
    assert anchors.keys("Tools/Graph view.md") == ("tools/graph view", "graph view")


def test_a_note_is_found_by_the_words_of_the_links_to_it(tmp_path: Path) -> None:
    # Before: only the linking note said "network"; the note it points at was never found.
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH), _row("g2", "Tools/Graph view.md", "Zoom."))
    _put(bm25, _row("m", "Intro.md", MENTION))
    assert _ids(bm25, "network") == ["g1", "g2", "m"]
    bm25.close()


def test_a_link_written_before_its_note_exists_counts_once_the_note_comes(
    tmp_path: Path,
) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("m", "Intro.md", "Your ideas as a network: [[graph view]]."))
    assert _ids(bm25, "network") == ["m"]
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))  # named by its file name
    _put(bm25, _row("o", "Other/Graph.md", GRAPH))
    assert _ids(bm25, "network") == ["g1", "m"]
    bm25.close()


def test_the_linked_note_follows_the_linking_note_as_it_changes(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))
    _put(bm25, _row("m", "Intro.md", MENTION))
    assert _ids(bm25, "network") == ["g1", "m"]
    _put(bm25, _row("m", "Intro.md", "The graph shows your notes as a network."))  # link gone
    assert _ids(bm25, "network") == ["m"]
    _put(bm25, _row("m", "Intro.md", MENTION))
    bm25.replace("ns", deletes={False: ["m"]}, inserts={})
    assert _ids(bm25, "network") == []
    _put(bm25, _row("m", "Intro.md", MENTION, archived=True))
    assert _ids(bm25, "network") == []
    bm25.close()


def test_a_private_notes_links_never_lend_their_words_to_a_public_note(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))
    _put(bm25, _row("m", "Intro.md", MENTION), private=True)
    assert _ids(bm25, "network") == []
    assert _ids(bm25, "network", private=True) == ["m"]
    # The linking note made public, then private again (deleted from one store, put in the
    # other, in one write).
    bm25.replace("ns", deletes={True: ["m"]}, inserts={False: [_row("m", "Intro.md", MENTION)]})
    assert _ids(bm25, "network") == ["g1", "m"]
    bm25.replace("ns", deletes={False: ["m"]}, inserts={True: [_row("m", "Intro.md", MENTION)]})
    assert _ids(bm25, "network") == []
    bm25.close()


def test_a_private_note_is_found_in_private_mode_by_a_public_notes_link(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH), private=True)
    _put(bm25, _row("m", "Intro.md", MENTION))
    assert _ids(bm25, "network") == ["m"]
    assert _ids(bm25, "network", private=True) == ["g1", "m"]
    bm25.close()


def test_a_rebuilt_engine_extracts_the_anchors_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))
    _put(bm25, _row("m", "Intro.md", MENTION))
    bm25.close()
    with sqlite3.connect(tmp_path / "bm25.sqlite") as conn:
        conn.execute(f'DELETE FROM "{anchors.table("ns__vault")}"')
    monkeypatch.setattr(bm25_module, "VERSION", bm25_engine.VERSION + "; next")
    bm25 = _store(tmp_path)
    assert _ids(bm25, "network") == ["g1", "m"]
    bm25.close()


def test_the_index_keeps_incoming_link_text_in_step_with_the_vault(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder,
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Tools/Graph view.md", note("resource", f"# Graph view\n\n{GRAPH}"))
    write(vault, "Intro.md", note("resource", f"# Intro\n\n{MENTION}", tags=["private"]))
    index = open_idx(vault)
    index.reconcile()

    def found(private: bool = False) -> set[str]:
        hits = index.bm25_search("network", 5, private=private)
        return {c.path for c in index.get_chunks([i for i, _ in hits], private=True).values()}

    assert found() == set()
    assert found(private=True) == {"Intro.md"}
    write(vault, "Intro.md", note("resource", f"# Intro\n\n{MENTION}"))  # made public
    assert index.reconcile()["embedded"] == 1  # in a public call (test_private_vector_reuse)
    assert found() == {"Intro.md", "Tools/Graph view.md"}
    index.close()


def test_a_note_takes_the_anchors_of_the_first_linking_notes_by_path(tmp_path: Path) -> None:
    most = languages.spec().anchor_most
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Graph view.md", GRAPH))
    words = [f"zz{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(most + 1)]
    for i, word in reversed(list(enumerate(words))):  # written last first: paths decide
        _put(bm25, _row(f"m{i}", f"Link {i:03}.md", f"[[Graph view]] {word}"))
    assert _ids(bm25, words[0]) == ["g1", "m0"]
    assert _ids(bm25, words[-1]) == [f"m{most}"]
    bm25.close()


def test_a_store_written_before_the_names_table_finds_its_linked_notes(tmp_path: Path) -> None:
    # The notes a changed link names are looked up in a table of their keys; a store from before
    # that table gets it filled on opening, or a link added later would reach no existing note.
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))
    bm25.close()
    with sqlite3.connect(tmp_path / "bm25.sqlite") as conn:
        conn.execute(f'DROP TABLE "{anchors.names_table(bm25_module.store_name("ns", False))}"')
    bm25 = _store(tmp_path)
    _put(bm25, _row("m", "Intro.md", MENTION))
    assert _ids(bm25, "network") == ["g1", "m"]
    bm25.close()


def test_a_deleted_note_is_no_longer_named_and_a_new_one_of_its_name_is(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))
    bm25.replace("ns", deletes={False: ["g1"]}, inserts={})
    conn = sqlite3.connect(tmp_path / "bm25.sqlite")
    table = anchors.names_table(bm25_module.store_name("ns", False))
    assert conn.execute(f'SELECT count(*) FROM "{table}"').fetchone() == (0,)
    _put(bm25, _row("g2", "Tools/Graph view.md", GRAPH))
    _put(bm25, _row("m", "Intro.md", MENTION))
    assert _ids(bm25, "network") == ["g2", "m"]
    conn.close()
    bm25.close()


def test_a_hub_is_not_indexed_again_for_a_linker_beyond_its_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A note much of the vault links to takes the anchors of its first linkers by path only; a
    # later linker's edit cannot change its document, so it is not indexed again (a journal
    # whose every day links one hub would otherwise re-index the hub at each save).
    capped = dataclasses.replace(languages.spec(), anchor_most=2)
    monkeypatch.setattr(languages, "spec", lambda: capped)
    relinked: list[list[str]] = []
    real_relink = Bm25Store._relink
    monkeypatch.setattr(Bm25Store, "_relink", lambda self, engine, name, public, paths: (
        relinked.append(list(paths)), real_relink(self, engine, name, public, paths))[1])
    bm25 = _store(tmp_path)
    _put(bm25, _row("h", "Hub.md", "The hub."))
    for name, words in (("A", "apple"), ("B", "banana"), ("C", "cherry")):
        _put(bm25, _row(name, f"{name}.md", f"{words} [[Hub]]"))
    assert _ids(bm25, "banana") == ["B", "h"] and _ids(bm25, "cherry") == ["C"]
    relinked.clear()
    _put(bm25, _row("C", "C.md", "cranberry [[Hub]]"))  # third by path: beyond the cap of 2
    assert relinked in ([], [[]]) and _ids(bm25, "cranberry") == ["C"]
    _put(bm25, _row("A", "A.md", "apricot [[Hub]]"))  # first by path: the hub's text changes
    assert ["Hub.md"] in relinked
    assert _ids(bm25, "apricot") == ["A", "h"] and _ids(bm25, "apple") == []
    bm25.close()


# ---- Markdown links and links by alias ------------------------------------------------------


def test_markdown_links_to_notes_give_anchors_and_web_links_and_images_none() -> None:
    text = ("Circles as a [network](../Tools/Graph%20view.md#Filters) of notes\n"
            "[web](https://example.com/Graph.md) ![drawn](<Graph view.md>) [part](#Filters)\n"
            "a [plan](Sub/Plan.md) here")
    assert list(anchors.anchors(text, "Daily/Today.md")) == [
        ("tools/graph view", "Circles as a network of notes"),
        ("daily/sub/plan", "a plan here"),  # relative to the linking note's folder first
        ("sub/plan", "a plan here"),  # then as written
    ]


@pytest.mark.parametrize("link", [
    "[graph](Graph%20view.md)",  # a bare name, URL-encoded: matched anywhere
    "[graph](<Tools/Graph view.md>)",  # vault-absolute
    "[graph](../Tools/Graph%20view.md#Filters)",  # relative to Daily/
    "[graph](Graph%20view)",  # no extension
])
def test_a_note_is_found_by_the_words_of_markdown_links_to_it(tmp_path: Path, link: str) -> None:
    # Before: a vault of Markdown links gave no incoming-link text at all.
    bm25 = _store(tmp_path)
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))
    _put(bm25, _row("m", "Daily/Intro.md", f"See your ideas as a network in the {link} view."))
    assert _ids(bm25, "network") == ["g1", "m"]
    bm25.close()


def _aliased(cid: str, path: str, text: str, *aliases: str) -> SparseRow:
    return dataclasses.replace(_row(cid, path, text), aliases=aliases)


def test_a_note_is_found_by_the_words_of_links_to_one_of_its_aliases(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("m", "Intro.md", "See your ideas as a network in the [[Link map]]."))
    _put(bm25, _aliased("g1", "Tools/Graph view.md", GRAPH, "Link map", "Net"))
    assert _ids(bm25, "network") == ["g1", "m"]  # the link came first, the note later
    _put(bm25, _row("n", "Notes.md", "Clusters of thought in the [Net](Net.md)."))
    assert _ids(bm25, "clusters") == ["g1", "n"]  # a Markdown link by alias, added later
    bm25.close()


def test_links_follow_a_notes_aliases_as_they_change(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _row("m", "Intro.md", "See your ideas as a network in the [[Link map]]."))
    _put(bm25, _row("n", "Notes.md", "Clusters of thought in the [[Web of notes]]."))
    _put(bm25, _aliased("g1", "Tools/Graph view.md", GRAPH, "Link map"))
    assert _ids(bm25, "network") == ["g1", "m"] and _ids(bm25, "clusters") == ["n"]
    _put(bm25, _aliased("g1", "Tools/Graph view.md", GRAPH, "Web of notes"))  # alias renamed
    assert _ids(bm25, "network") == ["m"] and _ids(bm25, "clusters") == ["g1", "n"]
    _put(bm25, _row("g1", "Tools/Graph view.md", GRAPH))  # no aliases left
    assert _ids(bm25, "network") == ["m"] and _ids(bm25, "clusters") == ["n"]
    bm25.close()


def test_a_note_follows_the_links_by_its_alias_as_the_linking_notes_change(
    tmp_path: Path,
) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _aliased("g1", "Tools/Graph view.md", GRAPH, "Link map"))
    _put(bm25, _row("m", "Intro.md", "See your ideas as a network in the [[Link map]]."))
    assert _ids(bm25, "network") == ["g1", "m"]
    _put(bm25, _row("m", "Intro.md", "See your ideas as a network in the [[Atlas]]."))
    assert _ids(bm25, "network") == ["m"]
    _put(bm25, _row("m", "Intro.md", "See your ideas as a web in the [map](Link%20map)."))
    assert _ids(bm25, "web") == ["g1", "m"] and _ids(bm25, "network") == []
    bm25.close()


def test_a_rebuilt_engine_keeps_the_anchors_of_links_by_alias(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    bm25 = _store(tmp_path)
    _put(bm25, _aliased("g1", "Tools/Graph view.md", GRAPH, "Link map"))
    _put(bm25, _row("m", "Intro.md", "See your ideas as a network in the [[Link map]]."))
    bm25.close()
    monkeypatch.setattr(bm25_module, "VERSION", bm25_engine.VERSION + "; next")
    bm25 = _store(tmp_path)  # the names table filled again from the store's rows
    assert _ids(bm25, "network") == ["g1", "m"]
    bm25.close()


def test_a_private_notes_aliases_name_nothing_and_lend_no_words(tmp_path: Path) -> None:
    # A private note's aliases are not keys: a public note's link by one of them does not make
    # the private note findable by the public note's words, even in private mode...
    bm25 = _store(tmp_path)
    _put(bm25, _aliased("p", "Diary/Health.md", "Appointments.", "Clinic"), private=True)
    _put(bm25, _row("m", "Intro.md", "Booked the orthopaedist at the [[Clinic]]."))
    assert _ids(bm25, "orthopaedist", private=True) == ["m"]
    # ...and a private note's link by a public note's alias lends that note none of its words.
    _put(bm25, _aliased("g1", "Tools/Graph view.md", GRAPH, "Link map"))
    _put(bm25, _row("q", "Diary/Secret.md", "My diagnosis is in the [[Link map]]."),
         private=True)
    assert _ids(bm25, "diagnosis") == []
    assert _ids(bm25, "diagnosis", private=True) == ["q"]
    conn = sqlite3.connect(tmp_path / "bm25.sqlite")
    table = anchors.names_table(bm25_module.store_name("ns", True))
    assert "clinic" not in {k for (k,) in conn.execute(f'SELECT key FROM "{table}"')}
    conn.close()
    bm25.close()


def test_the_index_reads_markdown_links_and_aliases_from_the_vaults_notes(
    tmp_path: Path, open_idx: OpenIndex,
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Tools/Graph view.md", note("resource", f"# Graph view\n\n{GRAPH}",
                                             aliases=["Link map"]))
    write(vault, "Daily/Intro.md", note(
        "resource", "# Intro\n\nYour ideas as a network in the [graph](../Tools/Graph%20view.md)."))
    write(vault, "Plans.md", note("resource", "# Plans\n\nClusters of thought: [[Link map]]."))
    index = open_idx(vault)
    index.reconcile()

    def found(query: str) -> set[str]:
        hits = index.bm25_search(query, 5, private=False)
        return {c.path for c in index.get_chunks([i for i, _ in hits], private=False).values()}

    assert found("network") == {"Daily/Intro.md", "Tools/Graph view.md"}
    assert found("clusters") == {"Plans.md", "Tools/Graph view.md"}
    write(vault, "Tools/Graph view.md", note("resource", f"# Graph view\n\n{GRAPH}",
                                             aliases=["Net of notes"]))
    index.reconcile()
    assert found("clusters") == {"Plans.md"}
    assert found("network") == {"Daily/Intro.md", "Tools/Graph view.md"}
    index.close()
