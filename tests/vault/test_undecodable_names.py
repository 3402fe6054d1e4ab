"""One bad file never stops a run, and every error names its file: a note whose name is not
UTF-8, or holds a backslash, is skipped by `ora index`, `ora lint` and `ora contradictions
--scan` (and reported by name, as valid UTF-8), and `ora lint --fix` carries on past a note
whose YAML the editor refuses. Each command runs as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sidecar.vault.scan import iter_note_paths, unusable_names

ORA = str(Path(sys.executable).with_name("ora"))
NOTE = "---\ntype: engram\nnexus: []\ntags: [memory]\n---\n# {0}\n\nKettles need descaling {0}.\n"
BAD = b"bad\xff name.md"  # Latin-1 bytes, as an old archive or a foreign disk leaves them


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Engrams").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / "Engrams" / "Good.md").write_text(NOTE.format("good"), encoding="utf-8")
    (root / "Engrams" / "Zed.md").write_text(NOTE.format("zed"), encoding="utf-8")
    with open(os.fsencode(root / "Engrams") + b"/" + BAD, "wb") as bad:
        bad.write(NOTE.format("bad").encode())
    (root / os.fsdecode(b"Caf\xe9")).mkdir()  # a folder with such a name
    (root / os.fsdecode(b"Caf\xe9") / "Inside.md").write_text(NOTE.format("in"), encoding="utf-8")
    return root


def _ora(*args: str, data: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "ORA_EMBED_MODEL": "int8"}
    if data is not None:
        env["ORA_MODELS_DIR"] = str(data.parent / "models")
    done = subprocess.run([ORA, *args], capture_output=True, env=env, timeout=300)
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    return done


SHOWN = ["Caf\\xe9/Inside.md", "Engrams/bad\\xff name.md"]


def test_the_scan_skips_them_and_names_them(vault: Path) -> None:
    assert list(iter_note_paths(vault)) == ["Engrams/Good.md", "Engrams/Zed.md"]
    assert [shown for shown, _ in unusable_names(vault)] == SHOWN


def test_ora_index_runs_past_them_and_names_them(vault: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = _ora("index", str(vault), "--data", str(data), "--json", data=data)
    assert done.returncode == 0
    report = json.loads(done.stdout.decode("utf-8"))
    assert (report["files"], report["chunks"]) == (2, 2)
    assert [e["path"] for e in report["errors"]] == SHOWN
    scan = _ora("contradictions", str(vault), "--data", str(data), "--scan", data=data)
    assert scan.returncode == 0
    assert b"2 notes" in scan.stderr


def test_ora_lint_json_is_valid_utf8_and_names_them(vault: Path) -> None:
    done = _ora("lint", str(vault), "--json")
    doc = json.loads(done.stdout.decode("utf-8"))  # strict: no lone surrogate bytes
    named = [d["path"] for d in doc["diagnostics"] if d["code"] == "file-name-undecodable"]
    assert named == SHOWN
    assert done.returncode == 1


def test_ora_lint_fix_carries_on_past_yaml_the_editor_refuses(vault: Path) -> None:
    refused = vault / "Engrams" / "Good.md"
    text = NOTE.format("good").replace("type: engram\n", "type: engram\ntitle: Tab\t\tbed\n")
    refused.write_text(text, encoding="utf-8")
    done = _ora("lint", str(vault), "--fix")
    err = done.stderr.decode("utf-8")
    assert "cannot fix Engrams/Good.md: Engrams/Good.md: a tab on line" in err
    assert "filled dates in Engrams/Zed.md" in err
    assert refused.read_text(encoding="utf-8") == text
    assert "date created:" in (vault / "Engrams" / "Zed.md").read_text(encoding="utf-8")
    assert done.returncode == 1


def test_a_name_holding_a_backslash_is_skipped_and_named_not_read_as_another_note(
    vault: Path, tmp_path: Path,
) -> None:
    # Before: "Engrams\\Good.md" was read as the path Engrams/Good.md, another note: it was never
    # indexed and nothing said so.
    (vault / "Engrams\\Good.md").write_text(NOTE.format("slashed"), encoding="utf-8")
    data = tmp_path / "data"
    done = _ora("index", str(vault), "--data", str(data), "--json", data=data)
    report = json.loads(done.stdout.decode("utf-8"))
    assert (report["files"], report["chunks"]) == (2, 2)
    assert {e["path"]: e["message"] for e in report["errors"]}["Engrams\\Good.md"].startswith(
        "the name holds a backslash")
    lint = json.loads(_ora("lint", str(vault), "--json").stdout.decode("utf-8"))
    assert [d["path"] for d in lint["diagnostics"] if d["code"] == "file-name-backslash"] == [
        "Engrams\\Good.md"]


def test_a_document_whose_name_holds_a_backslash_is_named_not_skipped_in_silence(
    vault: Path, tmp_path: Path,
) -> None:
    # Before: `ora index` and `ora lint` said nothing of it (only `ora ingest` told why).
    (vault / "Papers\\Tides.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    data = tmp_path / "data"
    report = json.loads(_ora("index", str(vault), "--data", str(data), "--json",
                             data=data).stdout.decode("utf-8"))
    assert {e["path"]: e["message"] for e in report["errors"]}["Papers\\Tides.pdf"].startswith(
        "the name holds a backslash")
    assert report["documents"] == 0
    lint = json.loads(_ora("lint", str(vault), "--json").stdout.decode("utf-8"))
    assert [d["message"] for d in lint["diagnostics"] if d["path"] == "Papers\\Tides.pdf"] == [
        "the name holds a backslash (\\), which no file's name may hold in Obsidian, so Ora "
        "skips this file; rename it"]
