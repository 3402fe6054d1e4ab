"""A query found word for word in a note lifts the note above those that only share its words or
its meaning: the phrase a user remembers finds where it was written, in any script."""

from __future__ import annotations

import sys

import pytest

from sidecar.retrieval.phrases import PhraseSettings, phrase

from .conftest import IndexVault, NoteSpec

# The harbour notes share the query's words and its meaning; the diary holds the phrase itself.
NOTES = [
    NoteSpec("Harbour.md", "resource", "# Harbour\n\nThe harbour is calm at sunrise, before the "
             "boats go out and the fish market opens on the quay."),
    NoteSpec("Diary 2024-05-02.md", "resource", "# Diary\n\nBought bread, called my sister, "
             "fixed the bike chain and read two chapters. Wrote a poem about the quiet harbour "
             "at dawn for the reading group, then cooked soup and went to bed early."),
]
QUERY = "the quiet harbour at dawn"


@pytest.mark.parametrize(("weight", "first"), [(0.0, False), (None, True)])
async def test_a_note_holding_the_query_word_for_word_ranks_first(
    index_vault: IndexVault, monkeypatch: pytest.MonkeyPatch, weight: float | None, first: bool,
) -> None:
    if weight is not None:  # the lift turned off, to see that it is what turns the order
        monkeypatch.setattr(sys.modules["sidecar.retrieval.search"], "phrase_settings",
                            lambda: PhraseSettings(weight, 2))
    vault = index_vault(NOTES)
    document = await vault.search(QUERY, rerank=False)
    paths = [r["path"] for r in document["results"]]
    assert (paths[0] == "Diary 2024-05-02.md") is first
    assert all(0 < r["why"]["fused"] <= 1 for r in document["results"])
    # Said of each result, whether it was lifted or not (the plugin's tooltip shows it).
    assert {r["path"]: r["why"]["phrase"] for r in document["results"]} == {
        "Diary 2024-05-02.md": weight is None, "Harbour.md": False}


def test_the_words_must_stand_in_order_side_by_side() -> None:
    sought = phrase("Quiet Harbour at dawn", 2)
    assert sought is not None
    assert sought.held_by("Diary.md", "a poem about the quiet harbour at dawn.")
    assert sought.held_by("Diary.md", "the quiet harbour,\nat dawn")
    assert not sought.held_by("Diary.md", "at dawn the quiet harbour")
    assert not sought.held_by("Diary.md", "the quiet harbour, and at dawn")
    assert not sought.held_by("Diary.md", "the quiet harbourside at dawn")
    assert not sought.held_by("Diary.md", "the unquiet harbour at dawn")


def test_a_single_word_is_no_phrase_but_may_name_a_note() -> None:
    sought = phrase("harbour", 2)
    assert sought is not None
    assert not sought.held_by("Diary.md", "the harbour at dawn")
    assert not sought.held_by("Places/Harbour.md", "the harbour at dawn")
    assert sought.names("Places/Harbour.md") and not sought.names("Harbour walks.md")
    assert phrase(" ,. ", 2) is None


def test_a_query_that_is_a_notes_alias_names_it() -> None:
    aliases = ("TFAS", "Kahneman book")
    for query in ("TFAS", "tfas", "kahneman BOOK"):
        sought = phrase(query, 2)
        assert sought is not None
        assert sought.names("Reading/Thinking Fast and Slow.md", aliases)
        assert not sought.names("Notes/Links.md", ("Bookmarks",))
    two = phrase("Kahneman book", 2)
    assert two is not None and two.held_by("Reading/Thinking Fast and Slow.md", "", aliases)
    part = phrase("TF", 2)
    assert part is not None and not part.names("Reading/Thinking.md", aliases)


def test_a_query_naming_the_note_is_held_by_its_chunks() -> None:
    sought = phrase("graph view", 2)
    assert sought is not None
    assert sought.held_by("Plugins/Graph view.md", "Shows notes as a network.")


