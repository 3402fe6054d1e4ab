from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.models import multilingual
from sidecar.models.embedder import open_embedder


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for env in ("ORA_MODELS_DIR", "ORA_RERANKER_DIR", "ORA_NLI_DIR", "ORA_COHERE_API_KEY",
                "ORA_LLM_URL", "ORA_EMBED_MODEL"):
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path))
    return tmp_path


def test_report_on_a_fresh_machine_says_what_is_missing_and_how_to_add_it(
    models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _run_json(capsys, "models", "--json")
    emb = report["embedder"]
    assert emb["chosen"] == "int8" and emb["available"] == ["int8"]
    assert emb["model_id"].startswith("all-MiniLM-L6-v2:int8:")
    assert emb["variants"]["fp32"]["available"] is False
    assert report["reranker"]["available"] is False
    assert "optimum-cli export onnx --model cross-encoder/ms-marco-MiniLM-L-6-v2" in (
        report["reranker"]["instructions"])
    assert str(models_dir / "reranker") in report["reranker"]["instructions"]
    assert "cross-encoder/nli-deberta-v3-xsmall" in report["nli"]["instructions"]
    assert report["llm_judge"] == {"configured": False, "url": None, "model": None}


def test_report_finds_models_named_by_settings(
    models_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    tiny_reranker_dir: Path, tiny_nli_dir: Path,
) -> None:
    monkeypatch.setenv("ORA_RERANKER_DIR", str(tiny_reranker_dir))
    monkeypatch.setenv("ORA_NLI_DIR", str(tiny_nli_dir))
    monkeypatch.setenv("ORA_LLM_URL", "http://127.0.0.1:8080/v1")
    report = _run_json(capsys, "models", "--json")
    assert report["reranker"]["available"] and report["reranker"]["name"].startswith("onnx:")
    assert report["nli"]["available"] and report["llm_judge"]["configured"]


def test_human_report_mentions_build_command(
    models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "ora models build" in out
    # a model not pulled yet says about how much its pull downloads
    assert ("pullable embedder multilingual-e5-small (intfloat/multilingual-e5-small): "
            "ora models pull multilingual-e5-small (about 487 MB)") in out


def test_build_makes_fp32_and_q8_then_auto_chooses_q8_and_rebuild_is_skipped(
    models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _run_json(capsys, "models", "build", "--json")
    assert first["built"] is True and Path(first["path"]).is_file()
    assert first["q8"]["built"] is True and Path(first["q8"]["path"]).is_file()
    again = _run_json(capsys, "models", "--json", "build")
    assert again["built"] is False and again["q8"]["built"] is False
    emb = _run_json(capsys, "models", "--json")["embedder"]
    assert emb["chosen"] == "q8" and emb["available"] == ["q8", "fp32", "int8"]


def test_requesting_unbuilt_fp32_is_reported(
    models_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "fp32")
    emb = _run_json(capsys, "models", "--json")["embedder"]
    assert emb["chosen"] is None and "ora models build" in emb["reason"]


def test_report_says_the_multilingual_embedder_is_not_built_and_how_to_build_it(
    models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emb = _run_json(capsys, "models", "--json")["embedder"]
    assert emb["multilingual"] == {
        "name": multilingual.NAME, "available": False, "about": multilingual.spec()["about"],
        "file": None, "model_id": None}
    assert main(["models"]) == 0
    assert (f"multilingual embedder {multilingual.NAME}: not built; build it with "
            f"`ora models build`, then set ORA_EMBED_MODEL={multilingual.NAME}"
            ) in capsys.readouterr().out


def test_report_names_the_built_multilingual_embedder_and_its_vectors_id_once_chosen(
    models_dir: Path, multilingual_models: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_MODELS_DIR", str(multilingual_models))
    monkeypatch.chdir(tmp_path)
    emb = _run_json(capsys, "models", "--json")["embedder"]
    built = emb["multilingual"]
    # The id the embedder itself stores with its vectors, so the plugin can tell it is in use.
    used = open_embedder(multilingual.NAME, multilingual_models, defer=True).model_id
    assert built["available"] is True and built["model_id"] == used
    assert built["model_id"].startswith(f"{multilingual.NAME}:onnx:")
    assert built["file"] == str(multilingual.model_file(multilingual_models))
    assert emb["chosen"] == "int8"  # built, but `auto` keeps English for a vault not mostly foreign
    assert emb["english_only"] is True  # so the settings offer the multilingual embedder
    assert main(["models"]) == 0
    assert (f"multilingual embedder {multilingual.NAME}: built; use it with "
            f"ORA_EMBED_MODEL={multilingual.NAME} (the index re-embeds)") in capsys.readouterr().out

    monkeypatch.setenv("ORA_EMBED_MODEL", multilingual.NAME)
    chosen = _run_json(capsys, "models", "--json")["embedder"]
    assert chosen["chosen"] == multilingual.NAME and chosen["english_only"] is False
    assert (chosen["model_id"], chosen["file"]) == (used, built["file"])
    assert main(["models"]) == 0
    assert f"multilingual embedder {multilingual.NAME}: built, in use" in capsys.readouterr().out


def test_report_walks_no_folder_to_choose_an_embedder(
    multilingual_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `ora models` runs from any folder: from / it sampled the whole file system as a vault's
    # notes for their language (10.9 s against 1.8 s).
    import sidecar.models.choice as choice

    def walked(vault: Path) -> dict[str, float]:
        raise AssertionError(f"{vault} was sampled")

    monkeypatch.setattr(choice, "vault_shares", walked)
    monkeypatch.setenv("ORA_MODELS_DIR", str(multilingual_models))
    for n in range(3):
        (tmp_path / f"{n}.md").write_text("La nota de hoy habla de la masa madre y del horno.\n",
                                          encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert _run_json(capsys, "models", "--json")["embedder"]["chosen"] == "int8"
