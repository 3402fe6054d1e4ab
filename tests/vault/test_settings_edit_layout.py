"""An edit of ora.yaml changes the lines it edits and no others (settings_text.py): the file's
byte-order mark, line ends, document markers, indentation and long lines stay as written, and
adding an entry then removing it gives the file's bytes back, comments and all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import InvalidSettings
from sidecar.vault import settings_edit
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


# ---- a flow list's entry removed: only the entry, its comma and its own comment ----------------

FLOW_REMOVALS: dict[str, tuple[bytes, str, bytes]] = {
    "a comment line between entries": (
        b"exclude: [\n  a/,\n  # Scratch is temporary, remove later\n  b/\n]\n", "a/",
        b"exclude: [\n  # Scratch is temporary, remove later\n  b/\n]\n"),
    "the last, after entries with comments": (
        b"exclude: [\n  a/,  # about a\n  b/,  # about b: keep\n  c/\n]\n", "c/",
        b"exclude: [\n  a/,  # about a\n  b/  # about b: keep\n]\n"),
    "a comment after each entry": (
        b"exclude: [\n  a/,  # about a\n  b/,  # about b\n  c/  # about c\n]\n", "c/",
        b"exclude: [\n  a/,  # about a\n  b/  # about b\n]\n"),
    "a comment line above the last": (
        b"exclude: [\n  a/,\n  # why b\n  b/\n]\n", "b/",
        b"exclude: [\n  a/\n  # why b\n]\n"),
    "a comment line before the bracket": (
        b"exclude: [\n  a/,\n  b/,  # trailing comma\n  # more to come\n]\n", "b/",
        b"exclude: [\n  a/,\n  # more to come\n]\n"),
    "the only entry, a comment line before the bracket": (
        b"exclude: [\n  a/\n  # more to come\n]\n", "a/",
        b"exclude: [\n  # more to come\n]\n"),
    "two entries on a line with a comment": (
        b"exclude: [\n  a/, b/,  # a and b\n  c/\n]\n", "b/",
        b"exclude: [\n  a/,  # a and b\n  c/\n]\n"),
    "two entries naming the folder": (
        b"exclude: [\n  Scratch/,  # one\n  keep/,  # two\n  /Scratch  # three\n]\n", "Scratch/",
        b"exclude: [\n  keep/  # two\n]\n"),
    "Windows line ends, a comment line between entries": (
        b"exclude: [\r\n  a/,\r\n  # Scratch is temporary\r\n  b/\r\n]\r\n", "a/",
        b"exclude: [\r\n  # Scratch is temporary\r\n  b/\r\n]\r\n"),
    "Windows line ends, the last": (
        b"exclude: [\r\n  a/,  # about a\r\n  b/,  # about b\r\n  c/  # about c\r\n]\r\n", "c/",
        b"exclude: [\r\n  a/,  # about a\r\n  b/  # about b\r\n]\r\n"),
}


@pytest.mark.parametrize(("before", "entry", "after"), list(FLOW_REMOVALS.values()),
                         ids=list(FLOW_REMOVALS))
def test_including_a_folder_again_keeps_the_other_entries_comments_in_a_flow_list(
    tmp_path: Path, before: bytes, entry: str, after: bytes,
) -> None:
    # Before: the cut ran from the entry to the next one's start (or from the previous one's
    # end), taking the comment lines and the other entry's comment in between.
    vault = _hostile_vault(tmp_path, before)
    settings = set_excluded(vault, entry, False, data_folder=None)
    assert (vault / "ora.yaml").read_bytes() == after
    assert settings.exclude == tuple(load_settings_yaml(after.decode())["exclude"])


def _losing_a_comment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the splice drop the comment line `# why` (a splice bug the read-back cannot see)."""
    real = settings_edit.splice_list

    def losing(*args: Any) -> str | None:
        text = real(*args)
        return None if text is None else text.replace("  # why\n", "")

    monkeypatch.setattr(settings_edit, "splice_list", losing)


def test_a_splice_losing_a_comment_falls_back_to_a_dump_that_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the read-back compared values only, so the splice without `# why` was written.
    _losing_a_comment(monkeypatch)
    vault = _hostile_vault(tmp_path, b"exclude:\n  - A/\n  # why\n  - B/\n  - C/\n")
    assert set_excluded(vault, "C/", False, data_folder=None).exclude == ("A/", "B/")
    assert b"  # why\n" in (vault / "ora.yaml").read_bytes()


def test_a_splice_losing_a_comment_is_refused_when_the_dump_loses_it_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: written without `# why`; ruamel's dump writes a flow list without its comments.
    _losing_a_comment(monkeypatch)
    text = b"exclude: [\n  A/,\n  # why\n  B/,\n  C/\n]\n"
    vault = _hostile_vault(tmp_path, text)
    with pytest.raises(InvalidSettings, match=r"would lose a comment from ora\.yaml"):
        set_excluded(vault, "C/", False, data_folder=None)
    assert (vault / "ora.yaml").read_bytes() == text


def test_a_write_that_moves_a_setting_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the read-back compared a mapping's keys as a set, so `private` moved to the end
    # (every value the same) was written.
    real = settings_edit._dump

    def moving(y: Any, doc: Any, layout: Any) -> bytes:
        doc["private"] = doc.pop("private")
        return real(y, doc, layout)

    monkeypatch.setattr(settings_edit, "_dump", moving)
    monkeypatch.setattr(settings_edit, "splice_list", lambda *args: None)  # the dump writes
    text = b"private: [Health/]\nexclude: [A/]\nlanguage: en\n"
    vault = _hostile_vault(tmp_path, text)
    with pytest.raises(InvalidSettings, match=r"would not read back from ora\.yaml as intended"):
        set_excluded(vault, "B/", True, data_folder=None)
    assert (vault / "ora.yaml").read_bytes() == text
