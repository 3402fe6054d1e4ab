"""Ora's own edits of ora.yaml always read back as meant: an entry YAML would misread is quoted,
and what is written is read back by the reader first, refused unless it reads as the edit meant.
Before, excluding a folder named `? q/` wrote `exclude: [Old/, ? q/]`, which the next edit turned
into `q/: null`; `: x/` made the file invalid YAML; `No` and `yes` became booleans."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from sidecar.errors import InvalidSettings
from sidecar.vault import settings_edit, settings_memory
from sidecar.vault.settings_edit import add_lint_ignore, set_excluded
from sidecar.vault.settings_yaml import load_settings_yaml
from sidecar.vault.vault_settings import load_vault_settings

START = {
    "flow": "# mine\nprivate: [Health/]  # keep\nexclude: [Old/]\nlint: {ignore: [Old/]}\n",
    "block": "# mine\nprivate:\n  - Health/  # keep\nexclude:\n  - Old/\nlint:\n  ignore:\n"
             "    - Old/\n",
}
ENTRIES = ["? q/", ": x/", "No", "yes", "~", "null", "true", "2024", "1:20", "0o17", "1e3",
           "#tag/", "a: b/", "x #y/", "[x]/", "{y}/", "'q'/", '"dq/', "*star*/", "&anc/",
           "!bang/", "%pct/", "@at/", "`bt/", "|pipe/", ">gt/", "- dash/", "-", "?", ":",
           "a\tb/", "a\u2028b/", "a\u0085b/", "\ufeffbom/", "é/", "Daily notes/"]


def _vault(tmp_path: Path, text: str) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_text(text, encoding="utf-8")
    return vault


@pytest.mark.parametrize("style", list(START))
@pytest.mark.parametrize("entry", ENTRIES)
def test_an_entry_yaml_would_misread_is_written_so_it_reads_back_as_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, style: str, entry: str,
) -> None:
    vault = _vault(tmp_path, START[style])
    set_excluded(vault, entry, True, data_folder=None)
    add_lint_ignore(vault, entry, data_folder=None)
    set_excluded(vault, "Next/", True, None)  # a second round trip over the entry as written
    add_lint_ignore(vault, "Next/", data_folder=None)
    text = (vault / "ora.yaml").read_text(encoding="utf-8")
    raw = load_settings_yaml(text)
    assert raw["exclude"] == ["Old/", entry, "Next/"], text
    assert raw["lint"]["ignore"] == ["Old/", entry, "Next/"], text
    assert raw["private"] == ["Health/"] and "# mine" in text and "# keep" in text
    # a YAML 1.1 reader too (PyYAML's own), so no other tool reads `No` as false
    assert yaml.safe_load(text)["exclude"] == ["Old/", entry, "Next/"]
    monkeypatch.setattr(settings_memory, "_memory", {})  # another process: no last settings
    settings = load_vault_settings(vault, data=None)
    assert settings.problems == () and not settings.unsafe
    assert settings.private == ("Health/",) and len(settings.exclude) == 3
    assert set_excluded(vault, entry, False, None).exclude == ("Old/", "Next/")  # found to remove


def test_plain_entries_stay_plain(tmp_path: Path) -> None:
    vault = _vault(tmp_path, START["block"])
    set_excluded(vault, "Daily notes/", True, data_folder=None)
    set_excluded(vault, "Santé/", True, data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == START["block"].replace(
        "  - Old/\nlint", "  - Old/\n  - Daily notes/\n  - Santé/\nlint")


def test_a_write_that_would_not_read_back_as_meant_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever the splice or ruamel writes is read by the reader before the file is replaced:
    here both lose `private` (as `? q/` turned into a key): refused, and nothing is written."""
    real, real_splice = settings_edit._dump, settings_edit.splice_list

    def losing(y: Any, doc: Any, layout: Any) -> bytes:
        doc.pop("private")
        return real(y, doc, layout)

    def losing_splice(*args: Any) -> str | None:
        text = real_splice(*args)
        return None if text is None else text.replace("  - Health/  # keep\n", "")

    monkeypatch.setattr(settings_edit, "_dump", losing)
    monkeypatch.setattr(settings_edit, "splice_list", losing_splice)
    vault = _vault(tmp_path, START["block"])
    with pytest.raises(InvalidSettings, match=r"would not read back from ora\.yaml as intended"):
        set_excluded(vault, "Drafts/", True, data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == START["block"]


@pytest.mark.parametrize("text", ["private: 5\nexclude: [Old/]\n",
                                  "privte: [Health/]\nexclude: [Old/]\n"])
def test_a_file_the_reader_would_not_use_is_not_edited(tmp_path: Path, text: str) -> None:
    # Before: the entry was written and the route said 200, but the reader kept the settings
    # the file last had, so the edit never applied.
    vault = _vault(tmp_path, text)
    with pytest.raises(InvalidSettings, match=r"cannot be used as it is .*an edit would not apply"):
        set_excluded(vault, "Drafts/", True, data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == text
