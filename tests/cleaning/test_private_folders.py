"""A note private by where it lies (ora.yaml `private:` folders) makes its contradiction pairs
private exactly as a `#private` tag does: hidden from lists, counts and ids outside private mode,
at once when the folders change, and re-flagged by the next scan."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import Queue
from sidecar.settings import Config, make_config
from tests.settled_save import settle

from ..conftest import AppClient
from .conftest import NOTES

Scan = Callable[[], ScanReport]
OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
HEALTH = "Health/Vitamin C revisited.md"


def _in_health(vault: Path) -> None:
    """The note contradicting OLD moves into the private folder Health/ (no tag)."""
    (vault / NEW).unlink()
    (vault / "Health").mkdir()
    (vault / HEALTH).write_text(NOTES[NEW], encoding="utf-8")
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")


def test_a_pair_with_a_folder_private_note_is_private(run_scan: Scan, queue: Queue,
                                                       vault: Path) -> None:
    _in_health(vault)
    report = run_scan()
    (pair,) = queue.pairs("open", kind="engram", private=True)
    assert HEALTH in (pair.a.path, pair.b.path) and pair.private
    assert [p for p in queue.pairs() if p.kind == "engram"] == []
    assert report.open == queue.open_count() == queue.open_count(private=True) - 1


def test_pairs_follow_the_private_folders_before_and_at_the_next_scan(
    run_scan: Scan, queue: Queue, vault: Path, config: Config
) -> None:
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    assert not pair.private
    live = Queue(config.data, vault)  # as the server opens it: the vault known
    try:
        (vault / "ora.yaml").write_text("private:\n  - Engrams/Vitamin C rev*\n",
                                        encoding="utf-8")
        # No scan yet: hidden outside private mode at once, as after a tag is added.
        assert [p.id for p in live.pairs(kind="engram")] == []
        assert live.open_count() == live.open_count(private=True) - 1
        assert live.get(pair.id, private=True).private
        run_scan()  # the scan re-surveys every note (the settings changed) and re-flags
        assert queue.get(pair.id, private=True).private
        assert [p.id for p in queue.pairs(kind="engram")] == []
        (vault / "ora.yaml").write_text("private: []\n", encoding="utf-8")
        # it drops the folder: trusted only once settled (a save read halfway drops it too)
        settle(vault / "ora.yaml")
        run_scan()
        assert [p.id for p in live.pairs(kind="engram")] == [pair.id]
        assert not live.get(pair.id).private
    finally:
        live.close()


async def test_http_hides_folder_private_pairs_from_lists_counts_and_ids(
    vault: Path, tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]]
) -> None:
    _in_health(vault)
    models = tmp_path / "models"
    api = await app_client(make_config(vault, tmp_path / "data", embed_model="int8",
                                       models_dir=str(models), cohere_api_key="",
                                       reranker_dir=str(models / "none")))
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    assert [p["kind"] for p in doc["pairs"]] == ["news", "news"]
    assert "Vitamin C" not in str(doc) and "Health" not in str(doc)
    _, listed = await api.call("GET", "/v1/contradictions?status=all")
    assert [p["kind"] for p in listed["pairs"]] == ["news", "news"]
    _, state = await api.call("GET", "/v1/status")
    assert state["contradictions_open"] == 2
    _, doc = await api.call("GET", "/v1/contradictions?private=true")
    (pair,) = [p for p in doc["pairs"] if p["private"]]
    status, _ = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                               {"action": "flag"})
    assert status == 404
