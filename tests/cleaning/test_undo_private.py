"""Outside private mode an undo passes over a resolution that involves a private note (private
then, or made private since), as if it were not there: it undoes the latest other one, or
answers "nothing to undo" word for word as when nothing is recorded at all. The answer never
tells that a private pair exists (docs/privacy.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import scan
from sidecar.cleaning.store import Pair, Queue
from sidecar.cleaning.undo import undo_last
from sidecar.cli import main
from sidecar.errors import NotFound
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config
from tests.notes import write_notes

from ..conftest import AppClient
from .conftest import NOTES

OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
HEALTH = {
    "Health/Dose.md": "# Dose\n\nMy blood pressure medication dose is 20 mg daily.\n",
    "Health/Dose again.md": "# Dose again\n\nMy blood pressure medication dose is 40 mg daily.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_notes(tmp_path / "vault", {**NOTES, **HEALTH})
    (root / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    return root


@pytest.fixture
def queue(config: Config, vault: Path) -> Iterator[Queue]:
    q = Queue(config.data, vault)  # as the server and the CLI open it: the vault known
    yield q
    q.close()


def _pairs(config: Config, queue: Queue, embedder: Embedder) -> tuple[Pair, Pair]:
    """The public engram pair and the private one (both notes under Health/), once scanned."""
    asyncio.run(scan(config, queue, embedder, RulesJudge()))
    (public,) = queue.pairs("open", kind="engram")
    (private,) = [p for p in queue.pairs("open", private=True) if p.private]
    return public, private


def _nothing_recorded(config: Config, queue: Queue) -> str:
    with pytest.raises(NotFound) as err:
        undo_last(config, queue)
    return err.value.message


def test_a_non_private_undo_passes_over_a_newer_private_resolution(
    config: Config, queue: Queue, embedder: Embedder, vault: Path,
) -> None:
    nothing = _nothing_recorded(config, queue)
    public, private = _pairs(config, queue, embedder)
    before = {rel: (vault / rel).read_bytes() for rel in (OLD, NEW, *HEALTH)}
    resolve(config, queue, public.id, "changed-mind", newer=NEW)
    resolve(config, queue, private.id, "flag", private=True)

    undone = undo_last(config, queue)
    assert [p.id for p in undone.pairs] == [public.id] and undone.changed
    assert {rel: (vault / rel).read_bytes() for rel in (OLD, NEW, *HEALTH)} == before
    assert _nothing_recorded(config, queue) == nothing
    assert queue.get(private.id, private=True).status == "flagged"  # still, until private mode
    assert [p.id for p in undo_last(config, queue, private=True).pairs] == [private.id]
    assert queue.get(private.id, private=True).status == "open"


def test_a_resolution_whose_folder_was_made_private_since_is_passed_over(
    config: Config, queue: Queue, embedder: Embedder, vault: Path,
) -> None:
    nothing = _nothing_recorded(config, queue)
    public, _ = _pairs(config, queue, embedder)
    resolve(config, queue, public.id, "flag")
    (vault / "ora.yaml").write_text("private:\n  - Health/\n  - engrams\n", encoding="utf-8")
    assert _nothing_recorded(config, queue) == nothing  # no scan since: private by its folder
    assert [p.id for p in undo_last(config, queue, private=True).pairs] == [public.id]


def test_ora_resolve_undo_says_the_same_with_a_private_resolution_as_with_none(
    config: Config, queue: Queue, embedder: Embedder, vault: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["resolve", str(vault), "--data", str(config.data), "last", "undo"]
    assert main(argv) == 2
    nothing = capsys.readouterr()
    _, private = _pairs(config, queue, embedder)
    resolve(config, queue, private.id, "flag", private=True)
    assert main(argv) == 2
    assert capsys.readouterr() == nothing
    assert main([*argv, "--private"]) == 0


async def test_the_undo_route_answers_the_same_with_a_private_resolution_as_with_none(
    vault: Path, tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    models = tmp_path / "models"
    api = await app_client(make_config(vault, tmp_path / "data", embed_model="int8",
                                       models_dir=str(models), cohere_api_key="",
                                       reranker_dir=str(models / "none"), scan_delay=-1.0))
    nothing = await api.call("POST", "/v1/contradictions/undo", {})
    assert nothing[0] == 404
    await api.call("POST", "/v1/contradictions/scan", {})
    _, doc = await api.call("GET", "/v1/contradictions?private=true")
    (private,) = [p for p in doc["pairs"] if p["private"]]
    status, _ = await api.call("POST", f"/v1/contradictions/{private['id']}/resolve",
                               {"action": "flag", "private": True})
    assert status == 200
    assert await api.call("POST", "/v1/contradictions/undo", {}) == nothing
    status, done = await api.call("POST", "/v1/contradictions/undo", {"private": True})
    assert status == 200 and [p["id"] for p in done["pairs"]] == [private["id"]]
