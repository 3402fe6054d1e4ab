"""`ora web classify FILE.json --vault VAULT --json`, in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.cli import main


def test_web_classify_reads_a_results_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Registry — Trusted Web Sources.md").write_text(
        "---\ntype: reference\nexcluded: [farm.example]\n---\n", encoding="utf-8")
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"results": [
        {"url": "https://www.farm.example/x", "title": "t", "text": "cheap pills"},
        {"url": "https://a.example.org/y", "title": "t", "text": "Bees can count to four."},
    ]}), encoding="utf-8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    assert main(["web", "classify", str(results), "--vault", str(vault), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(r["url"], r["tier"]) for r in doc["results"]] == [
        ("https://a.example.org/y", "single")]
    assert [r["url"] for r in doc["excluded"]] == ["https://www.farm.example/x"]
