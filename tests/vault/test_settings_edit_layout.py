"""An edit of ora.yaml changes the lines it edits and no others (settings_text.py): the file's
byte-order mark, line ends, document markers, indentation and long lines stay as written, and
adding an entry then removing it gives the file's bytes back, comments and all."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.vault.settings_edit import add_lint_ignore, set_excluded
from sidecar.vault.settings_yaml import load_settings_yaml
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
    "no final newline": (b"private:\n  - Health/", b"private:\n  - Health/\n" + _ADDED[:-1]),
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


# ---- an entry added, then removed: the file's own bytes back ----------------------------------

HOSTILE: dict[str, bytes] = {
    "comments above, below and between entries": (
        b"# head\nexclude:  # the list\n  # above\n  - A/  # own\n  # between\n  - B/\n"
        b"  # below\n# end\nlint:\n  ignore:\n    # only a comment\n    - X/\n"),
    "a comment line above the only entry": b"exclude:\n  # scratch area\n  - Last/\n",
    "flow lists with comments": (b"exclude: [A/, B/]  # flow, two spaces\n"
                                 b"lint: {ignore: [X/]}   # three\n"),
    "empty flow lists": b"exclude: []   # none yet\nlint:\n  ignore: [ ]\n",
    "a flow list over lines": b"exclude: [\n  A/,\n  B/\n]  # c\nlint:\n  ignore: [X/,Y/]\n",
    "tags": b"exclude: !!seq\n  - A/\nlint:\n  ignore: !!seq [X/]  # tagged\n",
    "no final newline": b"exclude:\n- A/\nprivate:\n- Health/\nlint:\n  ignore:\n  - X/",
    "no final newline after a comment": b"exclude: [A/]\nlint: {ignore: [X/]}\n# last",
    "Windows line ends": b"exclude:\r\n  - A/\r\n# c\r\nlint:\r\n  ignore: [X/]\r\n",
    "old Mac line ends": b"exclude:\r  - A/\rlint:\r  ignore: [X/]\r",
    "a byte-order mark": (b"\xef\xbb\xbf# mine\nexclude:\n  - A/\nlint:\n  ignore:\n"
                          b"    - X/\n"),
    "document markers": (b"%YAML 1.1\n---\nexclude:\n  - 'A/'\nlanguage: no\nlint:\n"
                         b"  ignore:\n  - X/\n...\n# after\n"),
    "quoted entries": (b"exclude: [\"A/\", 'B''s/']  # q\nlint:\n  ignore:\n"
                       b"    - \"X/\"  # q\n"),
}
NEW = ["New folder/", "No", "? q/", "a\tb/"]  # plain, then quoted three ways


def _hostile_vault(tmp_path: Path, text: bytes) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_bytes(text)
    return vault


def _only_inserted(before: bytes, after: bytes) -> bool:
    """Whether `after` is `before` with one run of bytes inserted and nothing else changed."""
    pairs = enumerate(zip(before, after, strict=False))
    same = next((i for i, (a, b) in pairs if a != b), len(before))
    return len(after) > len(before) and after.endswith(before[same:])


@pytest.mark.parametrize("entry", NEW)
@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_excluding_a_folder_then_including_it_again_gives_the_files_bytes_back(
    tmp_path: Path, text: bytes, entry: str,
) -> None:
    # Before: the last line gained a newline, a flow list's comment moved, `!!seq` was lost.
    vault = _hostile_vault(tmp_path, text)
    was = load_vault_settings(vault, data=None).exclude
    added = set_excluded(vault, entry, True, data_folder=None)
    middle = (vault / "ora.yaml").read_bytes()
    assert added.exclude == (*was, entry) and _only_inserted(text, middle), middle
    assert set_excluded(vault, entry, False, data_folder=None).exclude == was
    assert (vault / "ora.yaml").read_bytes() == text


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_ignoring_a_folder_in_lint_only_inserts_its_entry(tmp_path: Path, text: bytes) -> None:
    vault = _hostile_vault(tmp_path, text)
    was = load_vault_settings(vault, data=None)
    settings = add_lint_ignore(vault, "New folder/", data_folder=None)
    assert _only_inserted(text, (vault / "ora.yaml").read_bytes())
    assert settings.lint_ignore == (*was.lint_ignore, "New folder/")


REMOVALS: list[tuple[str, str, str]] = [
    ("exclude:\n  - First/\n  - Mid/\n  # why Last is excluded\n  - Last/\n", "Mid/",
     "exclude:\n  - First/\n  # why Last is excluded\n  - Last/\n"),
    ("exclude:\n  - Last/\n# end of my settings\n", "Last/",
     "exclude: []\n# end of my settings\n"),
    ("exclude:  # mine\n  # scratch area\n  - Last/  # its own\n", "Last/",
     "exclude: []  # mine\n  # scratch area\n"),
    ("exclude: !!seq\n  - A/\n  # kept\n  - /A\n", "A/", "exclude: !!seq []\n  # kept\n"),
    ("exclude: [A/, B/, C/]  # flow\n", "B/", "exclude: [A/, C/]  # flow\n"),
    ("exclude: [A/]  # flow\n", "A/", "exclude: []  # flow\n"),
]


@pytest.mark.parametrize(("before", "entry", "after"), REMOVALS)
def test_including_a_folder_again_removes_its_line_and_keeps_every_comment_line(
    tmp_path: Path, before: str, entry: str, after: str,
) -> None:
    # Before: the comment line above the next entry, or after the list, went with the entry;
    # with a comment line above the only entry the edit was refused (422), picker and all.
    vault = _hostile_vault(tmp_path, before.encode())
    settings = set_excluded(vault, entry, False, data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == after
    left = load_settings_yaml(after)["exclude"]
    assert isinstance(left, list) and settings.exclude == tuple(left)  # emptied: still a list
