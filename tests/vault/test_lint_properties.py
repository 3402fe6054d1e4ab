"""Property tests: parsing and linting never raise, whatever the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.lint.diagnostics import LintContext, lint_text
from sidecar.vault.note import parse_note

CTX = LintContext.build(["Matrices/Hub.md"])
YAMLISH = st.lists(
    st.sampled_from(["---", "nexus: []", "type: engram", "tags:", "  - a", "- [[x]]", "a: [",
                     "b: {c: d}", "&a [*a]", "date created: 2024-02-30", "? [k]", "!!binary x",
                     "relationships:", "  supports: ['[[Hub]]']", "'", '"', "\t", "", "%YAML 1.1",
                     "...", "\r", "\ufeff", "key: !!set {a, b}", "d: 2024-01-01 10:00:00 +02:00"]),
    max_size=12,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), YAMLISH, st.text().map(lambda t: "---\n" + t + "\n---\n")))
def test_parse_and_lint_never_raise(text: str) -> None:
    note = parse_note(text, "n.md")
    assert note.body_line >= 1
    for d in lint_text(text, "n.md", CTX):
        assert d.line >= 1 and d.severity in {"error", "warning", "info"}
