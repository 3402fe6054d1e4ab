"""`ora index` and `ora watch` as a user runs them: one JSON document, clear refusals."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.cli import watch as watch_cli
from sidecar.index import open_index
from sidecar.index.lock import WriterLock
from sidecar.index_params import load_params
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import KETTLE, write


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))


def _index(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["index", *args, "--json"]) == 0
    out = capsys.readouterr().out
    doc: dict[str, object] = json.loads(out)  # exactly one JSON document on stdout
    return doc


def test_index_json_then_incremental_then_rebuild(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    first = _index(capsys, str(vault), "--data", data)
    assert set(first) == {"files", "chunks", "documents", "embedded", "removed", "seconds",
                          "errors", "languages", "suggestion"}
    assert first["embedded"] == first["chunks"]
    assert _index(capsys, str(vault), "--data", data)["embedded"] == 0
    rebuilt = _index(capsys, str(vault), "--data", data, "--rebuild")
    assert rebuilt["embedded"] == rebuilt["chunks"] == first["chunks"]


def test_the_progress_lines_count_files_then_chunks(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The embedding pass counts chunks: it said "files 12/12" of a vault of 5 files.
    write(vault, "Resources/Long.md", "\n\n".join(
        f"## Part {n}\n\n" + f"Section {n} of the long note. " * 60 for n in range(4)))
    assert main(["index", str(vault), "--data", str(tmp_path / "data"), "--json"]) == 0
    out, err = capsys.readouterr()
    result, lines = json.loads(out), err.splitlines()
    files = [m.groups() for line in lines if (m := re.search(r" files (\d+)/(\d+) ", line))]
    chunks = [m.groups() for line in lines if (m := re.search(r" chunks (\d+)/(\d+) ", line))]
    assert files and {total for _, total in files} == {"5"}
    assert chunks and {total for _, total in chunks} == {str(result["chunks"])} != {"5"}


def test_first_index_with_auto_builds_the_embedders_and_uses_q8(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "auto")  # as on a fresh install: nothing built yet
    data = tmp_path / "data"
    assert main(["index", str(vault), "--data", str(data), "--json"]) == 0
    assert "building the fp32, int8 (q8) and multilingual embedders" in capsys.readouterr().err
    saved = load_params(data)["namespaces"]["default"]
    assert ":q8:" in json.dumps(saved)  # the index's model id names the variant


def test_first_index_of_a_spanish_vault_with_auto_uses_the_multilingual_embedder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "auto")  # as on a fresh install: nothing built yet
    vault = tmp_path / "Bóveda"
    write(vault, "Incrustar archivos.md", "Puedes incrustar el contenido de una nota dentro de "
          "otra: escribe un signo de exclamación delante del enlace y la nota aparece entera.\n")
    write(vault, "Etiquetas.md", "Las etiquetas son palabras clave que te ayudan a encontrar las "
          "notas del mismo tema. Se escriben con una almohadilla.\n")
    write(vault, "Kettle.md", KETTLE)
    data = tmp_path / "data"
    assert main(["index", str(vault), "--data", str(data), "--json"]) == 0
    told = capsys.readouterr()
    result = json.loads(told.out)
    assert "most notes are not in English: embedding them with use-multilingual-v3" in told.err
    saved = load_params(data)["namespaces"]["default"]
    assert str(saved["model"]).startswith("use-multilingual-v3:onnx:")
    assert result["suggestion"] is None  # nothing to offer: the embedder knows Spanish
    # and it stays the index's embedder when the vault turns mostly English
    for n in range(4):
        write(vault, f"Garden {n}.md", "The tomatoes need sun and water every day.\n")
    assert main(["index", str(vault), "--data", str(data), "--json"]) == 0
    assert "not in English" not in capsys.readouterr().err  # said once, for the new index
    assert load_params(data)["namespaces"]["default"]["model"] == saved["model"]


def test_index_refuses_while_another_writer_holds_the_lock(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = WriterLock(tmp_path / "data")
    try:
        assert main(["index", str(vault), "--data", str(tmp_path / "data"), "--json"]) == 2
    finally:
        lock.release()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"being written by process {os.getpid()}" in captured.err


def test_the_vault_itself_is_refused_as_the_data_folder(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.name for p in vault.iterdir())
    assert main(["index", str(vault), "--data", str(vault)]) == 2
    assert "data folder cannot be the vault itself" in capsys.readouterr().err
    assert sorted(p.name for p in vault.iterdir()) == before  # no index file among the notes


def test_watch_indexes_then_follows_until_interrupted(vault: Path, tmp_path: Path) -> None:
    ora = str(Path(sys.executable).parent / "ora")
    proc = subprocess.Popen(
        [ora, "watch", str(vault), "--data", str(tmp_path / "data")],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "ORA_DEBOUNCE_MS": "100"},
    )  # fmt: skip
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            if "watching" in line:
                break
        time.sleep(0.5)
        write(vault, "Engrams/Kettle.md", KETTLE.replace("Vinegar", "Lemon juice"))
        for line in proc.stderr:
            if "applied" in line:
                assert "embedded 1" in line
                break
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0


def test_watch_catches_up_on_a_note_made_private_during_its_start_up_reconcile(
    vault: Path, tmp_path: Path, embedder: Embedder
) -> None:
    kettle = "Engrams/Kettle.md"
    config = make_config(vault, tmp_path / "data", debounce_ms=100)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()  # ora watch's start-up reconcile, which read the note while public
        write(vault, kettle, KETTLE.replace("tags: []", 'tags: ["private"]'))

        def private() -> bool:
            return index.ledger.rows(index.namespace, [kettle])[kettle].private

        async def follow() -> None:
            following = asyncio.create_task(watch_cli._follow(index, embedder))
            for _ in range(400):  # a bound, not a timing: the catch-up takes well under it
                if private() or following.done():
                    break
                await asyncio.sleep(0.05)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C: _follow's handler stops it
            await following

        asyncio.run(follow())
        assert private()
        assert index.bm25_search("vinegar", 5, private=False) == []


def test_ora_index_and_search_find_a_broken_frontmatter_note_in_private_mode_only(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "Inbox/Trip.md", "---\ntitle: Lisbon: day one\n---\nTram 28 climbs to Alfama.\n")
    data = str(tmp_path / "data")
    assert main(["index", str(vault), "--data", data]) == 0
    told = capsys.readouterr().out
    assert ("  Inbox/Trip.md: indexed as private, by its body only, until its frontmatter is "
            "valid: line 2: mapping values are not allowed") in told
    assert "not indexed" not in told

    def found(*flags: str) -> list[dict[str, object]]:
        args = ["search", str(vault), "tram alfama", "--data", data, "--no-rerank", "--json"]
        assert main([*args, *flags]) == 0
        results: list[dict[str, object]] = json.loads(capsys.readouterr().out)["results"]
        return [r for r in results if r["path"] == "Inbox/Trip.md"]

    assert found() == []
    hit, = found("--private")
    assert hit["private"] is True and hit["text"] == "Tram 28 climbs to Alfama."
    assert hit["line_start"] == 4


def _vault_beside_a_german_and_an_english_note(vault: Path, notes: dict[str, str]) -> Path:
    """`vault` holding `notes` (name: text), a German note and an English one."""
    write(vault, "Notizen.md", "Die Anzahl der Wörter zeigt, wie lang eine Notiz ist und wie "
          "viele Zeichen sie hat.\n")
    for name, text in notes.items():
        write(vault, name, text)
    write(vault, "Garden.md", "The tomatoes need sun and water every day in the summer.\n")
    return vault


def test_index_names_a_chinese_note_chinese_in_a_mixed_vault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # A Chinese note has no stopwords to count: it was given the default, English, so a
    # Chinese vault looked English and was never offered the multilingual model.
    vault = _vault_beside_a_german_and_an_english_note(tmp_path / "mixed", {
        "字数统计.md": "在设置中打开字数统计插件，状态栏会显示当前笔记的字数和字符数。"
                       "你也可以在 [[Obsidian]] 的 [[Settings]] 中关闭它。\n"})
    data = str(tmp_path / "data")
    assert main(["index", str(vault), "--data", data, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["languages"] == {"de": 0.333, "en": 0.333, "zh": 0.333}
    assert result["suggestion"]["model"] == "use-multilingual-v3"


def test_index_suggests_the_multilingual_model_for_a_vault_mostly_not_in_english(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = _vault_beside_a_german_and_an_english_note(tmp_path / "german", {
        "Vorlagen.md": "Mit einer Vorlage fügst du Text ein, den du immer wieder brauchst, in die "
                       "aktuelle Notiz.\n"})
    data = str(tmp_path / "data")
    assert main(["index", str(vault), "--data", data, "--json"]) == 0
    told = capsys.readouterr()
    result = json.loads(told.out)
    assert result["languages"] == {"de": 0.667, "en": 0.333}
    assert result["suggestion"]["model"] == "use-multilingual-v3"
    said = result["suggestion"]["message"]
    assert "67% of the notes are not in English" in said
    assert "set ORA_EMBED_MODEL=use-multilingual-v3" in said
    assert "it comes with Ora (`ora models build` builds it)" in said
    # int8 was set on purpose (this module's ORA_EMBED_MODEL): not offered on stderr each run
    assert "ORA_EMBED_MODEL=" not in told.err
    # with what it costs: nothing to download, and the re-embedding timed on this index
    offer = result["suggestion"]
    assert offer["packaged"] is True and offer["download_mb"] is None
    assert offer["installed"] is False  # this test's models folder has none built
    assert offer["chunks"] == result["chunks"] and offer["estimate_s"] >= 0
    assert "a download of" not in said
    assert re.search(rf"Re-embedding the index's {result['chunks']} chunks takes "
                     r"(about \d+ (s|min)|under a second) on this machine", said)
    write(vault, "More.md", "This note is in English, as are most of the notes now, and it is "
          "about the garden.\n")
    write(vault, "Even more.md", "And this one is in English too, about the kettle.\n")
    assert main(["index", str(vault), "--data", data, "--json"]) == 0
    told = capsys.readouterr()
    assert json.loads(told.out)["suggestion"] is None and "not in English" not in told.err


def test_search_says_the_vault_s_exclusions_leave_out_every_note_not_that_the_index_is_empty(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    search = ["search", str(vault), "vinegar", "--data", data, "--no-rerank", "--json"]
    assert main(search) == 0  # never indexed: that is what to do
    assert f"is empty: run `ora index {vault}` first" in capsys.readouterr().err
    write(vault, "ora.yaml", 'exclude:\n  - "**/*.md"\n')
    assert main(["index", str(vault), "--data", data]) == 0
    capsys.readouterr()
    assert main(search) == 0
    told = capsys.readouterr()
    assert json.loads(told.out)["results"] == []
    assert "leave out all 4 of its notes" in told.err and "run `ora index" not in told.err
