"""An ordinary Obsidian vault, indexed for real: every note is searchable whatever its
frontmatter, with its effective type; Obsidian's tags steer privacy and the filters; aliases and
descriptions are searchable; exclusions are honoured; a cold index takes recent notes first."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

import sidecar.index.sync as sync_module
from sidecar.index import Index, embed_pass, open_index
from sidecar.index.indexing import IndexingProgress
from sidecar.index.scope import NoteFilter
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search
from sidecar.settings import make_config

from .conftest import OpenIndex, write

PLAIN: dict[str, str] = {
    "Daily/2024-05-01.md": "Planted tomatoes and basil in the raised bed today. #garden\n",
    "Engrams/Loose idea.md": "Compost heats up when nitrogen and carbon are balanced.\n",
    "Books/Deep Work.md": (
        "---\naliases: [Monastic focus book]\ndescription: Why undistracted concentration "
        "produces valuable output\ncssclasses: wide\n---\n# Deep Work\n\n"
        "Schedule long blocks of time for demanding tasks.\n"
    ),
    "Meetings/Kickoff.md": "---\ntype: meeting\ntags: work\n---\nWe agreed on the roadmap.\n",
    "Typed.md": "---\nnexus: []\ntype: engram\ntags: []\n---\nA curated engram about bees.\n",
}


def _vault(tmp_path: Path, notes: dict[str, str] = PLAIN) -> Path:
    root = tmp_path / "vault"
    for rel, text in notes.items():
        write(root, rel, text)
    return root


def _search(index: Index, embedder: Embedder, query: str, **options: Any) -> dict[str, Any]:
    opts = SearchOptions(rerank=False, **options)
    return asyncio.run(search(index, embedder, None, query, opts))


def _paths(doc: dict[str, Any]) -> list[str]:
    return [r["path"] for r in doc["results"]]


def test_every_note_is_indexed_with_its_effective_type(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(_vault(tmp_path))
    summary = index.reconcile()
    assert summary["files"] == len(PLAIN) and summary["errors"] == []
    found = {}
    for query in ("tomatoes basil raised bed", "compost nitrogen carbon", "roadmap agreed",
                  "long blocks demanding tasks", "curated engram bees"):
        top = _search(index, embedder, query, k=1)["results"][0]
        found[top["path"]] = (top["type"], top["type_inferred"])
    assert found == {
        "Daily/2024-05-01.md": ("resource", True),  # the default for untyped notes
        "Engrams/Loose idea.md": ("engram", True),  # the folder rule
        "Meetings/Kickoff.md": ("resource", True),  # `type: meeting` is not an Ora type
        "Books/Deep Work.md": ("resource", True),
        "Typed.md": ("engram", False),
    }


def test_folder_rules_from_ora_yaml_type_notes_and_a_change_re_plans_without_embedding(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = _vault(tmp_path)
    index = open_idx(vault)
    index.reconcile()
    (vault / "ora.yaml").write_text("folders:\n  Daily/: chat\nuntyped_type: engram\n")
    again = index.reconcile()
    assert again["embedded"] == 0  # only metadata changed
    daily = _search(index, embedder, "tomatoes basil raised bed", k=1)["results"][0]
    assert (daily["path"], daily["type"], daily["type_inferred"]) == (
        "Daily/2024-05-01.md", "chat", True)
    meeting = _search(index, embedder, "roadmap agreed", k=1)["results"][0]
    assert (meeting["type"], meeting["why"]["type_weight"]) == ("engram", 1.0)


def test_aliases_and_description_are_searchable_by_bm25(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(_vault(tmp_path))
    index.reconcile()
    for query in ("monastic", "undistracted concentration"):  # in no line of the body
        hits = index.bm25_search(query, 5, private=False)
        records = index.get_chunks([cid for cid, _ in hits], private=False)
        assert {r.path for r in records.values()} == {"Books/Deep Work.md"}, query


def test_a_frontmatter_tag_is_searchable_by_its_words_as_an_inline_one_is(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    # Before: "#garden" inline was found by "garden", `tags: [food/vegan]` by no word.
    notes = {**PLAIN, "Recipes/Lentil soup.md": (
        "---\ntags: [food/vegan, weeknight]\n---\n# Lentil soup\n\nSimmer the lentils.\n")}
    index = open_idx(_vault(tmp_path, notes))
    index.reconcile()
    for query in ("vegan", "weeknight", "food"):
        hits = index.bm25_search(query, 5, private=False)
        records = index.get_chunks([cid for cid, _ in hits], private=False)
        assert {r.path for r in records.values()} == {"Recipes/Lentil soup.md"}, query


def test_a_note_flips_private_by_an_inline_tag_edit(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = _vault(tmp_path)
    index = open_idx(vault)
    index.reconcile()
    query = "tomatoes basil raised bed"
    assert _paths(_search(index, embedder, query, k=3))[0] == "Daily/2024-05-01.md"
    note = vault / "Daily/2024-05-01.md"
    note.write_text(note.read_text() + "Family matters, keep it #private/family\n")
    index.apply_paths(["Daily/2024-05-01.md"])
    public = _search(index, embedder, query, k=10)
    assert "Daily/2024-05-01.md" not in _paths(public)
    assert all("tomatoes" not in r["text"] for r in public["results"])
    private = _search(index, embedder, query, k=3, private=True)
    assert private["results"][0]["path"] == "Daily/2024-05-01.md"
    assert private["results"][0]["private"] is True
    assert index.bm25.count(index.namespace, False) + index.bm25.count(index.namespace, True) \
        == index.stats()["chunks"]
    note.write_text(note.read_text().replace(" #private/family", ""))  # and back
    index.apply_paths(["Daily/2024-05-01.md"])
    assert _paths(_search(index, embedder, query, k=3))[0] == "Daily/2024-05-01.md"


def test_string_legacy_and_inline_status_tags_filter_search(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    notes = {
        "a.md": "---\ntags: archived\n---\nZebra stripes confuse biting flies.\n",
        "b.md": "---\ntag: private\n---\nZebra foals recognise their mother's stripes.\n",
        "c.md": "Zebra herds migrate with wildebeest. #incubating/idea\n",
        "d.md": "---\ntags: 'zoo, #archived/2020'\n---\nZebra crossings were named after them.\n",
    }
    index = open_idx(_vault(tmp_path, notes))
    index.reconcile()
    public = _search(index, embedder, "zebra", k=10)
    assert _paths(public) == ["c.md"]
    assert public["results"][0]["flags"] == ["incubating"]
    archived = _search(index, embedder, "zebra", k=10, include_archived=True)
    assert sorted(_paths(archived)) == ["a.md", "c.md", "d.md"]
    everything = _search(index, embedder, "zebra", k=10, private=True, include_archived=True)
    assert sorted(_paths(everything)) == ["a.md", "b.md", "c.md", "d.md"]


def test_a_classic_mac_note_tagged_private_never_appears_in_a_public_search(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    """A note whose lines end with a bare CR (classic Mac) had its frontmatter unread, so its
    `tags: [private]` was missed and it was searchable as public."""
    notes = {
        "mac.md": "---\rtags: [private]\r---\rOkapi calves hide in the forest.\r",
        "inline.md": "Okapi tongues reach their ears.\r#private\r",
        "open.md": "Okapi are related to giraffes.\n",
    }
    index = open_idx(_vault(tmp_path, notes))
    index.reconcile()
    assert _paths(_search(index, embedder, "okapi", k=10)) == ["open.md"]
    everything = _search(index, embedder, "okapi", k=10, private=True)
    assert sorted(_paths(everything)) == ["inline.md", "mac.md", "open.md"]


def test_tags_in_quoted_code_html_and_math_filter_and_hide_as_obsidian_reads_them(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    """A tag in quoted code, an HTML block or `$$` math over lines is no tag for the filter (it
    was), the tag after the math and one in a table cell are (they were lost), and a `#private`
    in any of those places, chained to another tag or in italics keeps the note out of a public
    search."""
    notes = {
        "quote.md": "Kettle descaling.\n\n> ```\n> descale #kettlecode\n> ```\n",
        "html.md": "Kettle inventory.\n\n<div>\nKettle list #kettlecode\n</div>\n",
        "math.md": "Kettle heat $$Q =\n#kettlecode\n$$ boils it. #kettleguide\n",
        "secret-quote.md": "Kettle log.\n\n> ```\n> #private\n> ```\n",
        "secret-html.md": "Kettle receipts.\n\n<details>\nreceipts #private\n</details>\n",
        "secret-math.md": "Kettle bill $$E =\n#private\n$$ a month.\n",
        "secret-chained.md": "Kettle warranty #home#private\n",
        "secret-italic.md": "Kettle diary, an _#private_ aside\n",
        "table.md": "Kettle prices.\n\n|item|cost|\n|-|-|\n|#kettlebudget|20|\n",
    }
    index = open_idx(_vault(tmp_path, notes))
    index.reconcile()

    def tagged(tag: str) -> list[str]:
        filters = NoteFilter.make(tags=[tag])
        return sorted(_paths(_search(index, embedder, "kettle", k=10, filters=filters)))

    assert tagged("kettlecode") == []
    assert tagged("kettleguide") == ["math.md"]
    assert tagged("kettlebudget") == ["table.md"]
    assert sorted(_paths(_search(index, embedder, "kettle", k=10))) == [
        "html.md", "math.md", "quote.md", "table.md"]
    everything = _search(index, embedder, "kettle", k=10, private=True)
    assert len(_paths(everything)) == len(notes)


def test_ora_and_obsidian_exclusions_keep_notes_out_and_take_them_out_later(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = _vault(tmp_path, {**PLAIN, "Templates/Daily.md": "Template for tomatoes.\n",
                              "Archive/Old.md": "Old tomatoes harvest log.\n"})
    (vault / "ora.yaml").write_text("exclude: [Templates/]\n")
    write(vault, ".obsidian/app.json", json.dumps({"userIgnoreFilters": ["Archive/"]}))
    index = open_idx(vault)
    assert index.reconcile()["files"] == len(PLAIN)
    assert set(_paths(_search(index, embedder, "tomatoes", k=10))) <= set(PLAIN)
    write(vault, ".obsidian/app.json", json.dumps({"userIgnoreFilters": ["Daily/"]}))
    index.reconcile()
    paths = set(_paths(_search(index, embedder, "tomatoes", k=10)))
    assert "Archive/Old.md" in paths and "Daily/2024-05-01.md" not in paths


def test_templates_named_by_obsidian_are_not_indexed(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = _vault(tmp_path, {**PLAIN, "Templates/Harvest.md": "# {{title}}\nTomatoes picked:\n"})
    index = open_idx(vault)
    index.reconcile()
    assert "Templates/Harvest.md" in _paths(_search(index, embedder, "tomatoes picked", k=10))
    write(vault, ".obsidian/templates.json", json.dumps({"folder": "Templates"}))
    index.reconcile()
    assert "Templates/Harvest.md" not in _paths(_search(index, embedder, "tomatoes picked", k=10))


def test_search_leaves_out_notes_excluded_since_they_were_indexed(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = _vault(tmp_path)
    writer = open_idx(vault)
    writer.reconcile()
    writer.close()
    (vault / "ora.yaml").write_text("exclude: [Daily/]\n")  # no reconcile since
    reader = open_index(make_config(vault, tmp_path / "data"), writer=False, embedder=embedder)
    try:
        assert "Daily/2024-05-01.md" not in _paths(_search(reader, embedder, "tomatoes", k=10))
    finally:
        reader.close()


def test_a_cold_index_takes_recently_modified_notes_first(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {f"n{i:02}.md": f"Note number {i} about topic {i}.\n" for i in range(12)}
    vault = _vault(tmp_path, notes)
    for i in range(12):  # n00 is the newest
        stamp = 1_700_000_000 * 10**9 - i * 10**12
        os.utime(vault / f"n{i:02}.md", ns=(stamp, stamp))
    index = open_idx(vault)
    syncer = index._syncer
    assert syncer is not None
    order: list[str] = []
    write_batch = syncer._finish

    def spy(batch: Any, known: Any, report: Any) -> None:
        order.extend(plan.row.path for plan in batch.plans)
        write_batch(batch, known, report)

    monkeypatch.setattr(syncer, "_finish", spy)
    monkeypatch.setattr(embed_pass, "BATCH_FILES", 1)  # one file per batch: order is visible
    index.reconcile()
    assert order == sorted(notes)


def test_readers_see_indexing_progress_while_a_reconcile_runs(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {f"n{i:02}.md": f"Note number {i}.\n" for i in range(6)}
    vault = _vault(tmp_path, notes)
    index = open_idx(vault)
    monkeypatch.setattr(sync_module, "LEXICAL_BATCH_FILES", 1)
    seen: list[dict[str, Any] | None] = []
    index.reconcile(progress=lambda p: seen.append(index.indexing()))
    assert {"done": 3, "total": 6, "percent": 50, "phase": "words"} in seen
    assert any(s is not None and s["phase"] == "meaning" for s in seen)  # then the embedding
    assert index.indexing() is None  # finished
    assert not (index.config.data / "indexing.json").exists()


def test_a_reader_in_another_process_sees_the_writers_progress(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    progress = IndexingProgress(data)
    (data / "indexing.json").write_text(json.dumps({"pid": os.getppid(), "done": 1, "total": 4}))
    assert progress.current() == {"done": 1, "total": 4, "percent": 25, "phase": "words"}
    (data / "indexing.json").write_text(json.dumps({"pid": 2**22 + 12345, "done": 1, "total": 4}))
    assert progress.current() is None  # the writer is gone


def test_a_cold_index_commits_small_batches_first_so_new_notes_are_searchable_early(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {f"n{i:02}.md": f"Note number {i} about topic {i}.\n" for i in range(40)}
    index = open_idx(_vault(tmp_path, notes))
    syncer = index._syncer
    assert syncer is not None
    sizes: list[int] = []
    write_batch = syncer._finish

    def spy(batch: Any, known: Any, report: Any) -> None:
        sizes.append(len(batch.plans))
        write_batch(batch, known, report)

    monkeypatch.setattr(syncer, "_finish", spy)
    index.reconcile()
    assert sizes == [8, 16, 16]  # doubling from FIRST_BATCH; the rest in the last batch
