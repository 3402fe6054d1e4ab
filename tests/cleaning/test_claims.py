from __future__ import annotations

import pytest

from sidecar.cleaning.claims import Claim, plain, split_claims

BODY = """# Title

Spaced repetition **improves** long-term retention. It works because of the
spacing effect, e.g. reviews at growing intervals. See [[Memory|memory notes]].

- Coffee does not cause dehydration.
- Dr. Smith found 8 hours of sleep is optimal!

```
code. Not a claim.
```
| a | b |
> Quoted claim is here.
"""


def test_sentences_keep_their_file_lines_and_lose_markdown() -> None:
    assert split_claims(BODY, first_line=5) == [
        Claim("Spaced repetition improves long-term retention.", 7, 7),
        Claim("It works because of the spacing effect, e.g. reviews at growing intervals.", 7, 8),
        Claim("See memory notes.", 8, 8),
        Claim("Coffee does not cause dehydration.", 10, 10),
        Claim("Dr. Smith found 8 hours of sleep is optimal!", 11, 11),
        Claim("Quoted claim is here.", 17, 17),
    ]


def test_short_fragments_are_dropped_by_word_count() -> None:
    assert [c.text for c in split_claims("Yes. This one has words.", 1, min_words=3)] == [
        "This one has words."]


def test_plain_reduces_links_and_emphasis() -> None:
    assert plain("A [[Note#h|alias]], [[Other]] and [site](https://x.org) *really* `do`.") == (
        "A alias, Other and site really do.")


def test_plain_reads_links_as_obsidian_shows_them() -> None:
    # A claim reads as the note does: a link to a heading as "Note > Heading", a link to a
    # folder's note by its name, a Markdown link to a note by its text, an image's size dropped.
    assert plain("See [[Trips/Lisbon#Food]] and [[Trips/Porto]], [the plan](Plan%20B.md), "
                 "![[map.png|300]].") == "See Lisbon > Food and Porto, the plan, map.png."


def test_dataview_inline_fields_are_properties_not_claims() -> None:
    body = (
        "# 2024-04-23\n\nMood:: 3\nSleep:: 8 hours\n**Energy**:: high\n- Weight:: 80 kg\n\n"
        "The tap drips. Plumber booked. [due:: 2024-05-01] It costs (price:: 60) euros.\n"
        "C++ code uses std::vector a lot.\n"
    )
    assert [c.text for c in split_claims(body)] == [
        "The tap drips.", "Plumber booked.", "It costs 60 euros.",
        "C++ code uses std::vector a lot."]


def test_tasks_and_kanban_cards_are_plans_not_claims() -> None:
    body = (
        "## Tasks\n- [ ] Run 5 km along the river 📅 2024-05-02 #task\n"
        "- [x] Pay the electricity bill of 60 euros ✅ 2024-05-02\n"
        "> - [/] Half done in a quote\n1. [ ] Numbered task here\n"
        "- Plain items are still claims here.\n- [link](x) items too are claims.\n"
    )
    assert [c.text for c in split_claims(body)] == [
        "Plain items are still claims here.", "link items too are claims."]


@pytest.mark.parametrize(("body", "sentences"), [
    ("Я кормлю закваску утром. Она растёт быстро.",
     ["Я кормлю закваску утром.", "Она растёт быстро."]),
    ("Το προζύμι τρώει αλεύρι. Η ζύμη φουσκώνει.",
     ["Το προζύμι τρώει αλεύρι.", "Η ζύμη φουσκώνει."]),
    ("我每天晚上喝红茶。东京是日本的首都！", ["我每天晚上喝红茶。", "东京是日本的首都！"]),
    ("東京は日本の首都です。「本当？」と彼は聞いた。",
     ["東京は日本の首都です。", "「本当？」と彼は聞いた。"]),
])
def test_sentences_end_in_every_script(body: str, sentences: list[str]) -> None:
    # Before: only a Latin capital began a sentence, and 。！？ ended none, so a Russian, Greek,
    # Chinese or Japanese paragraph was one claim.
    assert [c.text for c in split_claims(body)] == sentences


def test_a_chinese_claim_has_words_to_count() -> None:
    # Before: only Latin letters counted as words, so the scan's word minimum left out every
    # claim written in another script.
    tea = "我每天晚上喝红茶。"
    assert [c.text for c in split_claims(tea, min_words=4)] == [tea]
    assert [c.text for c in split_claims("Я кормлю закваску утром.", min_words=4)] == [
        "Я кормлю закваску утром."]


@pytest.mark.parametrize("header", [
    "> [!warning]- Changed my mind", "> [!note]", "> [!tip]+ A title, with words", ">[!quote]"])
def test_a_callout_header_is_not_part_of_its_first_claim(header: str) -> None:
    # Before: the `[!type]± Title` line was read as prose and glued to the callout's first
    # sentence ("[!warning]- Changed my mind Stoicism is not …", lines 1-2).
    body = f"{header}\n> Stoicism is not a useful philosophy for daily life.\n\nToo passive.\n"
    assert split_claims(body) == [
        Claim("Stoicism is not a useful philosophy for daily life.", 2, 2),
        Claim("Too passive.", 4, 4)]


def test_a_nested_callout_header_is_skipped_and_a_plain_quote_kept() -> None:
    body = ("> Quoted claim is here.\n> > [!info] Nested\n> > The nested claim.\n"
            "> A bracket [!x] inside a sentence stays.\n")
    assert [(c.text, c.line_start) for c in split_claims(body)] == [
        ("Quoted claim is here.", 1), ("The nested claim.", 3),
        ("A bracket [!x] inside a sentence stays.", 4)]


def test_a_callout_in_a_list_item_keeps_its_header_out_of_its_first_claim() -> None:
    # Before: "[!tip] Tip title Tip body here." (lines 1-2): the header was not seen as one.
    assert split_claims("- > [!tip] Tip title\n  > Tip body here.\n") == [
        Claim("Tip body here.", 2, 2)]


def test_a_callout_marker_on_a_later_line_of_a_quote_is_text_not_a_header() -> None:
    # Only a quote's first line opens a callout in Obsidian. Before: the second line was
    # dropped as a header and its sentence lost.
    body = "> First quote sentence.\n> [!note] The dose is 5 mg daily.\n"
    assert split_claims(body) == [
        Claim("First quote sentence.", 1, 1), Claim("The dose is 5 mg daily.", 2, 2)]
