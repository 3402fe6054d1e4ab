"""Small `ora` contract items: `--data` on lint, an unconfigured judge asked for by name, and
an unknown model name refused before any download is announced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.cleaning.judges import build_judge
from sidecar.cli import main
from sidecar.errors import BadRequest
from sidecar.settings import make_config


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("Compost should be turned every day. #garden\n", encoding="utf-8")
    (vault / "b.md").write_text("Compost should never be turned; leave it alone. #garden\n",
                                encoding="utf-8")
    return vault


def test_lint_accepts_data_dir_like_every_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DESIGN: every subcommand takes `--data DIR`; `ora lint` refused it (argparse, exit 2)."""
    vault = _vault(tmp_path)
    status = main(["lint", str(vault), "--data", str(tmp_path / "data"), "--json"])
    assert status in (0, 1)  # 1 only for lint errors in the notes, never a usage error
    paths = {d["path"] for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert paths <= {"a.md", "b.md"}
    assert not (vault / ".ora").exists()


def test_adopt_accepts_data_dir_like_every_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ora adopt` refused `--data` too (argparse, exit 2); a dry run writes nothing."""
    vault = _vault(tmp_path)
    status = main(["adopt", str(vault), "--data", str(tmp_path / "data"), "--json"])
    assert status == 0
    json.loads(capsys.readouterr().out)
    assert not (vault / ".ora").exists()


def test_judge_llm_asked_for_without_llm_url_is_refused(tmp_path: Path) -> None:
    """`--judge llm` with no llm_url used to judge every pair by rules, silently."""
    config = make_config(tmp_path, tmp_path / "data", llm_url="",
                         models_dir=str(tmp_path / "models"))
    with pytest.raises(BadRequest, match=r"judge llm is not available: llm_url is not set"):
        build_judge(config, "llm")
    with pytest.raises(BadRequest, match=r"judge nli is not available: no NLI model"):
        build_judge(config, "nli")
    assert build_judge(config, "rules").name == "rules"


def test_contradictions_scan_judge_llm_without_llm_url_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_LLM_URL", "")
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    vault = _vault(tmp_path)
    status = main(["contradictions", str(vault), "--data", str(tmp_path / "data"), "--scan",
                   "--judge", "llm", "--json"])
    captured = capsys.readouterr()
    assert status == 2
    assert "judge llm is not available" in captured.err and captured.out == ""


def test_models_pull_unknown_name_is_refused_before_announcing_a_download(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ORA_HF_ENDPOINT", "http://127.0.0.1:9")  # never contacted
    assert main(["models", "pull", "nonexistent-model"]) == 2
    err = capsys.readouterr().err
    assert "no model 'nonexistent-model' in the catalogue" in err
    assert "pulling" not in err
