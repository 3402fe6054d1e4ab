"""The deterministic detector, cue by cue, with the agreeing twin of every contradiction."""

from __future__ import annotations

import pytest

from sidecar.cleaning.rules import detect
from sidecar.cleaning.vocab import get_cues, stem

CONTRADICTIONS = [
    ("Coffee increases alertness in adults.", "Coffee does not increase alertness in adults.",
     "negation"),
    ("Coffee increases alertness in adults.", "Coffee decreases alertness in adults.", "antonym"),
    ("4-PBA treatment raises endoplasmic reticulum stress.",
     "4-PBA treatment lowers endoplasmic reticulum stress.", "antonym"),
    ("All swans are white.", "No swans are white.", "negation"),
    ("Adults need 8 hours of sleep per night.", "Adults need 6 hours of sleep per night.",
     "number"),
    ("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1901.",
     "number"),
    ("Inflation rose to 5.5% in March.", "Inflation rose to 3.2% in March.", "number"),
    # A label word after the number is still a unit (hours), only one before it names a thing.
    ("The meeting lasted 2 hours on day one.", "The meeting lasted 5 hours on day one.",
     "number"),
    ("Python is faster than Ruby for this benchmark.",
     "Python is slower than Ruby for this benchmark.", "comparative"),
    ("Python is faster than Ruby.", "Ruby is faster than Python.", "order"),
    ("Coffee causes dehydration.",
     "Coffee, contrary to popular belief, does not cause dehydration.", "negation"),
]

AGREEMENTS = [
    ("Coffee does not increase blood pressure.", "Coffee decreases blood pressure."),  # 2 flips
    ("Python is faster than Ruby.", "Ruby is slower than Python."),  # opposite + swapped sides
    ("Adults need 7-9 hours of sleep per night.", "Adults need 8 hours of sleep per night."),
    ("Meditation reduces stress.", "Meditation lowers stress levels."),
    ("Vitamin C does not prevent colds.", "Vitamin C does not prevent colds in adults."),
    ("Adults need 8 hours of sleep.", "Adults need 8 glasses of water."),  # units differ
    # The negation sits in a clause about something else.
    ("One in five surgical trials are discontinued early.",
     "One in five surgical trials are discontinued early, and their authors are often not "
     "contactable."),
    # Digits inside names are not quantities.
    ("BRCA1 carriers face a raised risk of breast cancer.",
     "BRCA2 carriers face a raised risk of breast cancer."),
    # Nor is a number that names a chapter, a week or a note of a series: templated notes
    # ("Sprint 12 retro", "Sprint 13 retro") flooded the triage queue with such pairs.
    ("Sprint 12 retro: the team shipped the login page on time.",
     "Sprint 13 retro: the team shipped the login page on time."),
    ("Chapter 3 summary: the hero leaves home to find the sword.",
     "Chapter 4 summary: the hero leaves home to find the sword."),
    ("Bulk note 205 about inventory and widgets.", "Bulk note 105 about inventory and widgets."),
    ("Day 34 of morning pages: I felt tired and slept badly.",
     "Day 35 of morning pages: I felt tired and slept badly."),
    ("Version 2.1 supports offline sync.", "Version 3.0 supports offline sync."),
]

NOT_ASSERTIONS = [
    ("Does coffee cause dehydration?", "Coffee does not cause dehydration."),
    ("We set out to assess whether coffee causes dehydration.",
     "Coffee does not cause dehydration."),
]

UNRELATED = [
    ("Spaced repetition improves retention.", "The stock market does not open on Sundays."),
    ("Rome was founded in 753 BC.", "The first iPhone was released in 2007."),
]


@pytest.mark.parametrize(("a", "b", "cue"), CONTRADICTIONS)
def test_contradiction_is_found_with_its_cue(a: str, b: str, cue: str) -> None:
    verdict = detect(a, b)
    assert verdict.contradiction and verdict.cue == cue
    assert 0.5 <= verdict.score <= 1.0


@pytest.mark.parametrize(("a", "b", "cue"), CONTRADICTIONS)
def test_verdict_does_not_depend_on_order(a: str, b: str, cue: str) -> None:
    assert detect(b, a).contradiction


@pytest.mark.parametrize(("a", "b"), AGREEMENTS + UNRELATED)
def test_agreeing_or_unrelated_claims_are_not_contradictions(a: str, b: str) -> None:
    verdict = detect(a, b)
    assert not verdict.contradiction and verdict.score == 0.0


@pytest.mark.parametrize(("a", "b"), NOT_ASSERTIONS)
def test_questions_and_aims_assert_nothing(a: str, b: str) -> None:
    verdict = detect(a, b)
    assert (verdict.contradiction, verdict.cue) == (False, "non-assertive")


def test_long_sentence_is_judged_by_its_matching_clause() -> None:
    verdict = detect("Coffee causes dehydration.",
                     "Coffee, contrary to popular belief, does not cause dehydration.")
    assert verdict.detail["clauses"] == ["Coffee causes dehydration.",
                                         "does not cause dehydration."]


def test_evidence_names_the_words_that_flipped() -> None:
    verdict = detect("Exercise improves sleep quality.", "Exercise worsens sleep quality.")
    assert verdict.detail["swapped"] == [["improves", "worsens"]]
    assert verdict.detail["overlap"] == 1.0


@pytest.mark.parametrize(("words", "stemmed"), [
    (["increase", "increases", "increased", "increasing"], "increas"),
    (["drop", "drops", "dropped"], "drop"),
    (["study", "studies", "studied"], "study"),
])
def test_stemming_meets_inflections(words: list[str], stemmed: str) -> None:
    suffixes = get_cues().suffixes
    assert {stem(w, suffixes) for w in words} == {stemmed}


def test_less_keeps_its_double_s() -> None:
    assert stem("less", get_cues().suffixes) == "less"


def test_a_thousands_separator_or_a_time_does_not_split_a_clause() -> None:
    """`€12,000` was split at its comma and read as `€12`: the same budget stated twice was a
    contradiction (12 against 12,000), found on an ordinary vault's two renovation notes."""
    same = detect("Total budget is €12,000 after the permit costs.", "Total budget is €12,000.")
    assert not same.contradiction
    assert not detect("The meeting starts at 10:30 on Monday, as agreed.",
                      "The meeting starts at 10:30 on Monday.").contradiction
    changed = detect("Total budget is now €15,000 after the permit costs.",
                     "Total budget is €12,000.")
    assert changed.contradiction and changed.cue == "number"
    assert changed.detail["clauses"] == ["Total budget is now €15,000",
                                         "Total budget is €12,000."]
