"""The news sweep proposes supersessions story by story, newest over older, never silently."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cleaning.resolve import approve_batch, resolve
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import ScanReport, scan
from sidecar.cleaning.store import Queue
from sidecar.errors import NotFound
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config
from tests.notes import write_notes

from .conftest import NOTES

Scan = Callable[[], ScanReport]
MARCH, MAY, JUNE = ("Resources/Rates March.md", "Resources/Rates May.md",
                    "Resources/Rates June.md")


def proposals(queue: Queue) -> list[tuple[str, str]]:
    return sorted((p.a.path, p.b.path) for p in queue.pairs("open", kind="news"))


def test_sweep_proposes_each_article_over_the_previous_one_of_its_story(
    run_scan: Scan, queue: Queue, vault: Path
) -> None:
    report = run_scan()
    assert report.proposals == 2
    # Older on the a side, newer on the b side; June is dated by `date created`.
    assert proposals(queue) == [(MARCH, MAY), (MAY, JUNE)]
    batches = {p.batch for p in queue.pairs("open", kind="news")}
    assert len(batches) == 1 and batches.pop().startswith("news-")
    assert (vault / MARCH).read_bytes() == NOTES[MARCH].encode()  # nothing applied yet


def test_article_without_a_date_gets_no_direction(run_scan: Scan, queue: Queue,
                                                  vault: Path) -> None:
    note = vault / JUNE
    note.write_text(NOTES[JUNE].replace("date created: 2024-06-12\n", ""))
    run_scan()
    assert proposals(queue) == [(MARCH, MAY)]


def test_approving_one_proposal_applies_only_it(run_scan: Scan, queue: Queue,
                                                config: Config, vault: Path) -> None:
    run_scan()
    (first,) = [p for p in queue.pairs("open", kind="news") if p.b.path == MAY]
    resolve(config, queue, first.id, "changed-mind", newer=MAY)
    assert (vault / MARCH).read_text() == NOTES[MARCH].replace(
        "tags: [news, finance]", "tags: [news, finance, archived]")
    assert (vault / JUNE).read_bytes() == NOTES[JUNE].encode()
    assert len(queue.pairs("open", kind="news")) == 1


def test_approve_all_applies_the_batch_along_the_chain(run_scan: Scan, queue: Queue,
                                                      config: Config, vault: Path) -> None:
    run_scan()
    batch = queue.pairs("open", kind="news")[0].batch
    assert batch is not None
    done = approve_batch(config, queue, batch)
    assert [d.pair.b.path for d in done] == [MAY, JUNE]
    assert (vault / MARCH).read_text() == NOTES[MARCH].replace(
        "tags: [news, finance]", "tags: [news, finance, archived]")
    assert (vault / MAY).read_text() == NOTES[MAY].replace(
        "tags: [news, finance]", "tags: [news, finance, archived]").replace(
        "published: 2024-05-01\n",
        "published: 2024-05-01\nrelationships:\n  supersedes:\n  - \"[[Rates March]]\"\n")
    assert (vault / JUNE).read_text() == NOTES[JUNE].replace(
        "date created: 2024-06-12\n",
        "date created: 2024-06-12\nrelationships:\n  supersedes:\n  - \"[[Rates May]]\"\n")
    assert (vault / "Resources/Volcano.md").read_bytes() == NOTES["Resources/Volcano.md"].encode()
    run_scan()
    assert proposals(queue) == []


def test_approve_all_of_an_unknown_batch_is_not_found(run_scan: Scan, queue: Queue,
                                                      config: Config) -> None:
    run_scan()
    with pytest.raises(NotFound):
        approve_batch(config, queue, "news-000000000000")


APRIL = "Resources/Rates April.md"  # a private article between March and May, same story
PRIVATE_APRIL = (
    "---\ntype: resource\nnexus: []\ntags: [news, finance, private]\npublished: 2024-04-10\n"
    "---\nThe central bank held its interest rate at 5.25 percent in April, citing inflation.\n"
)


def _public_answers(root: Path, embedder: Embedder, with_private: bool) -> dict[str, Any]:
    """What a request outside private mode is told of one vault's news proposals."""
    notes = {**NOTES, **({APRIL: PRIVATE_APRIL} if with_private else {})}
    vault = write_notes(root / "vault", notes)
    config = make_config(vault, root / "data")
    queue = Queue(config.data, vault)  # as the server opens it
    try:
        asyncio.run(scan(config, queue, embedder, RulesJudge()))
        listed = [p.as_json() for p in queue.pairs(kind="news")]
        private = [p.as_json() for p in queue.pairs(kind="news", private=True) if p.private]
        batches = sorted({p["batch"] for p in listed})
        opened = queue.open_count()
        approved = [d.pair.id for d in approve_batch(config, queue, batches[0])]
    finally:
        queue.close()
    return {"listed": listed, "open": opened, "batches": batches, "approved": approved,
            "private": private}


def test_a_private_article_changes_no_non_private_news_answer(
    tmp_path: Path, embedder: Embedder
) -> None:
    without = _public_answers(tmp_path / "without", embedder, with_private=False)
    with_it = _public_answers(tmp_path / "with", embedder, with_private=True)
    assert without.pop("private") == []
    private = with_it.pop("private")
    assert with_it == without  # lists, count, batch ids and batch approval alike
    assert [(p["a"]["path"], p["b"]["path"]) for p in without["listed"]] in (
        [(MARCH, MAY), (MAY, JUNE)], [(MAY, JUNE), (MARCH, MAY)])
    # private mode has the story over every article: the private one between March and May
    assert sorted((p["a"]["path"], p["b"]["path"]) for p in private) == sorted(
        [(MARCH, APRIL), (APRIL, MAY)])
    assert {p["batch"] for p in private} == set(without["batches"])  # the story's one batch
