"""An ora.yaml that cannot be used never makes a private note public: its settings are those of the
text it last had (this process's, or the index's data folder's), and with none Ora refuses to
plan notes rather than take the defaults."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.errors import InvalidSettings
from sidecar.vault import settings_memory
from sidecar.vault.vault_settings import known_privacy, load_vault_settings

GOOD = "private:\n  - Diario/\nexclude: [Archivo/]\n"
BROKEN = {
    "invalid YAML": GOOD + "lint: [hint\n",
    "a private value that is no list": "private: 5\n",
    "an exclude value that is no list": "private: [Diario/]\nexclude: {Archivo: yes}\n",
    "not a mapping": "- Diario/\n",
    # PyYAML kept the last `private`: Diario/ became public (fails on the code before).
    "a key given twice": GOOD + "private:\n  - Otro/\n",
    # Read as an unknown setting: Diario/ became public (fail on the code before).
    "private misspelt": "privte:\n  - Diario/\nexclude: [Archivo/]\n",
    "private capitalised": "Private:\n  - Diario/\nexclude: [Archivo/]\n",
    "exclude misspelt": "private:\n  - Diario/\nexcluded: [Archivo/]\n",
}
# The brief's file: two `private:` keys, the first one's folder must stay private.
TWICE = "exclude:\n  - Archivo/\nprivate:\n  - Diario/\nprivate:\n  - Otro/\n"


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ORA_RERANKER_DIR", str(tmp_path / "models" / "none"))


def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """As another process: no settings remembered in memory."""
    monkeypatch.setattr(settings_memory, "_memory", {})


def _vault(tmp_path: Path, settings: str) -> Path:
    vault = tmp_path / "vault"
    for folder, text in (("Diario", "Mi secreto: la clave del banco es zafiro azul."),
                         ("Notas", "Notas sobre pan, zafiro y masa madre."),
                         ("Archivo", "Un zafiro viejo del archivo.")):
        (vault / folder).mkdir(parents=True)
        (vault / folder / "nota.md").write_text(text + "\n", encoding="utf-8")
    (vault / "ora.yaml").write_text(settings, encoding="utf-8")
    return vault


@pytest.mark.parametrize("text", list(BROKEN.values()), ids=list(BROKEN))
def test_a_file_broken_after_a_good_one_keeps_its_last_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str,
) -> None:
    # Before: the defaults, with no private folder and nothing excluded.
    vault, data = _vault(tmp_path, GOOD), tmp_path / "data"
    data.mkdir()
    assert load_vault_settings(vault, data).private == ("Diario/",)
    (vault / "ora.yaml").write_text(text, encoding="utf-8")
    for fresh in (False, True):  # this process's memory, then the data folder's copy
        if fresh:
            _fresh_process(monkeypatch)
        settings = known_privacy(load_vault_settings(vault, data))
        assert settings.private == ("Diario/",) and settings.exclude == ("Archivo/",)
        assert "its settings are those it last had" in settings.problems[-1]


def test_with_no_last_settings_a_broken_file_is_refused_not_defaulted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fresh_process(monkeypatch)
    settings = load_vault_settings(_vault(tmp_path, BROKEN["invalid YAML"]), tmp_path / "none")
    assert settings.unsafe
    with pytest.raises(InvalidSettings, match="cannot tell which notes are private"):
        known_privacy(settings)


def test_an_emptied_file_is_taken_for_one_being_saved_and_braces_for_the_defaults(
    tmp_path: Path,
) -> None:
    # A deleted file is no longer the defaults at once: test_settings_missing_file.py.
    vault = _vault(tmp_path, GOOD)
    assert load_vault_settings(vault, data=None).private == ("Diario/",)
    (vault / "ora.yaml").write_text("", encoding="utf-8")  # an editor mid-save
    emptied = load_vault_settings(vault, data=None)
    assert emptied.private == ("Diario/",) and "the file is empty" in emptied.problems[0]
    (vault / "ora.yaml").write_text("{}\n", encoding="utf-8")
    assert load_vault_settings(vault, data=None).private == ()
    (vault / "ora.yaml").write_text(GOOD, encoding="utf-8")
    assert load_vault_settings(vault, data=None).private == ("Diario/",)


def _search(capsys: pytest.CaptureFixture[str], vault: Path, data: Path) -> set[str]:
    assert main(["search", str(vault), "zafiro", "--data", str(data), "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return {r["path"] for r in doc["results"]}


def test_a_typo_in_ora_yaml_never_makes_a_private_note_searchable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: `ora index` after the typo indexed Diario/ as public and Archivo/ at all, and a
    # search outside private mode found the secret.
    vault, data = _vault(tmp_path, GOOD), tmp_path / "data"
    assert main(["index", str(vault), "--data", str(data)]) == 0
    capsys.readouterr()
    assert _search(capsys, vault, data) == {"Notas/nota.md"}
    (vault / "ora.yaml").write_text(BROKEN["invalid YAML"], encoding="utf-8")
    _fresh_process(monkeypatch)  # the next command is another process
    assert main(["index", str(vault), "--data", str(data)]) == 0
    capsys.readouterr()
    assert _search(capsys, vault, data) == {"Notas/nota.md"}

    # A vault never indexed, its file broken: nothing is indexed, and the error says why.
    _fresh_process(monkeypatch)
    other = _vault(tmp_path / "other", BROKEN["a private value that is no list"])
    capsys.readouterr()
    assert main(["index", str(other), "--data", str(tmp_path / "other-data")]) != 0
    assert "cannot tell which notes are private" in capsys.readouterr().err


def test_a_key_given_twice_never_makes_a_private_folder_public(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: the second `private:` silently replaced the first, `problems` was empty, and
    # `ora index` put Diario/ in the public store: a search outside private mode found it.
    _fresh_process(monkeypatch)
    never = load_vault_settings(_vault(tmp_path / "never", TWICE), tmp_path / "none")
    assert never.unsafe  # no last settings: refused, never the defaults or the last key
    assert "the key 'private' is given twice (lines 3 and 5)" in never.problems[0]
    with pytest.raises(InvalidSettings, match="cannot tell which notes are private"):
        known_privacy(never)

    vault, data = _vault(tmp_path, GOOD), tmp_path / "data"
    assert main(["index", str(vault), "--data", str(data)]) == 0
    capsys.readouterr()
    (vault / "ora.yaml").write_text(TWICE, encoding="utf-8")
    for fresh in (False, True):  # this process's memory, then the data folder's copy
        if fresh:
            _fresh_process(monkeypatch)
        settings = known_privacy(load_vault_settings(vault, data))
        assert settings.private == ("Diario/",), settings
        assert "given twice" in settings.problems[0]
    assert main(["index", str(vault), "--data", str(data)]) == 0
    capsys.readouterr()
    assert _search(capsys, vault, data) == {"Notas/nota.md"}

    # A last text kept by an Ora that let a key be given twice: unknown, so refused.
    _fresh_process(monkeypatch)
    (data / "ora.yaml.last-good").write_text(TWICE, encoding="utf-8")
    assert load_vault_settings(vault, data).unsafe


def test_writers_of_one_kept_file_at_once_each_write_a_temporary_file_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: one fixed `.tmp` name; a second writer (a thread, another process) finishing
    # between the first one's write and rename took its file away, or had it renamed.
    kept = tmp_path / "ora.yaml.last-good"
    real = os.replace
    calls: list[str] = []

    def interleaved(src: Any, dst: Any) -> None:
        calls.append(str(src))
        if len(calls) == 1:  # the second writer, all of it, before the first one renames
            settings_memory._write(kept, "second\n")
        real(src, dst)

    monkeypatch.setattr(settings_memory.os, "replace", interleaved)
    settings_memory._write(kept, "first\n")
    assert kept.read_text(encoding="utf-8") == "first\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [kept.name]
