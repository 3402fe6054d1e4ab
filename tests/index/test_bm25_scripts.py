"""BM25 in every script: words kept whole across their combining marks, scripts written without
spaces found by their words (of one character too), a note's language told by its script, and a
word's rarity counted over every language's field of a mixed store."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from sidecar.index import bm25 as bm25_module
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow
from sidecar.language import languages
from sidecar.language.languages import detect, words


def _row(i: int, text: str) -> SparseRow:
    return SparseRow(f"id{i}", f"n{i}.md", False, text, "", "")


def _store(tmp_path: Path, texts: list[str]) -> Bm25Store:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    bm25.replace("ns", deletes={}, inserts={
        False: [_row(i, text) for i, text in enumerate(texts, start=1)], True: []})
    return bm25


def _ids(bm25: Bm25Store, query: str) -> list[str]:
    return [cid for cid, _ in bm25.search("ns", query, 5, private=False,
                                          include_archived=False)]


HINDI = ["मुझे हिन्दी में नोट्स लिखना पसंद है और मैं रोज़ लिखता हूँ",
         "यह पाठ अंग्रेज़ी के बारे में है और किताबों के बारे में भी"]


def test_a_word_with_a_virama_is_one_word_in_the_query_and_the_note(tmp_path: Path) -> None:
    # Before: the query "हिन्दी" was cut at every mark ("ह", "न", "द") and the note's word at its
    # virama ("हिन", "दी"): nothing matched.
    assert words("हिन्दी नोट्स") == ["हिनदी", "नोटस"]
    bm25 = _store(tmp_path, HINDI)
    assert _ids(bm25, "हिन्दी")[:1] == ["id1"]
    assert _ids(bm25, "नोट्स")[:1] == ["id1"]
    bm25.close()


def test_a_persian_word_is_found_with_or_without_its_zero_width_non_joiner(
        tmp_path: Path) -> None:
    # "کتاب‌ها" (books) is also written "کتابها": before, the note's word was two ("کتاب", "ها").
    bm25 = _store(tmp_path, ["من کتاب‌ها را در کتابخانه می‌خوانم", "امروز هوا خوب است"])
    assert _ids(bm25, "کتابها")[:1] == ["id1"]
    bm25.close()


@pytest.mark.parametrize(("texts", "query"), [
    # Persian typed on an Arabic keyboard: Arabic yeh and kaf for Persian ی and ک.
    (["امروز غذای محلی خوردیم و کباب خیلی خوب بود", "هوا امروز سرد است"], "غذاي محلي كباب"),
    # The other way: an Arabic note, a query with Persian letters.
    (["ذهبت إلى المكتبة لأقرأ كتابا عن التاريخ", "كتبت عن الطقس"], "کتابا عن التاریخ"),
    # A vowelled Arabic note, a plain query: a hamza left off, teh marbuta typed as heh.
    (["ذَهَبَ الوَلَدُ إِلَى المَدْرَسَةِ صَبَاحًا", "ذهب الولد الى البيت"], "الى المدرسه صباحا"),
    # Letters drawn out by the tatweel.
    (["كـتـاب جـديـد عن الفلك", "كتب عن الطقس"], "كتاب جديد عن"),
    # Persian digits in the query, the note's year in ASCII digits.
    (["سفر اصفهان در سال 1402 بود", "سفر شیراز در سال 1399 بود"], "۱۴۰۲"),
    # Turkish İ: lowercased, it kept a dot above that no typed word holds.
    (["İstanbul'da bir hafta geçirdik, İzmir'e de gittik", "Ankara bu kış çok soğuktu"],
     "istanbul izmir"),
    (["İyi bir gün geçirdik", "Kötü bir gün"], "İyi"),
    # Names and text macOS saved decomposed: Japanese ペ as ヘ and its sound mark, Korean
    # syllables as their jamo; the query typed composed, as every keyboard types it.
    ([unicodedata.normalize("NFD", "ペンギンの観察ノート"), "ヘンな音の記録"], "ペンギン"),
    ([unicodedata.normalize("NFD", "주간 회의록 정리"), "회의 일정 안내"], "회의록"),
    # Half-width katakana, as older Japanese text and some input methods write it.
    (["ｱﾌﾟﾘｹｰｼｮﾝの設定を変更する", "アップデートの記録"], "アプリケーション"),
    (["アプリケーションの設定を変更する", "アップデートの記録"], "ｱﾌﾟﾘ"),
    # Chinese in either script: a Traditional note, a Simplified query, and the other way.
    (["後來我們發現這個設定檔的問題", "我們今天開會討論"], "设定档"),
    (["后来我们发现这个设置的问题", "我们今天开会讨论"], "發現這個"),
    # A Hebrew note with its vowel points (niqqud), a plain query.
    (["שָׁלוֹם לְכֻלָּם, הַיּוֹם נִלְמַד עַל הַיָּם", "מזג האוויר נאה היום"], "שלום לכולם"),
])
def test_a_word_is_found_however_its_script_lets_it_be_typed(
        tmp_path: Path, texts: list[str], query: str) -> None:
    # Before, the Persian and the Hebrew queries shared no word with their note (a mark or
    # another letter inside the word); an Arabic note was already read so by its stemmer, a
    # Persian one is now read alike, with no stemmer of its own.
    bm25 = _store(tmp_path, texts)
    assert _ids(bm25, query)[:1] == ["id1"]
    bm25.close()


@pytest.mark.parametrize(("texts", "query"), [
    (["ภาษาไทยเขียนติดกันโดยไม่เว้นวรรคระหว่างคำ", "วันนี้อากาศดีมากและฉันไปตลาด"], "เว้นวรรค"),
    (["ភាសាខ្មែរសរសេរជាប់គ្នាដោយគ្មានដកឃ្លា", "ថ្ងៃនេះអាកាសធាតុល្អណាស់"], "ដកឃ្លា"),
])
def test_a_word_inside_a_run_of_a_script_without_spaces_is_found(
        tmp_path: Path, texts: list[str], query: str) -> None:
    # Before: a Thai or Khmer run was one token (and one of over 40 characters none at all).
    bm25 = _store(tmp_path, texts)
    assert _ids(bm25, query)[:1] == ["id1"]
    bm25.close()


@pytest.mark.parametrize(("texts", "query"), [
    # 茶 (tea) last in its run: its one pair, 绿茶, holds it with the letter before.
    (["我每天早上喝一杯绿茶。", "我喜欢喝咖啡，特别是拿铁。", "夏天喝冰镇的果汁最舒服。"], "茶"),
    (["会后大家喝茶休息。", "我喜欢喝咖啡，特别是拿铁。"], "茶"),
    (["東京駅で友達に会った。", "新しいカメラで写真を撮った。"], "駅"),
    (["어제 도서관에서 책을 읽었다", "오늘은 날씨가 좋아서 공원에 갔다"], "책"),
    # Traditional in the note, Simplified typed: unified as the pairs are.
    (["週末買了一本書。", "週末去公園散步。"], "书"),
])
def test_a_word_of_one_character_is_found_in_chinese_japanese_and_korean(
        tmp_path: Path, texts: list[str], query: str) -> None:
    # Before: the notes were indexed as character pairs only, and the query's one character
    # equals no pair: keyword search found nothing, or only a note holding the character alone.
    bm25 = _store(tmp_path, texts)
    assert _ids(bm25, query) == ["id1"]
    bm25.close()


def test_a_store_indexed_before_one_character_words_is_rebuilt_and_finds_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An engine of the layout before: no letters one by one, and its version recorded.
    with monkeypatch.context() as before:
        before.setattr(languages, "indexed", lambda text: (languages.segment(text), ""))
        before.setattr(bm25_module, "VERSION", "tantivy 0.27.0; body: pairs only")
        bm25 = _store(tmp_path, ["我每天早上喝一杯绿茶。", "我喜欢喝咖啡。"])
        assert _ids(bm25, "茶") == []
        bm25.close()
    assert Bm25Store(tmp_path / "bm25.sqlite").of_another_version("ns")
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")  # as the index's writer opens it: the engines are rebuilt from the table
    assert _ids(bm25, "茶") == ["id1"]
    bm25.close()


# A Thai vault's greeting: in most of its notes, so no rarity of its own.
THAI_NOTES = ["สวัสดีตอนเช้า สวัสดีครับ"] + ["สวัสดี" + text for text in [
    "ตอนเช้า สวัสดีทุกคน", "ตลาดนัดวันเสาร์มีผลไม้และขนมไทย", "การเดินทางไปเชียงใหม่ใช้เวลาหนึ่งวัน",
    "ปีใหม่และขอให้มีความสุข", "ร้านกาแฟเปิดตอนเจ็ดโมงเช้าทุกวัน", "หนังสือเล่มนี้สนุกมากและอ่านง่าย",
    "ฝนตกหนักเมื่อคืนนี้", "แมวนอนอยู่บนโซฟา", "พรุ่งนี้มีประชุมตอนบ่าย"]]


def test_a_few_notes_of_another_language_do_not_take_the_top_of_every_search(
        tmp_path: Path) -> None:
    # The English note holds the Thai word once. Its field (English) holds the word in one
    # document of eleven, and tantivy, counting all documents, took the word for rare there:
    # the English note ranked first, above every Thai note that says it.
    english = ("Greetings in Thai: the word สวัสดี is what you say to everyone, and it is the "
               "first word a visitor learns in the country.")
    bm25 = _store(tmp_path, [*THAI_NOTES, english])
    assert detect(english) == "en" and detect(THAI_NOTES[0]) == "th"
    found = _ids(bm25, "สวัสดี")
    assert found and found[0] != "id11"
    bm25.close()
