"""A reader of keyword engines an older Ora built: `ora search` right after an upgrade, before any
`ora index`. A query is analysed by this version's rules; an engine built by other rules misses
its words, so the reader brings the engines in step when no writer holds the index."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from sidecar.index import bm25 as bm25_module
from sidecar.index import index as index_module
from sidecar.index import open_index
from sidecar.index.lock import WriterLock
from sidecar.language import languages
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import write

PERSIAN = "# سفر اصفهان\n\nامروز غذای محلی خوردیم و از میدان نقش جهان دیدن کردیم.\n"


def _built_by_an_older_ora(tmp_path: Path, embedder: Embedder,
                           monkeypatch: pytest.MonkeyPatch) -> Path:
    """A vault indexed by a writer whose analysis did not read Persian letters typed on an
    Arabic keyboard as one, recorded under its own engine version."""
    vault = tmp_path / "vault"
    write(vault, "Travel/Isfahan.md", PERSIAN)
    write(vault, "Travel/Shiraz.md", "# شیراز\n\nباغ ارم و حافظیه را دیدیم.\n")
    with monkeypatch.context() as older:
        older.setattr(languages, "_joined", lambda text: text if text.isascii()
                      else text.translate(languages._splitting_marks()))
        older.setattr(bm25_module, "VERSION", "an older analysis")
        with open_index(make_config(vault, tmp_path / "data"), embedder=embedder) as index:
            index.reconcile()
    return vault


def _bm25_paths(vault: Path, data: Path, embedder: Embedder, query: str) -> list[str]:
    with open_index(make_config(vault, data), writer=False, embedder=embedder) as index:
        hits = index.bm25_search(query, 5, private=False)
        chunks = index.get_chunks([cid for cid, _ in hits], private=False)
        return [chunks[cid].path for cid, _ in hits if cid in chunks]


@pytest.mark.parametrize("query", ["غذای محلی", "غذاي محلي"])  # as written; Arabic keyboard
def test_a_reader_brings_an_older_oras_keyword_engines_in_step(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch, query: str,
) -> None:
    vault = _built_by_an_older_ora(tmp_path, embedder, monkeypatch)
    # Before: the reader searched the older engine with this version's analysis and found
    # nothing, even for the words as the note writes them.
    assert _bm25_paths(vault, tmp_path / "data", embedder, query)[:1] == ["Travel/Isfahan.md"]


def test_with_a_writer_holding_the_index_the_reader_says_why_it_may_miss_notes(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    vault = _built_by_an_older_ora(tmp_path, embedder, monkeypatch)
    lock = WriterLock(tmp_path / "data")  # an older sidecar still serving the vault
    try:
        with caplog.at_level(logging.WARNING):
            _bm25_paths(vault, tmp_path / "data", embedder, "غذای محلی")
    finally:
        lock.release()
    assert "out of step with this version of Ora" in caplog.text


def test_a_reader_that_cannot_write_the_data_folder_still_searches_and_says_why(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    vault = _built_by_an_older_ora(tmp_path, embedder, monkeypatch)

    def refused(data: Path) -> None:
        raise PermissionError(13, "Permission denied", str(data / "lock"))

    monkeypatch.setattr(index_module, "WriterLock", refused)
    with caplog.at_level(logging.WARNING):
        _bm25_paths(vault, tmp_path / "data", embedder, "غذای محلی")  # no error
    assert "cannot be rebuilt here" in caplog.text
