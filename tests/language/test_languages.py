"""A note's language (`language/languages.py`): told by its stopwords, its script or the letters
only one language of that script uses; a setting wins; too little text gets the default."""

from __future__ import annotations

import pytest

from sidecar.language.languages import detect, language_of, shares
from sidecar.language.suggest import wants_multilingual

from .sentences import DUTCH, ENGLISH, FRENCH, GERMAN, SPANISH


@pytest.mark.parametrize(("text", "code"), [
    (GERMAN, "de"), (FRENCH, "fr"), (ENGLISH, "en"), (DUTCH, "nl"), (SPANISH, "es")])
def test_a_notes_language_is_detected_from_its_stopwords(text: str, code: str) -> None:
    assert detect(text) == code


# Snowball's Danish list lacks the function words Danish shares with Norwegian ("kan",
# "hvordan"), which its Norwegian list has: Danish help text was read as Norwegian.
@pytest.mark.parametrize(("text", "code"), [
    ("Du kan se, hvordan noten er forbundet med nogle af de andre noter, og du kan åbne den i et "
     "nyt vindue.",
     "da"),
    ("Du kan se hvordan notatet er koblet til noen av de andre notatene, og du kan åpne det i et "
     "nytt vindu.",
     "no")])
def test_danish_and_norwegian_are_told_apart(text: str, code: str) -> None:
    assert detect(text) == code


@pytest.mark.parametrize(
    "text", ["", "Kubernetes, Grafana, Prometheus", "東京", "x = f(y)"])
def test_text_with_too_few_stopwords_gets_the_default(text: str) -> None:
    assert detect(text) is None
    assert language_of([text]) == "en"


def test_a_setting_wins_over_detection() -> None:
    assert language_of([ENGLISH], "de") == "de"
    assert language_of([ENGLISH], "xx") == "en"  # not a language of languages.json


def test_chinese_text_with_a_few_latin_words_is_not_taken_for_a_european_language() -> None:
    # Before CJK runs counted as their pairs, help-vault notes like this were Portuguese.
    assert detect("在 Obsidian 中，使用模板插件可以把预先写好的文本插入到笔记中，"
                  "例如 a data e o title 变量。"
                  "关系图谱展示了笔记之间的链接和它们的关系，可以在设置中打开。") == "zh"


@pytest.mark.parametrize(("text", "code"), [
    ("东京都和京都府都是城市", "zh"), ("東京都と京都府はどちらも都市です", "ja"),
    ("한국어 텍스트는 띄어쓰기를 합니다", "ko"),
    # Names and links, the note's words in Chinese: Chinese, not the English of the names.
    ("核心团队构建和维护软件\n- kepano (Steph Ango) of the team\n- Licat (Shida Li) and the app",
     "zh"),
    # An English note quoting a few Chinese characters stays English.
    (ENGLISH + " The word for note is 笔记 in Chinese.", "en")])
def test_cjk_text_is_told_by_its_script(text: str, code: str) -> None:
    assert detect(text) == code


@pytest.mark.parametrize(("text", "code"), [
    ("Τα ελληνικά γράφονται με το ελληνικό αλφάβητο και έχουν πολλές σημειώσεις.", "el"),
    ("Привіт, як справи? Це моя нотатка про подорож до Львова і Києва.", "uk"),
    ("Привет, как дела? Это моя заметка, и я её пишу каждый день.", "ru"),
    ("זו הערה בעברית על הטיול שלי לירושלים ועל האוכל שם.", "he"),
    ("मुझे हिन्दी में नोट्स लिखना पसंद है और मैं रोज़ लिखता हूँ", "hi"),
    ("ภาษาไทยเขียนติดกันโดยไม่เว้นวรรคระหว่างคำ", "th"),
    ("ភាសាខ្មែរសរសេរជាប់គ្នាដោយគ្មានដកឃ្លា", "km"),
    ("هذه ملاحظة باللغة العربية عن رحلتي إلى القاهرة.", "ar"),
    # Russian by its stopwords; an English note quoting a Greek word stays English.
    ("The word count shows how long a note is; the Greek for note is σημείωση.", "en"),
])
def test_a_notes_language_is_told_by_its_script_when_no_stopwords_tell_it(
        text: str, code: str) -> None:
    assert detect(text) == code


def test_a_vault_in_a_script_of_its_own_counts_as_not_english() -> None:
    # Before: a Greek or Thai note counted as English, so a Thai vault was given the
    # English-only embedder and `ora index` suggested nothing.
    found = shares([("Τα ελληνικά γράφονται με το ελληνικό αλφάβητο.", ""),
                    ("ภาษาไทยเขียนติดกันโดยไม่เว้นวรรค", ""),
                    ("The word count shows how long a note is and how many it has.", "")])
    assert found == {"el": 0.333, "en": 0.333, "th": 0.333}
    assert wants_multilingual({"th": 0.9, "en": 0.1})
