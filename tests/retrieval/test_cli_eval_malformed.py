"""`ora eval` on malformed BEIR files: one line naming file:line and exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.retrieval.beir import load_qrels

CORPUS = json.dumps({"_id": "d1", "text": "hello"}) + "\n"
QUERIES = json.dumps({"_id": "q1", "text": "hello"}) + "\n"
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"


def _eval(tmp_path: Path, corpus: str = CORPUS, queries: str = QUERIES,
          qrels: str = QRELS) -> int:
    """Write the three files and run `ora eval --mode bm25` on them."""
    for name, text in (("corpus.jsonl", corpus), ("queries.jsonl", queries),
                       ("qrels.tsv", qrels)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return main(["eval", "--corpus", str(tmp_path / "corpus.jsonl"),
                 "--queries", str(tmp_path / "queries.jsonl"),
                 "--qrels", str(tmp_path / "qrels.tsv"), "--mode", "bm25",
                 "--cache", str(tmp_path / "cache"), "--json"])


@pytest.mark.parametrize(("files", "where"), [
    ({"qrels": "query-id\tcorpus-id\tscore\nq1\td1\tx\n"}, "qrels.tsv:2"),
    ({"qrels": "query-id\tcorpus-id\tscore\nq1\td1\t0.5\n"}, "qrels.tsv:2"),
    ({"queries": json.dumps({"id": "q1", "text": "hello"}) + "\n"}, "queries.jsonl:1"),
    ({"queries": json.dumps({"_id": "q1"}) + "\n"}, "queries.jsonl:1"),
    ({"corpus": CORPUS + json.dumps({"_id": "d2"}) + "\n"}, "corpus.jsonl:2"),
    ({"corpus": "[1, 2]\n"}, "corpus.jsonl:1"),
    ({"corpus": "\"just a string\"\n"}, "corpus.jsonl:1"),
])
def test_eval_malformed_beir_row_is_one_line_naming_file_and_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], where: str
) -> None:
    """These used to escape as ValueError / KeyError / TypeError tracebacks."""
    assert _eval(tmp_path, **files) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ora eval: ") and where in err
    assert "\n" not in err


def test_integral_float_qrels_score_is_read_as_an_integer(tmp_path: Path) -> None:
    """Some converters write `1.0`; BEIR means an integer relevance, so it reads as 1."""
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1.0\nq1\td2\t0\n", encoding="utf-8")
    assert load_qrels(qrels) == {"q1": {"d1": 1, "d2": 0}}


def test_eval_help_shows_the_cache_default_under_home_as_tilde(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """The expanded /root/... path was machine-specific; `~/...` is what a user types."""
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default ~/" in out.replace("~/ ", "~/")
    assert str(Path.home()) + "/" not in out
