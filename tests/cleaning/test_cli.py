"""`ora contradictions`, `ora resolve` and `ora web classify` end to end, in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main

VITAMIN = ("Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md")


@pytest.fixture(autouse=True)
def _int8_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The packaged int8 embedder (without the setting, `ora index` would build fp32 first)."""
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")


def ora(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    out = capsys.readouterr().out
    return json.loads(out)  # exactly one JSON document on stdout


def test_scan_lists_the_contradiction_and_the_news_proposals(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    doc = ora(capsys, "contradictions", str(vault), "--data", data, "--scan", "--json")
    assert sorted((p["kind"], p["a"]["path"], p["b"]["path"]) for p in doc["pairs"]) == [
        ("engram", *VITAMIN),
        ("news", "Resources/Rates March.md", "Resources/Rates May.md"),
        ("news", "Resources/Rates May.md", "Resources/Rates June.md"),
    ]
    for pair in doc["pairs"]:
        assert set(pair) >= {"id", "a", "b", "judge", "score", "status", "kind", "evidence"}
    assert ora(capsys, "contradictions", str(vault), "--data", data, "--status", "dismissed",
               "--json") == {"pairs": []}


def test_resolution_reaches_the_index_at_once(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    ora(capsys, "index", str(vault), "--data", data, "--json")

    def found() -> list[str]:
        doc = ora(capsys, "search", str(vault), "vitamin C and the common cold", "--data", data,
                  "--no-rerank", "--json")
        return [r["path"] for r in doc["results"]]

    assert VITAMIN[0] in found()
    pairs = ora(capsys, "contradictions", str(vault), "--data", data, "--scan", "--json")
    (pid,) = [p["id"] for p in pairs["pairs"] if p["kind"] == "engram"]
    done = ora(capsys, "resolve", str(vault), pid, "changed-mind", "--newer", VITAMIN[1],
               "--data", data, "--json")
    assert done["pair"]["status"] == "resolved" and sorted(done["changed"]) == sorted(VITAMIN)
    assert VITAMIN[0] not in found()  # archived: out of default search
    assert VITAMIN[1] in found()


def test_approve_all_applies_every_open_news_proposal(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    ora(capsys, "contradictions", str(vault), "--data", data, "--scan", "--json")
    doc = ora(capsys, "resolve", str(vault), "news", "approve-all", "--data", data, "--json")
    assert [p["status"] for p in doc["pairs"]] == ["resolved", "resolved"]
    assert doc["changed"] == ["Resources/Rates June.md", "Resources/Rates March.md",
                              "Resources/Rates May.md"]


def test_resolve_errors_are_one_line_and_exit_2(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["resolve", str(vault), "nope", "flag", "--data", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ora resolve: no contradiction with id 'nope'")


def test_listing_after_a_scan_does_not_say_the_vault_was_never_scanned(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    assert main(["contradictions", str(vault), "--data", data, "--json"]) == 0
    assert "has not been scanned yet" in capsys.readouterr().err
    ora(capsys, "contradictions", str(vault), "--data", data, "--scan", "--json")
    assert main(["contradictions", str(vault), "--data", data, "--json"]) == 0
    assert "has not been scanned yet" not in capsys.readouterr().err
