"""Letters read as others before text is cut into words (`language/letters.py`): each rule read from
its data, and text that needs none left as it is."""

from __future__ import annotations

import unicodedata

from sidecar.language.letters import composed, han, marked, unified, width_forms


def test_text_is_composed_and_its_widths_made_usual() -> None:
    assert composed(unicodedata.normalize("NFD", "ペンギン 회의록 café")) == "ペンギン 회의록 café"
    assert composed("ｱﾌﾟﾘ ＡＰＩ１２") == "アプリ API12"
    plain = "Ein gewöhnlicher Satz, schon zusammengesetzt."
    assert composed(plain) == plain


def test_each_rule_comes_from_its_data() -> None:
    table = unified()
    assert "غذای".translate(table) == "غذاي"  # Persian yeh as Arabic yeh
    assert "كَتَبَ".translate(table) == "كتب"  # harakat dropped
    assert "שָׁלוֹם".translate(table) == "שלום"  # niqqud dropped
    assert "İstanbul ۱۴۰۲".translate(table) == "istanbul 1402"
    assert "後來".translate(table) == "后来"
    assert len(han()) > 3000  # OpenCC's table, not a sample


def test_scripts_with_marks_and_width_forms_are_known() -> None:
    assert marked().search("שלום") and marked().search("كتب")
    assert not marked().search("привет мир hello")
    assert {"ア", "A", "1"} <= width_forms()
