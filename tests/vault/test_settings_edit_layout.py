"""An edit of ora.yaml changes the lines it edits and no others (settings_text.py): the file's
byte-order mark, line ends, document markers, indentation and long lines stay as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.vault.settings_edit import add_lint_ignore
from sidecar.vault.vault_settings import load_vault_settings

_ADDED = b"lint:\n  ignore:\n    - New folder/\n"
_LONG = b"private: [" + b", ".join(b"Folder%03d/" % i for i in range(30)) + b"]\n"
CASES: dict[str, tuple[bytes, bytes]] = {
    "byte-order mark": (b"\xef\xbb\xbfprivate:\n  - Health/\n",
                        b"\xef\xbb\xbfprivate:\n  - Health/\n" + _ADDED),
    "byte-order mark, Windows": (
        b"\xef\xbb\xbfprivate:\r\n  - Health/\r\n",
        b"\xef\xbb\xbfprivate:\r\n  - Health/\r\n" + _ADDED.replace(b"\n", b"\r\n")),
    "document markers": (b"---\nprivate:\n  - Health/\n...\n",
                         b"---\nprivate:\n  - Health/\n" + _ADDED + b"...\n"),
    "comments around the markers": (
        b"# mine\n---\nprivate: [Health/]\n...\n# the end\n",
        b"# mine\n---\nprivate: [Health/]\n" + _ADDED + b"...\n# the end\n"),
    "a YAML 1.1 directive": (
        b"%YAML 1.1\n---\nprivate:\n  - Health/\nlanguage: no\n",
        b"%YAML 1.1\n---\nprivate:\n  - Health/\nlanguage: no\n" + _ADDED),
    "four-space indentation": (
        b"private:\n    - Health/\nlint:\n    ignore:\n        - A/\n",
        b"private:\n    - Health/\nlint:\n    ignore:\n        - A/\n        - New folder/\n"),
    "lists at the key's column": (
        b"private:\n- Health/\nlint:\n  untyped: off\n",
        b"private:\n- Health/\nlint:\n  untyped: off\n  ignore:\n  - New folder/\n"),
    "a long flow list": (_LONG, _LONG + _ADDED),
    "old Mac line ends": (b"private:\r  - Health/\r", b"private:\r  - Health/\r"
                          + _ADDED.replace(b"\n", b"\r")),
    "mixed line ends, mostly Unix": (b"private:\r\n  - Health/\nlint:\n  ignore: []\n",
                                     b"private:\n  - Health/\n" + _ADDED),
}


@pytest.mark.parametrize(("before", "after"), list(CASES.values()), ids=list(CASES))
def test_an_edit_keeps_the_files_layout(tmp_path: Path, before: bytes, after: bytes) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_bytes(before)
    was = load_vault_settings(vault, data=None)
    settings = add_lint_ignore(vault, "New folder/", data_folder=None)
    assert (vault / "ora.yaml").read_bytes() == after
    assert settings.lint_ignore[-1] == "New folder/" and settings.problems == ()
    assert (settings.private, settings.languages) == (was.private, was.languages)