@pytest.mark.parametrize(("text", "query"), [
    ("本周的字数统计功能已经完成。", "字数统计"),  # no spaces: each character a word
    ("मेरी हिन्दी की किताबें यहाँ हैं", "हिन्दी की किताबें"),  # marks stay inside their word
    ("Die Anzahl der Wörter steht unten.", "anzahl der WÖRTER"),
    ("អានអំពី[[បណ្ដាញសង្គម]]។ អ្នកអាចចែករំលែក", "បណ្ដាញសង្គមអ្នក"),  # Khmer's full stop, a gap
    ("アイザック・ニュートンの法則", "アイザックニュートン"),  # the katakana middle dot, a gap
])
def test_a_phrase_is_found_in_any_script(text: str, query: str) -> None:
    sought = phrase(query, 2)
    assert sought is not None and sought.held_by("Note.md", text)


@pytest.mark.parametrize(("text", "query"), [
    ("¿Cómo hago que el contenido aparezca?", "como hago que el contenido"),  # typed plain
    ("como hago que el contenido", "Cómo hago"),  # or the note written plain
    ("Żółw pływa w stawie.", "zolw plywa"),  # ł has no mark to drop: it reads as l
    ("Πώς να συγχρονίσετε", "πως να συγχρονισετε"),  # Greek tonos
    ("Bạn có thể đồng bộ hóa", "ban co the dong bo hoa"),  # Vietnamese: two marks, and đ
    ("Cafe\u0301 au lait", "café au"),  # a file saved decomposed: e and its accent apart
    ("امروز غذای محلی خوردیم", "غذاي محلي"),  # Persian typed on an Arabic keyboard
    ("ذَهَبَ إِلَى المَدْرَسَةِ", "الى المدرسه"),  # Arabic vowelled; hamza and teh marbuta
    ("שָׁלוֹם לְכֻלָּם", "שלום לכלם"),  # Hebrew with its vowel points
    ("ｱﾌﾟﾘｹｰｼｮﾝの設定", "アプリケーションの設定"),  # half-width katakana
    ("後來我們發現了問題", "后来我们发现"),  # Traditional Chinese, typed Simplified
    ("Включите тёмную тему интерфейса", "темную тему"),  # Russian ё, typed as е
    ("Au cœur de la ville", "coeur de la"),  # a ligature typed as its two letters
    ("Die Straße am Hafen", "strasse am hafen"),  # ß typed as ss
])
def test_a_phrase_is_found_whatever_its_accents(text: str, query: str) -> None:
    sought = phrase(query, 2)
    assert sought is not None and sought.held_by("Note.md", text)


@pytest.mark.parametrize(("text", "query"), [
    ("мой дом", "мои дом"),  # й is a letter of its own, not и with an accent
    ("हिन्दी की किताबें", "हिन्दी क किताबें"),  # a vowel sign is no accent
    ("el año nuevo", "el ano viejo"),  # folded words still all stand, in order
])
def test_only_latin_and_greek_accents_are_dropped(text: str, query: str) -> None:
    sought = phrase(query, 2)
    assert sought is not None and not sought.held_by("Note.md", text)


async def test_a_phrase_typed_without_its_accents_lifts_its_note(
    index_vault: IndexVault,
) -> None:
    vault = index_vault([
        NoteSpec("Puerto.md", "resource", "# Puerto\n\nEl puerto está tranquilo al amanecer, "
                 "antes de que salgan los barcos y abra el mercado del muelle."),
        NoteSpec("Diario.md", "resource", "# Diario\n\nCompré pan, llamé a mi hermana y "
                 "escribí un poema sobre el puerto tranquilo del alba para el grupo de lectura."),
    ])
    document = await vault.search("el puerto tranquilo del alba", rerank=False)
    assert {r["path"]: r["why"]["phrase"] for r in document["results"]} == {
        "Diario.md": True, "Puerto.md": False}
    document = await vault.search("escribi un poema sobre el puerto", rerank=False)
    assert document["results"][0]["path"] == "Diario.md"
    assert document["results"][0]["why"]["phrase"]


