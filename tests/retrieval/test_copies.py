"""The copy rule: which chunk texts count as copies of one another, and how copies collapse."""

from __future__ import annotations

import pytest

from sidecar.retrieval.copies import collapse, copy_key

TASKS = """## Tasks
- [ ] Water the plants 🔁 every day 📅 {day} #task
- [{done}] Review inbox ✅ {day} #task
- [ ] Call plumber about the leaking kitchen tap 📅 2024-05-01 ⏫ #task"""


def test_whitespace_and_case_do_not_tell_copies_apart() -> None:
    assert copy_key("Worked on the garden shed project today. ") == copy_key(
        "worked on the  garden shed\nproject today.")


def test_a_template_list_stamped_with_each_day_is_one_text() -> None:
    assert copy_key(TASKS.format(day="2024-04-22", done="x")) == copy_key(
        TASKS.format(day="2024-04-27", done=" "))


@pytest.mark.parametrize("one, other", [
    ("Meeting at 14:30 on 22/04/2024 in room B.", "Meeting at 9:05 pm on 3.5.24 in room B."),
    ("Created 2024-04-22T08:15\n- [ ] review", "Created 2024-05-01 17:00\n- [X] review"),
    ("> - [x] quoted task", "> - [ ] quoted task"),
])
def test_dates_times_and_checkbox_states_are_set_aside(one: str, other: str) -> None:
    assert copy_key(one) == copy_key(other)


@pytest.mark.parametrize("one, other", [
    # Different facts that differ by a number only.
    ("The plumber said the tap needs a new washer, cost is 40 euros.",
     "The plumber said the tap needs a new washer, cost is 120 euros."),
    ("# 2024-04-22\n\nMood:: 2\nSleep:: 7 hours", "# 2024-04-22\n\nMood:: 3\nSleep:: 7 hours"),
    # A date in a heading names the chunk: two days with the same mood are two days.
    ("# 2024-04-22\n\nMood:: 2\nSleep:: 7 hours", "# 2024-04-27\n\nMood:: 2\nSleep:: 7 hours"),
    ("Worked on the garden shed project today.",
     "Worked on the garden shed project today. The plumber said the tap needs a new washer."),
    ("- [ ] Buy treated timber", "- [ ] Buy untreated timber"),
])
def test_texts_that_say_different_things_are_not_copies(one: str, other: str) -> None:
    assert copy_key(one) != copy_key(other)


def test_collapse_keeps_the_best_copy_and_names_the_other_notes_once() -> None:
    ranked = [("a.md", "x"), ("b.md", "y"), ("c.md", "x"), ("a.md", "x"), ("d.md", "x"),
              ("c.md", "x"), ("e.md", "z"), ("f.md", "y")]
    kept, others = collapse(ranked, key=lambda item: item[1], path=lambda item: item[0])
    assert kept == [("a.md", "x"), ("b.md", "y"), ("e.md", "z")]
    # A second copy in the kept note itself is left out but not named.
    assert others == {0: ["c.md", "d.md"], 1: ["f.md"]}


def test_collapse_of_distinct_texts_changes_nothing() -> None:
    ranked = [("a.md", "x"), ("b.md", "y")]
    assert collapse(ranked, key=lambda item: item[1], path=lambda item: item[0]) == (ranked, {})
