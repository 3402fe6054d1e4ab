"""Pairs involving a private note are seen, counted and resolved only in private mode."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from sidecar.cleaning.resolve import approve_batch, resolve
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import QUEUE_FILE, Queue
from sidecar.cli import main
from sidecar.errors import NotFound
from sidecar.settings import Config, make_config

from ..conftest import AppClient
from .conftest import NOTES

Scan = Callable[[], ScanReport]
OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
MAY, JUNE = "Resources/Rates May.md", "Resources/Rates June.md"


def set_private(vault: Path, rel: str, private: bool) -> None:
    """Add or remove the private tag in the note's inline or block tag list."""
    text = NOTES[rel]
    if private:
        text = text.replace("tags: [", "tags: [private, ")
        text = text.replace("tags:\n", "tags:\n  - private\n")
    (vault / rel).write_text(text, encoding="utf-8")


def engram_ids(queue: Queue, private: bool) -> list[str]:
    return [p.id for p in queue.pairs(kind="engram", private=private)]


def test_a_pair_with_a_private_note_is_hidden_outside_private_mode(
    run_scan: Scan, queue: Queue, vault: Path, config: Config
) -> None:
    set_private(vault, NEW, True)
    report = run_scan()
    (pair,) = queue.pairs("open", kind="engram", private=True)
    assert pair.private and pair.as_json()["private"] is True
    assert engram_ids(queue, private=False) == []
    assert report.open == queue.open_count() == queue.open_count(private=True) - 1
    with pytest.raises(NotFound):
        queue.get(pair.id)
    with pytest.raises(NotFound):
        resolve(config, queue, pair.id, "flag")
    assert resolve(config, queue, pair.id, "flag", private=True).pair.status == "flagged"


def test_a_pair_follows_its_notes_private_tag_even_once_triaged(
    run_scan: Scan, queue: Queue, vault: Path, config: Config
) -> None:
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    assert not pair.private
    resolve(config, queue, pair.id, "flag")
    set_private(vault, OLD, True)
    run_scan()
    assert queue.pairs("flagged") == [] and queue.get(pair.id, private=True).private
    set_private(vault, OLD, False)
    run_scan()
    assert [p.id for p in queue.pairs("flagged")] == [pair.id]


def test_approving_a_news_batch_leaves_private_proposals_alone(
    run_scan: Scan, queue: Queue, vault: Path, config: Config
) -> None:
    set_private(vault, JUNE, True)
    run_scan()
    (public,) = queue.pairs("open", kind="news")
    assert public.b.path == MAY and public.batch is not None
    done = approve_batch(config, queue, public.batch)
    assert [d.pair.b.path for d in done] == [MAY]
    (private,) = queue.pairs("open", kind="news", private=True)
    assert private.b.path == JUNE and private.private


def test_a_version_1_queue_is_migrated_and_hides_its_pairs_until_rescanned(
    run_scan: Scan, config: Config
) -> None:
    run_scan()
    path = config.data / QUEUE_FILE
    with sqlite3.connect(path) as conn:  # back to the version 1 layout
        for table in ("notes", "pairs"):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN private")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
    conn.close()
    queue = Queue(config.data)
    try:
        assert queue.pairs() == [] and len(queue.pairs(private=True)) == 3
        assert queue.note_states() == {} and queue.get_meta("version") == "2"
        run_scan()
        assert len(queue.pairs()) == 3 and not any(p.private for p in queue.pairs())
    finally:
        queue.close()


def test_cli_lists_and_resolves_private_pairs_only_with_private(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    set_private(vault, NEW, True)
    base = [str(vault), "--data", str(tmp_path / "data"), "--json"]
    assert main(["contradictions", *base, "--scan"]) == 0
    public = json.loads(capsys.readouterr().out)["pairs"]
    assert [p["kind"] for p in public] == ["news", "news"]
    assert main(["contradictions", *base, "--private"]) == 0
    (pair,) = [p for p in json.loads(capsys.readouterr().out)["pairs"] if p["kind"] == "engram"]
    assert pair["private"] is True
    assert main(["resolve", *base, pair["id"], "dismiss"]) == 2
    assert "--private" in capsys.readouterr().err
    assert main(["resolve", *base, pair["id"], "dismiss", "--private"]) == 0
    assert json.loads(capsys.readouterr().out)["pair"]["status"] == "dismissed"


async def test_http_hides_private_pairs_from_lists_counts_and_ids(
    vault: Path, tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]]
) -> None:
    set_private(vault, NEW, True)
    models = tmp_path / "models"
    api = await app_client(make_config(vault, tmp_path / "data", embed_model="int8",
                                       models_dir=str(models), cohere_api_key="",
                                       reranker_dir=str(models / "none")))
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    assert [p["kind"] for p in doc["pairs"]] == ["news", "news"]
    _, state = await api.call("GET", "/v1/status")
    assert state["contradictions_open"] == 2
    _, doc = await api.call("GET", "/v1/contradictions?private=true")
    (pair,) = [p for p in doc["pairs"] if p["private"]]
    assert pair["kind"] == "engram"
    url = f"/v1/contradictions/{pair['id']}/resolve"
    status, _ = await api.call("POST", url, {"action": "flag"})
    assert status == 404
    status, done = await api.call("POST", url, {"action": "flag", "private": True})
    assert status == 200 and done["pair"]["status"] == "flagged"
    status, _ = await api.call("GET", "/v1/contradictions?private=yes")
    assert status == 400
