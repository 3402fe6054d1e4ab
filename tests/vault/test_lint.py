"""Every diagnostic code, on the line of the offending key; lint context; fixing dates."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.lint.diagnostics import (
    CODES,
    Diagnostic,
    LintContext,
    fix_dates,
    lint_file,
    lint_text,
    lint_vault,
)

from .conftest import GOOD_NOTE

Write = Callable[[str, str | bytes], str]
DATES = "date created: 2024-01-02\ndate modified: 2024-01-02\n"
CORE = "nexus: []\ntype: engram\ntags: [atomic]\n"


def _today() -> str:
    """Read when asserting, not at import: a run may cross midnight between the two."""
    return dt.date.today().isoformat()


def fm(*lines: str, core: str = CORE, dates: str = DATES) -> str:
    return "---\n" + core + "".join(f"{line}\n" for line in lines) + dates + "---\nbody\n"


# (code, note text, line of the diagnostic). Notes that need a file on disk are in FILE_CASES.
TEXT_CASES: list[tuple[str, str, int]] = [
    ("frontmatter-missing", "# just a body\n", 1),
    ("untyped-note", "---\naliases: [Other name]\ncssclasses: wide\n---\nbody\n", 1),
    ("frontmatter-unclosed", "---\ntype: engram\n", 1),
    ("frontmatter-not-mapping", "---\n- a\n---\n", 2),
    ("yaml-invalid", "---\nnexus: []\ntags: [a\ntype: x\n---\n", 3),
    ("nexus-missing", fm(core="type: engram\ntags: []\n"), 1),
    ("type-missing", fm(core="nexus: []\ntags: []\n"), 1),
    ("tags-missing", fm(core="nexus: []\ntype: engram\n"), 1),
    ("type-unknown", fm(core="nexus: []\ntype: engrma\ntags: []\n"), 3),
    ("subtype-unknown", fm("subtype: opinion"), 5),
    ("writing-unknown", fm("writing: draft"), 5),
    ("project-type-unknown", fm("project_type: hobby", core=CORE.replace("engram", "matrix")), 5),
    ("project-type-misplaced", fm("project_type: book"), 5),
    ("tag-invalid", fm(core="nexus: []\ntype: engram\ntags: ['two words']\n"), 4),
    ("tag-unknown", fm(core="nexus: []\ntype: engram\ntags: [memroy]\n"), 4),
    ("relationship-unknown", fm("relationships:", "  refutes: ['[[Hub]]']"), 5),
    ("relationship-malformed", fm("relationships:", "  supports: '[[Hub]]'"), 5),
    ("wikilink-unquoted", fm(core="nexus:\n  - [[Hub]]\ntype: engram\ntags: []\n"), 2),
    ("link-malformed", fm("source_document: [Hub]"), 5),
    ("link-broken", fm("relationships:", "  supports: ['[[Nowhere]]']"), 5),
    ("date-invalid", fm(dates="date created: 2024-01-02\ndate modified: soon\n"), 6),
    ("date-missing", fm(dates="date created: 2024-01-02\n"), 1),
    ("cluster-misplaced", fm("cluster: sleep"), 5),
    ("value-wrong-type", fm(core="nexus: Hub\ntype: engram\ntags: []\n"), 2),
    ("value-invalid", fm("chunk_index: -1"), 5),
    ("templater-unrun", fm().replace("body\n", "Created: <% tp.date.now() %>\n"), 8),
    ("private-by-mention", fm().replace("body\n", "Add the `#private` tag.\n"), 8),
    # 101 one-line sections make 101 chunks, one over the cap: the 101st section is not indexed
    ("note-too-long", fm().replace("body\n", "".join(f"## H{i}\n\nline {i}\n\n"
                                                      for i in range(101))), 8 + 4 * 100),
]

FILE_CASES: list[tuple[str, bytes]] = [
    ("file-binary", b"---\nnexus: []\n---\n\x00"),
    ("file-undecodable", b"caf\xe9"),
    ("file-too-large", b"x" * 2000),
]


@pytest.fixture
def ctx() -> LintContext:
    return LintContext.build(["Matrices/Hub.md", "Engrams/Good.md"])


@pytest.mark.parametrize(("code", "text", "line"), TEXT_CASES, ids=[c[0] for c in TEXT_CASES])
def test_each_code_is_reported_on_the_offending_line(
    ctx: LintContext, code: str, text: str, line: int
) -> None:
    found = lint_text(text, "n.md", ctx)
    assert [(d.code, d.line) for d in found] == [(code, line)], found
    assert found[0].severity == CODES[code].severity


@pytest.mark.parametrize(("code", "content"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_unreadable_files_get_a_file_code(vault: Path, write: Write, code: str,
                                          content: bytes) -> None:
    rel = write("Bad.md", content)
    assert [(d.code, d.line) for d in lint_file(vault, rel, max_bytes=1000)] == [(code, 1)]


def test_a_note_too_long_is_measured_as_the_index_reads_it(ctx: LintContext) -> None:
    """An unclosed block's frontmatter-like lines are not indexed, so they make no chunk: the
    101st section (line 404) is the first left out, not the 99th."""
    sections = "".join(f"## H{i}\n\nline {i}\n\n" for i in range(101))
    found = lint_text(f"---\ntitle: x\ntags: [a]\n{sections}", "n.md", ctx)
    assert sorted((d.code, d.line) for d in found) == [("frontmatter-unclosed", 1),
                                                        ("note-too-long", 404)]


def test_a_vanished_file_is_unreadable(vault: Path) -> None:
    assert [d.code for d in lint_file(vault, "Gone.md")] == ["file-unreadable"]


def test_every_code_has_a_test_case() -> None:
    tested = {c for c, _, _ in TEXT_CASES} | {c for c, _ in FILE_CASES} | {"file-unreadable"}
    tested |= {"settings-invalid"}  # a vault-level code: tests/vault/test_lint_adoption.py
    tested |= {"file-name-undecodable", "file-name-backslash"}  # test_undecodable_names.py
    tested |= {"date-modified-stale"}  # about the file's time: tests/vault/test_lint_dates.py
    tested |= {"nexus-not-matrix"}  # needs the target's type: tests/vault/test_lint_nexus.py
    assert tested == set(CODES)


def test_a_good_note_is_clean(ctx: LintContext) -> None:
    assert lint_text(GOOD_NOTE, "Engrams/Good.md", ctx) == []


def test_missing_core_properties_of_an_adopted_note_are_each_reported() -> None:
    codes = [d.code for d in lint_text(fm(core="type: engram\n"), "n.md")]
    assert codes == ["nexus-missing", "tags-missing"]


def test_suggestions_name_the_closest_known_value(ctx: LintContext) -> None:
    [tag] = lint_text(fm(core="nexus: []\ntype: engram\ntags: [memroy]\n"), "n.md", ctx)
    assert "did you mean 'memory'?" in tag.message
    [kind] = lint_text(fm(core="nexus: []\ntype: engrma\ntags: []\n"), "n.md", ctx)
    assert "did you mean 'engram'?" in kind.message


def test_links_resolve_by_name_path_or_bare_name(ctx: LintContext) -> None:
    text = fm('relationships:', '  supports: ["[[hub]]", "[[Matrices/Hub|h]]"]',
              core='nexus: ["Hub", "[[Good#part]]"]\ntype: engram\ntags: []\n')
    assert lint_text(text, "n.md", ctx) == []


def test_without_a_vault_links_are_not_checked() -> None:
    assert lint_text(fm("relationships:", "  supports: ['[[Nowhere]]']"), "n.md") == []


def test_domain_tags_come_from_the_schema_note(vault: Path, write: Write) -> None:
    write("Reference — Ora YAML Schema.md",
          "---\nnexus: []\ntype: reference\ntags: []\ndomain_tags: [Gardening]\n" + DATES + "---\n")
    write("Engrams/Tomatoes.md",
          "---\nnexus: []\ntype: engram\ntags: [gardening/tomatoes, beekeeping]\n" + DATES
          + "---\n")
    found = [d for d in lint_vault(vault, data=None) if d.path == "Engrams/Tomatoes.md"]
    assert [(d.code, d.message.split("'")[1]) for d in found] == [("tag-unknown", "beekeeping")]


def test_lint_vault_covers_every_note_in_order(vault: Path, write: Write) -> None:
    write("B.md", "# no frontmatter\n")
    write("A.md", "---\nbroken: [\n---\n")
    write(".obsidian/ignored.md", "# not a note\n")
    found = lint_vault(vault, data=None)
    assert [(d.path, d.code) for d in found] == [("A.md", "yaml-invalid"),
                                                 ("B.md", "frontmatter-missing")]


def test_diagnostic_json_and_text_forms() -> None:
    d = Diagnostic("a/b.md", 3, "error", "type-unknown", "unknown type 'x'")
    assert d.to_json() == {"path": "a/b.md", "line": 3, "severity": "error",
                           "code": "type-unknown", "message": "unknown type 'x'"}
    assert str(d) == "a/b.md:3: error type-unknown unknown type 'x'"


def test_fix_dates_fills_only_the_absent_dates(vault: Path, write: Write) -> None:
    text = "---\nnexus: []   # general\ntype: engram\ntags: [atomic]\ndate modified: soon\n---\nb\n"
    rel = write("Fix.md", text)
    os.utime(vault / rel, (1_700_000_000, 1_700_000_000))
    assert fix_dates(vault, rel) is True
    new = (vault / rel).read_text(encoding="utf-8")
    created = new.split("date created: ")[1].split("\n")[0]
    # written today: the fix itself modifies the file, so today is its mtime day after it
    assert new == text.replace("date modified: soon", f"date modified: {_today()}").replace(
        "---\nb\n", f"date created: {created}\n---\nb\n")
    assert lint_file(vault, rel) == []
    assert fix_dates(vault, rel) is False


@pytest.mark.parametrize(("rel", "stated", "created"), [
    ("Clip.md", "created: 2020-03-04T10:00\n", "2020-03-04"),
    ("Journal/2021-05-06.md", "", "2021-05-06"),
    ("Plain.md", "created: someday\n", "2023-11-14"),  # no date stated: the file's
])
def test_fix_dates_takes_the_creation_date_a_note_states(
    vault: Path, write: Write, rel: str, stated: str, created: str
) -> None:
    """A note cloned, copied or synced has today's file times; `lint --fix` wrote those as
    `date created` over a `created` property or a daily note's name (adopt already did not),
    and decay then ranked the old note as new."""
    write(rel, f"---\nnexus: []\ntype: engram\ntags: []\n{stated}---\nb\n")
    os.utime(vault / rel, (1_700_000_000, 1_700_000_000))  # 2023-11-14
    assert fix_dates(vault, rel) is True
    new = (vault / rel).read_text(encoding="utf-8")
    assert f"date created: {created}\n" in new and f"date modified: {_today()}\n" in new


@pytest.mark.parametrize(("dates", "modified"), [
    ("date created: 2024-05-06\n", None),  # the day of the fix, later than both
    ("Date Created: 2099-01-01T09:00\n", "2099-01-01"),  # set ahead by a template
    ("date created: 2020-01-01\n", None),
    ("created: 2099-02-03\n", "2099-02-03"),  # a stated creation date, no `date created`
])
def test_fix_dates_never_fills_modified_before_created(
    vault: Path, write: Write, dates: str, modified: str | None
) -> None:
    """`--fix` filled a missing `date modified` with the file's mtime even when that was
    before the note's own `date created`."""
    rel = write("Old.md", f"---\nnexus: []\ntype: engram\ntags: []\n{dates}---\nb\n")
    os.utime(vault / rel, (1_700_000_000, 1_700_000_000))  # 2023-11-14
    assert fix_dates(vault, rel) is True
    new = (vault / rel).read_text(encoding="utf-8")
    modified = modified or _today()
    assert new.count("date modified: ") == 1 and f"date modified: {modified}\n" in new
    assert lint_file(vault, rel) == []


def test_a_capitalised_date_is_not_missing(ctx: LintContext) -> None:
    dates = "Date Created: 2024-01-02\nDATE MODIFIED: 2024-01-02\n"
    assert [d.code for d in lint_text(fm(dates=dates), "n.md", ctx)] == []
    dates = "Date Created: 2024-01-02\nDate Modified: soon\n"
    found = lint_text(fm(dates=dates), "n.md", ctx)
    assert [(d.code, d.line) for d in found] == [("date-invalid", 6)]


@pytest.mark.parametrize("text", ["# body only\n", "---\nbad: [\n---\n"])
def test_fix_dates_leaves_notes_that_need_a_person(vault: Path, write: Write, text: str) -> None:
    rel = write("Leave.md", text)
    assert fix_dates(vault, rel) is False
    assert (vault / rel).read_text(encoding="utf-8") == text
