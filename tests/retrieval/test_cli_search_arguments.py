"""Arguments of `ora search` and `ora ask`: a query the HTTP API refuses is refused with the API's
reason (the one limit is the OpenAPI document's `maxLength`); a date at the calendar's edge is a
bound, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.index.scope import NoteFilter
from sidecar.server.openapi import openapi_document


@pytest.mark.parametrize(("command", "request_schema", "field"),
                         [("search", "SearchRequest", "query"), ("ask", "AskRequest", "question")])
def test_cli_refuses_a_query_longer_than_the_api_takes_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, request_schema: str,
    field: str,
) -> None:
    limit = openapi_document()["components"]["schemas"][request_schema]["properties"][field][
        "maxLength"]
    with pytest.raises(SystemExit) as exited:
        main([command, str(tmp_path), "x" * (limit + 1)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"is too long: {limit + 1:,} characters, at most {limit:,}" in err
    assert not (tmp_path / ".ora").exists()  # refused before any index is opened


@pytest.mark.parametrize(("since", "until"), [
    (None, "9999-12-31"), ("0001-01-01T00:00:00+01:00", None),
    (None, "9999-12-31T23:00:00-05:00"),
])
def test_a_date_at_the_calendars_edge_bounds_nothing(since: str | None, until: str | None) -> None:
    edge = NoteFilter.make(since=since, until=until)
    assert edge.admits("a.md", None, (), "0001-01-01T00:00:00")
    assert edge.admits("a.md", None, (), "9999-12-31T23:59:59")


@pytest.mark.parametrize(("since", "until"), [
    ("9999-12-31T23:00:00-05:00", None), (None, "0001-01-01T00:00:00+01:00"),
])
def test_a_date_past_the_calendars_edge_the_other_way_admits_nothing(
    since: str | None, until: str | None
) -> None:
    edge = NoteFilter.make(since=since, until=until)
    assert edge.active
    assert not edge.admits("a.md", None, (), "0001-01-01T00:00:00")
    assert not edge.admits("a.md", None, (), "9999-12-31T23:59:59")


def test_ora_search_until_the_last_day_of_the_calendar_searches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    (tmp_path / "Note.md").write_text("Memory fades without review.\n", encoding="utf-8")
    assert main(["index", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["search", str(tmp_path), "memory", "--until", "9999-12-31", "--no-rerank"]) == 0
    assert "Note.md" in capsys.readouterr().out
