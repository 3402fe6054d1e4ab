"""Lint helps adoption: a vault that never adopted Ora's schema lints with 0 errors, untyped notes
get at most one hint, typed notes stay strict, and vault or note opt-outs silence lint."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.lint.diagnostics import LintContext, lint_text, lint_vault
from sidecar.schema import load_json
from tests.notes import write_notes

Write = Callable[[str, str | bytes], str]

# An everyday Obsidian vault: no Ora type or nexus anywhere.
ORDINARY: dict[str, str] = {
    "Daily/2024-05-01.md": "Met Ana about the #garden plan. #todo/someday\n",
    "Books/Deep Work.md": (
        "---\naliases: [DW, Newport 2016]\ntags: books, productivity\ndescription: Focus.\n"
        "cssclasses: [wide]\npublish: true\npermalink: deep-work\nauthor: Cal Newport\n---\n"
        "# Deep Work\n\nBlocks of focus beat scattered hours.\n"
    ),
    "Meetings/Kickoff.md": "---\ntype: meeting\ntag: work\ndate: 2024-03-01\n---\nNotes.\n",
    "Clippings/Article.md": "---\nsource: https://example.org/a\nbanner: x.png\n---\nText.\n",
    "Inbox.md": "---\n---\nAn empty frontmatter block.\n",
}


def _write_all(write: Write, notes: dict[str, str]) -> None:
    for rel, text in notes.items():
        write(rel, text)


def _errors(diagnostics: Sequence[object]) -> list[object]:
    return [d for d in diagnostics if getattr(d, "severity", "") == "error"]


def test_an_untyped_vault_lints_with_zero_errors_and_one_hint_per_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "plain", ORDINARY)
    found = lint_vault(vault, data=None)
    assert _errors(found) == []
    assert sorted(d.path for d in found) == sorted(ORDINARY)  # exactly one each
    assert {d.severity for d in found} == {"info"}
    assert main(["lint", str(vault), "--json"]) == 0
    codes = {d["path"]: d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert codes["Daily/2024-05-01.md"] == "frontmatter-missing"
    assert codes["Books/Deep Work.md"] == "untyped-note"


def test_an_empty_note_gets_no_hint() -> None:
    """A note made and not written yet (Obsidian's "Untitled"): `ora adopt` has nothing to give
    it, so lint has nothing to say."""
    assert lint_text("", "Untitled.md") == []
    assert lint_text("\n \n", "Untitled 1.md") == []


def test_the_hint_names_the_inferred_type_and_a_foreign_type_value() -> None:
    [hint] = lint_text(ORDINARY["Meetings/Kickoff.md"], "Meetings/Kickoff.md")
    assert hint.code == "untyped-note" and hint.line == 2
    assert "`type: meeting` is not one of Ora's types" in hint.message
    assert "searched as resource" in hint.message
    [hint] = lint_text("plain text\n", "Engrams/Loose.md")
    assert "searched as engram" in hint.message  # the folder rule


def test_lint_untyped_off_silences_the_hints(vault: Path, write: Write) -> None:
    _write_all(write, ORDINARY)
    write("ora.yaml", "lint:\n  untyped: off\n")
    assert [d.path for d in lint_vault(vault, data=None)] == []


def test_a_typed_note_is_still_checked_strictly(write: Write, vault: Path) -> None:
    write("Engrams/Half.md", "---\ntype: engram\ntags: [memroy]\n---\nbody\n")
    codes = sorted(d.code for d in lint_vault(vault, data=None) if d.path == "Engrams/Half.md")
    assert codes == ["date-missing", "date-missing", "nexus-missing", "tag-unknown"]


def test_obsidian_properties_are_never_flagged_on_a_typed_note() -> None:
    values = {"tags": "[atomic]", "tag": "memory", "aliases": "[A, B]", "alias": "C",
              "cssclasses": "[wide]", "cssclass": "wide", "publish": "false",
              "permalink": "a/b", "description": "'One line: a summary'", "summary": "S",
              "banner": "'[[pic.png]]'", "banner_y": "0.5", "cover": "c.jpg", "image": "i.png",
              "icon": "star", "author": "[Me]", "authors": "[Me, You]",
              "url": "https://example.org", "source": "https://example.org/x",
              "title": "T", "created": "2024-01-01", "updated": "2024-01-02",
              "date": "2024-01-01", "status": "draft", "rating": "4", "lang": "en",
              "kanban-plugin": "basic", "excalidraw-plugin": "parsed"}
    known = load_json("obsidian_properties.json")["known"]
    assert set(values) == set(known)
    lines = "".join(f"{k}: {v}\n" for k, v in values.items() if k != "tags")
    text = ("---\nnexus: []\ntype: engram\ntags: [atomic]\n" + lines
            + "date created: 2024-01-01\ndate modified: 2024-01-01\n---\nbody\n")
    assert lint_text(text, "Engrams/Props.md") == []


def test_lint_ignore_folders_and_the_note_opt_out(vault: Path, write: Write) -> None:
    broken = "---\nnexus: Hub\ntype: engramm\n---\nbody\n"
    write("Drafts/A.md", broken)
    write("Notes/B.md", broken.replace("---\nbody", "ora-lint: ignore\n---\nbody"))
    write("Notes/C.md", broken.replace("---\nbody", "ora-lint: off\n---\nbody"))
    write("Notes/D.md", broken)
    write("Drafts/Binary.md", b"\x00\x01")  # silenced too, unreadable or not
    write("ora.yaml", "lint:\n  ignore: [Drafts/]\n")
    assert sorted({d.path for d in lint_vault(vault, data=None)}) == ["Notes/D.md"]


def test_excluded_notes_are_not_linted(vault: Path, write: Write) -> None:
    broken = "---\nnexus: Hub\ntype: engramm\n---\nbody\n"
    write("Templates/T.md", broken)
    write("Archive/Old.md", broken)
    write("Kept.md", broken)
    write("ora.yaml", "exclude: [Templates/]\n")
    write(".obsidian/app.json", json.dumps({"userIgnoreFilters": ["Archive/"]}))
    assert {d.path for d in lint_vault(vault, data=None)} == {"Kept.md"}
    ctx = LintContext.for_vault(vault, data=None)
    assert lint_text(broken, "Templates/T.md", ctx) == []  # the editor's lint too


def test_a_bad_ora_yaml_is_one_settings_invalid_error(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("ora.yaml", "untyped_type: blog\n")
    found = [d for d in lint_vault(vault, data=None) if d.path == "ora.yaml"]
    assert [(d.code, d.severity, d.line) for d in found] == [("settings-invalid", "error", 1)]
    assert "blog" in found[0].message
    assert main(["lint", str(vault)]) == 1
    assert "ora.yaml:1: error settings-invalid" in capsys.readouterr().out
