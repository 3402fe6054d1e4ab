""""May" is both a month and a modal verb, and the rules judge's stopwords list the modal: the
month written as a name ("in May") is still a claim's value, the modal ("we may ship") never is."""

from __future__ import annotations

import pytest

from sidecar.cleaning.rules import detect


@pytest.mark.parametrize(("a", "b", "values"), [
    ("The launch is in May.", "The launch is in June.", ["may", "june"]),
    ("My birthday is in October.", "My birthday is in May.", ["october", "may"]),
])
def test_the_month_may_is_compared_as_a_value(a: str, b: str, values: list[str]) -> None:
    verdict = detect(a, b)
    assert verdict.contradiction and verdict.cue == "value"
    assert verdict.detail["values"] == values


@pytest.mark.parametrize(("a", "b"), [
    ("We may ship in June.", "We ship in June."),
    ("We may ship in June.", "We will ship in June."),
    ("We visited Paris in May.", "We visited Paris in May with friends."),
])
def test_the_modal_may_is_no_month(a: str, b: str) -> None:
    verdict = detect(a, b)
    assert not verdict.contradiction and verdict.cue != "value"
