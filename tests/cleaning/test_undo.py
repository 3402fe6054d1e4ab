"""Undo of the last resolution: both files back byte for byte, or nothing written at all."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cleaning.decisions import decision_notes
from sidecar.cleaning.resolve import approve_batch, resolve
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import UNDO_DEPTH, Pair, Queue
from sidecar.cleaning.undo import undo_last
from sidecar.cli import main
from sidecar.errors import Conflict, NotFound
from sidecar.settings import Config, make_config

from ..conftest import AppClient
from .conftest import NOTES

Scan = Callable[[], ScanReport]
OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"


def files(vault: Path) -> dict[str, bytes]:
    """Every file of the vault (the trash included), as bytes; not the decision notes, the
    record of every triage step, undo included (tests/cleaning/test_decisions.py)."""
    return {p.relative_to(vault).as_posix(): p.read_bytes()
            for p in sorted(vault.rglob("*"))
            if p.is_file() and p.relative_to(vault).as_posix() not in decision_notes()}


ORIGINAL = {rel: text.encode() for rel, text in NOTES.items()}


def the_pair(run_scan: Scan, queue: Queue) -> Pair:
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    return pair


@pytest.mark.parametrize("action", [
    {"action": "changed-mind", "newer": NEW},
    {"action": "changed-mind", "newer": OLD},
    {"action": "wrong", "note": NEW},
    {"action": "wrong", "note": OLD, "delete": True},
    {"action": "flag"},
    {"action": "dismiss"},
], ids=["changed-mind-new", "changed-mind-old", "wrong", "wrong-delete", "flag", "dismiss"])
def test_undo_restores_both_files_byte_for_byte_and_reopens_the_pair(
    run_scan: Scan, queue: Queue, config: Config, vault: Path, action: dict[str, Any]
) -> None:
    pair = the_pair(run_scan, queue)
    kind = action.pop("action")
    resolve(config, queue, pair.id, kind, **action)
    undone = undo_last(config, queue)
    assert files(vault) == ORIGINAL
    assert [p.id for p in undone.pairs] == [pair.id]
    assert queue.get(pair.id) == pair  # status, resolution and judged hashes as they were
    again = resolve(config, queue, pair.id, kind, **action)  # the pair resolves again
    assert again.pair.status != "open"


def test_undo_refuses_when_a_file_changed_since_and_writes_nothing(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    resolve(config, queue, pair.id, "changed-mind", newer=NEW)
    (vault / NEW).write_text((vault / NEW).read_text() + "A later thought.\n")
    before = files(vault)
    with pytest.raises(Conflict, match=f"{NEW} changed since that resolution"):
        undo_last(config, queue)
    assert files(vault) == before
    assert queue.get(pair.id).status == "resolved"


def test_undo_refuses_when_a_deleted_note_was_recreated(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    resolve(config, queue, pair.id, "wrong", note=OLD, delete=True)
    (vault / OLD).write_text("a new note in its place\n")
    with pytest.raises(Conflict, match="exists again"):
        undo_last(config, queue)
    assert (vault / ".trash/Vitamin C and colds.md").read_bytes() == ORIGINAL[OLD]


def test_a_note_the_client_trashes_comes_back_on_undo_wherever_its_trash_put_it(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    """`client_trash`: the plugin deletes the note through Obsidian's trash (the system trash,
    or for good, as the user's Deleted files setting says), so the sidecar checks it and keeps
    its bytes; the undo recreates it from them."""
    pair = the_pair(run_scan, queue)
    done = resolve(config, queue, pair.id, "wrong", note=OLD, delete=True, client_trash=True)
    assert (vault / OLD).read_bytes() == ORIGINAL[OLD]  # left for the client, as judged
    assert done.pair.resolution == {"action": "wrong", "note": OLD, "deleted": True,
                                    "client_trash": True,
                                    "hash": next(s.hash for s in (pair.a, pair.b) if s.path == OLD)}
    (vault / OLD).unlink()  # what trashFile does with "Deleted files: system trash"
    undo_last(config, queue)
    assert files(vault) == ORIGINAL and queue.get(pair.id) == pair


def test_undo_of_a_client_trash_the_client_never_did_writes_nothing(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    resolve(config, queue, pair.id, "wrong", note=OLD, delete=True, client_trash=True)
    assert undo_last(config, queue).pairs[0].status == "open"
    assert files(vault) == ORIGINAL


def test_a_news_batch_is_undone_as_one(run_scan: Scan, queue: Queue, config: Config,
                                        vault: Path) -> None:
    run_scan()
    batch = queue.pairs("open", kind="news")[0].batch
    assert batch is not None
    done = approve_batch(config, queue, batch)
    assert len(done) == 2
    undone = undo_last(config, queue)
    assert files(vault) == ORIGINAL
    assert sorted(p.status for p in undone.pairs) == ["open", "open"]
    assert len(approve_batch(config, queue, batch)) == 2  # and it approves again


def test_undo_goes_back_one_resolution_at_a_time(run_scan: Scan, queue: Queue, config: Config,
                                                  vault: Path) -> None:
    pair = the_pair(run_scan, queue)
    news = queue.pairs("open", kind="news")[0]
    resolve(config, queue, pair.id, "wrong", note=NEW)
    after_first = files(vault)
    resolve(config, queue, news.id, "changed-mind", newer=news.b.path)
    assert undo_last(config, queue).pairs[0].id == news.id
    assert files(vault) == after_first
    assert undo_last(config, queue).pairs[0].id == pair.id
    assert files(vault) == ORIGINAL
    with pytest.raises(NotFound, match="nothing to undo"):
        undo_last(config, queue)


def test_only_the_newest_resolutions_are_kept(run_scan: Scan, queue: Queue,
                                              config: Config) -> None:
    pair = the_pair(run_scan, queue)
    for _ in range(UNDO_DEPTH + 3):
        resolve(config, queue, pair.id, "flag")
        undo_last(config, queue)
        resolve(config, queue, pair.id, "flag")
    rows = queue._rows("SELECT count(*) AS n FROM undo")
    assert rows[0]["n"] == UNDO_DEPTH


def test_undo_from_the_command_line(run_scan: Scan, queue: Queue, config: Config, vault: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    pair = the_pair(run_scan, queue)
    resolve(config, queue, pair.id, "changed-mind", newer=NEW)
    base = [str(vault), "--data", str(config.data)]
    assert main(["resolve", *base, "last", "undo", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["changed"] == sorted([OLD, NEW]) and doc["pairs"][0]["status"] == "open"
    assert files(vault) == ORIGINAL
    assert main(["resolve", *base, "last", "undo"]) == 2
    assert "nothing to undo" in capsys.readouterr().err
    assert main(["resolve", *base, pair.id, "undo"]) == 2
    assert "undo goes with `last`" in capsys.readouterr().err


async def _serve(vault: Path, tmp_path: Path,
                 app_client: Callable[[Config], Awaitable[AppClient]]) -> AppClient:
    """The sidecar over `vault`: the int8 embedder, no re-ranker, no background scan."""
    models = tmp_path / "models"
    return await app_client(make_config(vault, tmp_path / "data", embed_model="int8",
                                        models_dir=str(models), cohere_api_key="",
                                        reranker_dir=str(models / "none"), scan_delay=-1.0))


async def test_undo_over_http(vault: Path, tmp_path: Path,
                              app_client: Callable[[Config], Awaitable[AppClient]]) -> None:
    api = await _serve(vault, tmp_path, app_client)
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    status, _ = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                               {"action": "wrong", "note": OLD, "delete": True})
    assert status == 200 and not (vault / OLD).exists()
    status, done = await api.call("POST", "/v1/contradictions/undo", {})
    assert status == 200 and done["changed"] == [OLD]
    assert files(vault) == ORIGINAL
    _, state = await api.call("GET", "/v1/status")
    assert state["contradictions_open"] == 3
    status, err = await api.call("POST", "/v1/contradictions/undo", {})
    assert status == 404 and "nothing to undo" in err["error"]["message"]


async def test_a_client_trash_over_http_leaves_the_note_for_the_plugin(
    vault: Path, tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]]
) -> None:
    api = await _serve(vault, tmp_path, app_client)
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    status, done = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                  {"action": "wrong", "note": OLD, "delete": True,
                                   "client_trash": True})
    assert status == 200 and (vault / OLD).read_bytes() == ORIGINAL[OLD]
    resolution = done["pair"]["resolution"]
    assert resolution["client_trash"] is True and "trash" not in resolution
    (vault / OLD).unlink()  # the plugin's trashFile
    status, _ = await api.call("POST", "/v1/contradictions/undo", {})
    assert status == 200 and files(vault) == ORIGINAL
