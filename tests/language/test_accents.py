"""A query word typed without its accents is written as the vault writes it, for the embedder;
and words compare without their Latin and Greek accents, Arabic and Hebrew vowel points, and
the Arabic-script letters typed for one another."""

from __future__ import annotations

import pytest

from sidecar.language.accents import fold, restore

NOTES = ["Pour créer un encadré, écrivez un avertissement.", "Créer une note chaque jour.",
         "Choisissez le thème ou la couleur, où que vous soyez: ou bien l'un, ou bien l'autre."]


@pytest.mark.parametrize(("query", "written"), [
    ("creer un encadre", "créer un encadré"),  # each word as the notes write it
    ("Creer un encadre colore", "Créer un encadré colore"),  # its case kept; no "coloré" to go by
    ("créer un encadre", "créer un encadré"),  # a word typed with its accents stays as typed
    ("ou est le theme", "ou est le thème"),  # "ou" written plain more often than "où": kept
    ("quiet harbour at dawn", "quiet harbour at dawn"),  # nothing accented to go by
])
def test_a_word_typed_plain_is_written_as_the_notes_write_it(query: str, written: str) -> None:
    assert restore(query, NOTES) == written


def test_notes_without_accents_leave_the_query_as_it_is() -> None:
    assert restore("creer un encadre", ["An English note — with “curly” quotes."]) == (
        "creer un encadre")


def test_folding_keeps_letters_of_their_own_and_other_scripts_marks() -> None:
    assert fold("żółw πώς hành động") == "zolw πως hanh dong"
    assert fold("мой дом") == "мой дом"  # й keeps its breve
    assert fold("हिन्दी") == "हिन्दी"


def test_a_letter_saved_decomposed_folds_as_the_letter_it_is() -> None:
    assert fold("cafe\u0301") == "cafe"
    assert fold("мои\u0306") == "мой"  # и + breve is й, a letter of its own
    assert fold("моло\u0301ко") == "молоко"  # a dictionary's stress mark is an accent


def test_arabic_script_and_hebrew_words_fold_as_keyword_search_reads_them() -> None:
    assert fold("غذای محلی") == fold("غذاي محلي")  # Persian and Arabic yeh
    assert fold("کتاب") == fold("كتاب")  # keheh and kaf
    assert fold("ذَهَبَ إِلَى المَدْرَسَةِ") == fold("ذهب الى المدرسه")
    assert fold("كـتـاب") == fold("كتاب")  # the tatweel draws a word out
    assert fold("שָׁלוֹם") == "שלום"


def test_a_persian_query_typed_on_an_arabic_keyboard_is_written_as_the_notes_write_it() -> None:
    notes = ["امروز غذای محلی خوردیم و غذای محلی خوب بود"]
    assert restore("غذاي محلي", notes) == "غذای محلی"


def test_traditional_and_simplified_chinese_fold_alike() -> None:
    assert fold("後來我們發現頭髮") == fold("后来我们发现头发") == "后来我们发现头发"


def test_a_russian_word_typed_with_e_for_yo_is_written_as_the_notes_write_it() -> None:
    notes = ["Включите тёмную тему: тёмная тема бережёт глаза."]
    assert restore("темная тема", notes) == "тёмная тема"
    assert fold("мой ёж") == "мой еж"


def test_a_ligature_typed_as_its_two_letters_is_written_as_the_notes_write_it() -> None:
    assert fold("cœur ægir straße") == "coeur aegir strasse"
    assert restore("le coeur de la ville", ["Au cœur de la ville, le cœur bat."]) == (
        "le cœur de la ville")
