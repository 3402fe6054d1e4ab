"""The plans held for review are kept in the data folder across a restart; a file that cannot be
read is started afresh, not an error."""

from __future__ import annotations

from pathlib import Path

from sidecar.extraction.proposals import Candidate, Plan, Source, Turn
from sidecar.extraction.reviews import FILE, Reviews

TURN = Turn(2, "assistant", "Rye flour ferments faster than wheat flour.", False, 12, 12)


def _plan(path: str = "Chats/Ora/kitchen.md") -> Plan:
    source = Source("kitchen", path, "hash", [TURN], ["[[Baking]]"], False, frozenset())
    return Plan(source, "llm:default", [], [], "a fallback",
                [Candidate(TURN.content, TURN, "Rye ferments fastest", "fact", True, True)])


def test_a_plan_kept_is_held_by_the_next_process(tmp_path: Path) -> None:
    Reviews(data=tmp_path).keep(_plan(), private=True)
    held = Reviews(data=tmp_path).held(_plan().source, private=True)
    assert held is not None
    assert (held.extractor, held.fallback, held.candidates) == (
        "llm:default", "a fallback", _plan().candidates)
    assert Reviews(data=tmp_path).held(_plan().source, private=False) is None


def test_the_oldest_plan_is_forgotten_on_disk_too(tmp_path: Path) -> None:
    reviews = Reviews(most=1, data=tmp_path)
    reviews.keep(_plan("Chats/Ora/a.md"), private=False)
    reviews.keep(_plan("Chats/Ora/b.md"), private=False)
    again = Reviews(most=1, data=tmp_path)
    assert again.held(_plan("Chats/Ora/a.md").source, private=False) is None
    assert again.held(_plan("Chats/Ora/b.md").source, private=False) is not None


def test_a_file_that_cannot_be_read_is_started_afresh(tmp_path: Path) -> None:
    for text in ("{not json", '{"format": 2, "plans": [{"path": 3}]}', '[]', '{"format": 99}'):
        (tmp_path / FILE).write_text(text, encoding="utf-8")
        reviews = Reviews(data=tmp_path)
        assert reviews.held(_plan().source, private=False) is None
        reviews.keep(_plan(), private=False)
        assert Reviews(data=tmp_path).held(_plan().source, private=False) is not None


def test_a_plan_held_before_candidates_said_they_were_private_is_planned_again(
    tmp_path: Path,
) -> None:
    """Review: a format-1 plan's candidates have no `private`, so a model's merge of a private
    turn's words would have been accepted as public; such a plan is not held."""
    Reviews(data=tmp_path).keep(_plan(), private=True)
    file = tmp_path / FILE
    file.write_text(file.read_text(encoding="utf-8").replace('"format": 2', '"format": 1'),
                    encoding="utf-8")
    assert Reviews(data=tmp_path).held(_plan().source, private=True) is None
