"""`ora search` and `ora eval` through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.server.openapi import openapi_document

from .conftest import IndexVault, NoteSpec

PASSAGE = "Spaced repetition schedules reviews at growing intervals to strengthen memory."

DOCS = {
    "d1": ("Photosynthesis", "Chlorophyll absorbs sunlight to convert carbon dioxide into sugar."),
    "d2": ("Volcanoes", "Magma rises through the crust and erupts as lava and ash."),
    "d3": ("Tides", "The moon's gravity pulls the oceans, raising tides twice a day."),
    "d4": ("Antibiotics", "Penicillin kills bacteria by breaking their cell walls."),
    "d5": ("Glaciers", "Compacted snow flows downhill as slow rivers of ice."),
}
QUERIES = {"q1": "how does chlorophyll use sunlight", "q2": "penicillin bacteria cell walls",
           "q3": "moon gravity ocean tides"}
QRELS = {"q1": "d1", "q2": "d4", "q3": "d3"}


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI embeds queries with the model the index used (the int8 test embedder).
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")


def test_search_json_is_one_document_with_cited_results(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = index_vault([
        NoteSpec("Engrams/Spacing.md", "engram", PASSAGE, tags=["incubating"]),
        NoteSpec("Engrams/Diary.md", "engram", PASSAGE, tags=["private"]),
    ])
    status = main(["search", str(vault.config.vault), "spaced repetition", "--json", "--k", "3"])
    document = json.loads(capsys.readouterr().out)
    assert status == 0 and document["query"] == "spaced repetition"
    assert [r["path"] for r in document["results"]] == ["Engrams/Spacing.md"]
    assert document["results"][0]["flags"] == ["incubating"]


def test_search_human_output_numbers_and_cites_results(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = index_vault([NoteSpec("Engrams/Spacing.md", "engram", PASSAGE, tags=["private"])])
    main(["search", str(vault.config.vault), "spaced repetition", "--private", "--no-rerank"])
    out = capsys.readouterr().out
    assert " 1. Engrams/Spacing.md:" in out and "[private]" in out
    assert "re-rank: none (re-ranking turned off for this query)" in out
    assert "Spaced repetition schedules" in out


def _write_beir(folder: Path) -> list[str]:
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(
        json.dumps({"_id": d, "title": t, "text": x}) + "\n" for d, (t, x) in DOCS.items()
    ))
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in QUERIES.items())
    )
    qrels = folder / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\n"
                     + "".join(f"{q}\t{d}\t1\n" for q, d in QRELS.items()))
    return ["--corpus", str(corpus), "--queries", str(folder / "queries.jsonl"),
            "--qrels", str(qrels), "--cache", str(folder / "cache")]


def test_eval_scores_every_mode_and_reuses_cached_vectors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["eval", *_write_beir(tmp_path), "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["modes"]) == {"bm25", "dense", "hybrid", "default"}
    for scores in result["modes"].values():
        # Each query names its document's distinctive words: every mode finds it first.
        assert scores == {"ndcg@10": 1.0, "recall@100": 1.0}
    assert result["queries"] == 3 and result["documents"] == 5
    cached = sorted((tmp_path / "cache").iterdir())
    assert len(cached) == 1
    assert main(["eval", *_write_beir(tmp_path), "--mode", "bm25", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert list(again["modes"]) == ["bm25"]
    assert sorted((tmp_path / "cache").iterdir()) == cached


@pytest.mark.parametrize("command", [
    ["search", "{vault}", "anything"], ["related", "{vault}", "Note.md"], ["index", "{vault}"],
    ["contradictions", "{vault}"], ["ask", "{vault}", "anything"],
    ["web", "save", "https://example.org/", "--vault", "{vault}", "--text", "A page."],
])
@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_path_that_is_not_a_vault_folder_is_a_clear_error_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], kind: str
) -> None:
    """A mistyped vault path used to answer "0 results" (and leave PATH/.ora behind), or fail
    with a traceback when it named a file."""
    target = tmp_path / "Notse"
    if kind == "file":
        target.write_text("not a folder\n", encoding="utf-8")
    status = main([part.format(vault=target) for part in command])
    assert status != 0
    assert "is not a vault folder" in capsys.readouterr().err
    assert (target.is_file() if kind == "file" else not target.exists())


@pytest.mark.parametrize(("command", "request_schema"), [
    (["search", "VAULT", "tea"], "SearchRequest"),
    (["ask", "VAULT", "tea?"], "AskRequest"),
    (["related", "VAULT", "Tea.md"], "RelatedRequest"),
])
def test_k_is_bounded_as_the_api_bounds_it(
    command: list[str], request_schema: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ora search --k 1000000000` asked tantivy for 32 GB and aborted the process."""
    api = openapi_document()["components"]["schemas"][request_schema]["properties"]["k"]
    args = [str(tmp_path) if a == "VAULT" else a for a in command]
    for k in (1_000_000_000, api["maximum"] + 1, 0):
        with pytest.raises(SystemExit) as stopped:
            main([*args, "--k", str(k)])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert f"--k: must be from {api['minimum']} to {api['maximum']}, not {k}" in err