def test_a_place_rejected_does_not_hide_the_next_one() -> None:
    sought = phrase("a a", 2)
    assert sought is not None and sought.held_by("Note.md", "ba a a")


def test_a_word_is_not_found_inside_another_at_its_marks() -> None:
    # "न्दी" ends "हिन्दी", after the vowel sign of "हि": a mark belongs to its word.
    sought = phrase("न्दी की", 2)
    assert sought is not None and not sought.held_by("Note.md", "मेरी हिन्दी की किताबें")


async def test_a_chat_note_holding_the_question_asked_is_not_lifted(
    index_vault: IndexVault,
) -> None:
    # A chat note holds every question asked in it: asking one again must find what answers it.
    vault = index_vault([
        NoteSpec("Chats/Ora/2026-12-02 Memory.md", "resource",
                 "## How does spaced repetition help memory?\n\nIt helps, as your notes say.",
                 extra={"conversation": "c-1"}),
        NoteSpec("Spacing.md", "engram", "# Spacing\n\nReviewing at growing intervals, spaced "
                 "repetition, strengthens memory: each review at the edge of forgetting makes "
                 "the next forgetting slower."),
    ])
    document = await vault.search("How does spaced repetition help memory?", rerank=False)
    # Not lifted, and said so (the plugin's end-to-end Ask test sees the order it keeps).
    assert {r["path"]: r["why"]["phrase"] for r in document["results"]} == {
        "Spacing.md": False, "Chats/Ora/2026-12-02 Memory.md": False}


RETRO = """# Sprint 14 retrospective

| Went well | To improve |
|---|---|
| Shipped the onboarding flow | Too many meetings |
| Zero sev-1 incidents | Code review latency |

Action: timebox review requests to 24 hours."""
BOOK = """# Thinking, Fast and Slow

System 1 is fast, intuitive and emotional; System 2 is slower, deliberative and logical.

The availability heuristic: we judge frequency by how easily examples come to mind."""


async def test_a_query_that_is_a_notes_file_name_whole_ranks_it_first(
    index_vault: IndexVault,
) -> None:
    vault = index_vault([
        NoteSpec("Meetings/2024-03-19 Retro.md", "resource", RETRO),
        NoteSpec("Reading/TFAS.md", "resource", BOOK),
        NoteSpec("Notes/Reading list.md", "resource",
                 "# Reading list\n\nTFAS, then Deep Work; TFAS first, it is short."),
    ])
    # another note holds the word on both lists, and the book has no other hold on it
    for query in ("tfas", "TFAS"):
        document = await vault.search(query, rerank=False)
        assert document["results"][0]["path"] == "Reading/TFAS.md"
        assert document["results"][0]["why"]["phrase"] is True
        assert all(0 < r["why"]["fused"] <= 1 for r in document["results"])


async def test_a_query_that_is_one_of_a_notes_aliases_ranks_it_first(
    index_vault: IndexVault,
) -> None:
    # Before: "TFAS", an alias of the book note, ranked the retro that says "TFAS" first.
    vault = index_vault([
        NoteSpec("Meetings/2024-03-19 Retro.md", "resource", RETRO),
        NoteSpec("Reading/Thinking Fast and Slow.md", "resource", BOOK,
                 extra={"aliases": ["TFAS", "Kahneman book"]}),
        NoteSpec("Notes/Reading list.md", "resource",
                 "# Reading list\n\nTFAS, then Deep Work; TFAS first, it is short."),
    ])
    for query in ("TFAS", "kahneman book"):
        document = await vault.search(query, rerank=False)
        assert document["results"][0]["path"] == "Reading/Thinking Fast and Slow.md", query
