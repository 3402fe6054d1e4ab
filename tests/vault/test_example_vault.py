"""The example vault: good notes lint clean, and the defects folder reports exactly its defects."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sidecar.cli import main
from sidecar.schema import get_schema
from sidecar.vault.note import read_note
from sidecar.vault.scan import iter_note_paths

from .conftest import EXAMPLE_VAULT

DEFECTS = "_lint-defects/"
# (file in _lint-defects/, code, line): one defect class per file.
EXPECTED = Counter([
    ("Binary file.md", "file-binary", 1),
    ("Broken link.md", "link-broken", 2),
    ("Duplicate key.md", "yaml-invalid", 6),
    ("Frontmatter is a list.md", "frontmatter-not-mapping", 2),
    ("Invalid YAML.md", "yaml-invalid", 4),
    ("Invalid date.md", "date-invalid", 6),
    ("Invalid tag.md", "tag-invalid", 4),
    ("Invalid value.md", "value-invalid", 5),
    ("Malformed relationship.md", "relationship-malformed", 5),
    ("Malformed source document.md", "link-malformed", 5),
    ("Misplaced cluster.md", "cluster-misplaced", 4),
    ("Missing type.md", "type-missing", 1),
    ("Missing core properties.md", "nexus-missing", 1),
    ("Missing core properties.md", "tags-missing", 1),
    ("Missing dates.md", "date-missing", 1),  # date created
    ("Missing dates.md", "date-missing", 1),  # date modified
    ("Nexus not a matrix.md", "nexus-not-matrix", 2),
    ("No frontmatter.md", "frontmatter-missing", 1),
    ("Not UTF-8.md", "file-undecodable", 1),
    ("Project type on a non-matrix.md", "project-type-misplaced", 4),
    ("Unclosed frontmatter.md", "frontmatter-unclosed", 1),
    ("Unknown project type.md", "project-type-unknown", 4),
    ("Unknown relationship kind.md", "relationship-unknown", 5),
    ("Unknown subtype.md", "subtype-unknown", 4),
    ("Unknown tag.md", "tag-unknown", 4),
    ("Unknown type.md", "type-unknown", 3),
    ("Unknown writing role.md", "writing-unknown", 4),
    ("Unquoted wikilink.md", "wikilink-unquoted", 2),
    ("Untyped note.md", "untyped-note", 1),
    ("Unrun template.md", "templater-unrun", 8),
    ("Wrong value type.md", "value-wrong-type", 2),
])


def test_lint_reports_exactly_the_deliberate_defects(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["lint", str(EXAMPLE_VAULT), "--json"])
    # A checkout gives every file today's time, so every dated note's `date modified` looks
    # stale (a hint, tests/vault/test_lint_dates.py): not one of the deliberate defects.
    diagnostics = [d for d in json.loads(capsys.readouterr().out)["diagnostics"]
                   if d["code"] != "date-modified-stale"]
    found = Counter((str(d["path"]).removeprefix(DEFECTS), d["code"], d["line"])
                    for d in diagnostics)
    assert all(str(d["path"]).startswith(DEFECTS) for d in diagnostics)
    assert found == EXPECTED
    assert status == 1


def _good_notes() -> list[str]:
    return [p for p in iter_note_paths(EXAMPLE_VAULT) if not p.startswith(DEFECTS)]


def test_good_notes_cover_the_schema() -> None:
    notes = [read_note(EXAMPLE_VAULT, p, 1_000_000) for p in _good_notes()]
    assert 40 <= len(notes) <= 55
    schema = get_schema()
    assert {n.type for n in notes} == set(schema.types)
    tags = {t for n in notes for t in n.tags}
    assert {"archived", "incubating", "private", "superseded", "ai-derived", "news"} <= tags
    kinds = {k for n in notes for k in n.relationships}
    assert len(kinds) >= 8
    assert {n.frontmatter.get("subtype") for n in notes} >= set(schema.subtypes)
    assert any("project_type" in n.frontmatter for n in notes if n.type == "matrix")
    assert any("writing" in n.frontmatter for n in notes)
    assert any("source_file" in n.frontmatter for n in notes if n.type == "resource")
    clusters = Counter(n.cluster for n in notes if n.type == "chat")
    biggest, size = clusters.most_common(1)[0]
    assert biggest is not None and size >= 3
    dates = {n.frontmatter["date created"] for n in notes if n.cluster == biggest}
    assert len(dates) == size
    assert clusters[None] >= 1
    news = [n for n in notes if n.has_tag("news")]
    assert len({n.frontmatter["published"] for n in news}) == len(news) >= 2
    assert sum(n.is_private for n in notes) >= 3
    assert all(len(n.body.split()) >= 60 for n in notes), "every note needs real paragraphs"


def test_registry_note_has_the_documented_shape() -> None:
    schema = get_schema()
    note = read_note(EXAMPLE_VAULT, f"{schema.web_registry_note}.md", 1_000_000)
    fm = note.frontmatter
    assert all(isinstance(p, str) for p in fm["whitelist"] + fm["excluded"])
    assert {o["tier"] for o in fm["overrides"]} <= set(schema.web_tiers)
    assert all(o["url"].startswith("https://") for o in fm["overrides"])
