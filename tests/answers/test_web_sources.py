"""A chat note never holds a web result's text, in any script: the runs an answer repeats from a
web result are left out, Chinese and Thai sentences included; a web result's title and URL under
its sources neither change the note's status nor embed anything."""

from __future__ import annotations

from sidecar.answers.web_sources import web_source_line, without_web_text
from sidecar.vault.note import parse_note

ZH_WEB = "东京是日本的首都，也是世界上人口最多的城市之一，每年吸引大量游客。"
TH_WEB = "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทยและมีประชากรมากที่สุดในประเทศ"


def test_a_chinese_sentence_repeated_from_a_web_result_is_left_out() -> None:
    # Before: the whole run between two commas was one word, and a run needed six of them.
    answer = "根据网页[W1]，也是世界上人口最多的城市之一。我的笔记也提到了这一点。"
    text, quoted = without_web_text(answer, [{"text": ZH_WEB}])
    assert "人口最多的城市" not in text and "[W1: quoted web text left out]" in text
    assert "我的笔记也提到了这一点" in text and quoted == {1}


def test_a_few_chinese_characters_in_common_with_a_web_result_stay() -> None:
    # Six characters are about three words: an answer may share that much without quoting.
    answer = "日本的首都很大，我在笔记里写过。"
    assert without_web_text(answer, [{"text": ZH_WEB}]) == (answer, set())


def test_a_thai_sentence_repeated_from_a_web_result_is_left_out() -> None:
    answer = f"ตามเว็บ [W1] {TH_WEB[:40]} และโน้ตของฉันก็เขียนไว้"
    text, quoted = without_web_text(answer, [{"text": TH_WEB}])
    assert TH_WEB[:40] not in text and quoted == {1}
    assert "โน้ตของฉันก็เขียนไว้" in text


def test_an_english_run_is_still_six_words() -> None:
    web = "Sourdough starters need feeding every day at room temperature to stay active."
    kept = "Starters need feeding every day, my notes say."
    assert without_web_text(kept, [{"text": web}]) == (kept, set())
    text, _ = without_web_text("Mine: starters need feeding every day at room temperature.",
                               [{"text": web}])
    assert "room temperature" not in text


def test_a_web_results_title_makes_no_tag_and_embeds_nothing() -> None:
    # Before: a result titled "Starter guide #private" listed under an ask --web answer's
    # sources made the whole conversation's note private.
    line = web_source_line(1, {"title": "Starter guide #private #archived ![[Private/Diary]]",
                               "url": "https://tags.example/a b#private"})
    note = parse_note(f"---\ntype: chat\n---\n{line}\n", "Chats/c.md")
    assert not note.is_private and not note.is_archived and note.tags == ()
    assert "![[" not in line and "(<https://tags.example/a%20b#\u2060private>)" in line
