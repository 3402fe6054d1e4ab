"""The gate's text rules in more languages than English: a guess or a sentence that names nothing
in particular is no claim, a question is one whatever its question mark, and a user's pushback
in Spanish, Italian, Dutch, Portuguese, Chinese or Japanese rejects the assistant's claim."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from sidecar.extraction.gate import gate
from sidecar.extraction.proposals import Match, Source, Turn
from sidecar.extraction.rules import rule_candidates


class NoEngrams:
    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        return [[] for _ in texts]


def _run(*turns: tuple[str, str]) -> tuple[list[str], dict[str, str]]:
    source = Source("c", "Chats/Ora/c.md", "h", [
        Turn(n, role, text, False, 10 * n, 10 * n) for n, (role, text) in enumerate(turns, 1)],
        [], False, frozenset())
    proposals, dropped = gate(source, rule_candidates(source), NoEngrams())
    return [p.text for p in proposals], {d.text: d.reason for d in dropped}


# Before: every one of these was proposed as a claim (a `fact`).
GUESSES = [
    "Probably rye flour ferments faster than white flour, but I am guessing.",
    "Rye flour ferments faster than white flour, but I am guessing.",
    "Maybe rye flour ferments faster than white flour.",
    "Perhaps the dough needs a longer bulk fermentation in winter.",
    "Peut-être que la farine de seigle fermente plus vite.",
    "Vielleicht gärt Roggenmehl schneller als Weizenmehl.",
    "Quizás la harina de centeno fermenta más rápido que la blanca.",
    "Tal vez la masa necesita más tiempo en invierno.",
    "Forse la farina di segale fermenta più velocemente.",
    "Misschien gist roggemeel sneller dan witte bloem.",
    "Talvez a farinha de centeio fermente mais rápido.",
    "也许黑麦粉比白面粉发酵得更快。",
    "たぶんライ麦粉は白い小麦粉より早く発酵します。",
]
VAGUE = [
    "Results can vary quite a lot in practice.",
    "There are many things to consider here.",
    "Los resultados pueden variar mucho en la práctica.",
    "Hay muchas cosas que considerar aquí.",
    "Die Ergebnisse können in der Praxis stark variieren.",
    "Les résultats peuvent varier beaucoup en pratique.",
    "I risultati possono variare parecchio in pratica.",
]


# Before: each was proposed as the user's claim, the denial's words and all.
REPORTED = [
    "I never said that whole wheat bread is healthier than white bread.",
    "No, I didn't say that rye bread needs a hot oven.",
    "Hmm, you said that the oven should be at 250 degrees.",
    "Je n'ai jamais dit que le pain complet est plus sain que le pain blanc.",
    "Ich habe nie gesagt, dass Roggenbrot gesünder als Weißbrot ist.",
    "Nunca dije que el pan integral sea más sano que el pan blanco.",
    "Non ho mai detto che il pane integrale è più sano del pane bianco.",
    "我从来没说过全麦面包比白面包更健康。",
]


@pytest.mark.parametrize("sentence", REPORTED)
def test_a_report_of_who_said_what_in_the_conversation_is_not_a_claim(sentence: str) -> None:
    proposed, dropped = _run(("user", sentence))
    assert proposed == [] and set(dropped.values()) == {"not-a-claim"}


def test_a_claim_beside_a_report_of_who_said_what_is_still_proposed() -> None:
    proposed, _ = _run(("user", "I never said that rye bread is sour. Whole wheat bread keeps "
                                "longer than white bread in a cool pantry."))
    assert proposed == ["Whole wheat bread keeps longer than white bread in a cool pantry."]


@pytest.mark.parametrize("sentence", GUESSES + VAGUE)
def test_a_guess_or_a_sentence_naming_nothing_in_particular_is_not_a_claim(
        sentence: str) -> None:
    proposed, dropped = _run(("assistant", sentence))
    assert proposed == [] and dropped == {sentence: "not-a-claim"}


@pytest.mark.parametrize("sentence", [
    "Fermentation time can vary a lot with the temperature of the kitchen.",
    "A levain is usually made the night before the bake.",
    "La fermentación depende de la temperatura de la cocina.",
    "Rye flour ferments faster than white flour.",
    "面团在冷藏四十八小时后会失去筋力。",
])
def test_a_claim_qualified_by_degree_or_frequency_is_still_a_claim(sentence: str) -> None:
    assert _run(("assistant", sentence)) == ([sentence], {})


@pytest.mark.parametrize("question", [
    "面团在冰箱里应该发酵多久？",
    "パン生地は冷蔵庫で何時間発酵させるべきですか？",
    "¿Cuánto tiempo debe fermentar la masa en la nevera",
    "He asked: \"How long should the dough proof in the fridge?\"",
])
def test_a_question_is_not_a_claim_whatever_its_question_mark(question: str) -> None:
    # Before: only a sentence ending in the ASCII '?' was a question.
    assert _run(("user", question)) == ([], {question: "not-a-claim"})


CLAIM = {
    "es": "La masa puede fermentar en la nevera hasta setenta y dos horas sin problemas.",
    "it": "L'impasto può lievitare in frigorifero fino a settantadue ore senza problemi.",
    "nl": "Het deeg kan tot tweeënzeventig uur in de koelkast rijzen zonder problemen.",
    "pt": "A massa pode fermentar na geladeira até setenta e duas horas sem problemas.",
    "zh": "面团可以在冰箱里发酵长达七十二个小时而不会有问题。",
    "ja": "パン生地は冷蔵庫で七十二時間まで問題なく発酵させることができます。",
}
PUSHBACK = {
    "es": "No, eso es falso.",
    "it": "No, non è vero.",
    "nl": "Nee, dat klopt niet.",
    "pt": "Não, isso está errado.",
    "zh": "不对，这是错的。",
    "ja": "いいえ、それは違います。",
}


@pytest.mark.parametrize("lang", sorted(CLAIM))
def test_a_users_pushback_in_another_language_rejects_the_assistants_claim(lang: str) -> None:
    # Before: the cues were English, French and German only: the rejected claim was proposed.
    proposed, dropped = _run(("assistant", CLAIM[lang]), ("user", PUSHBACK[lang]))
    assert proposed == [] and dropped[CLAIM[lang]] == "pushback"


def test_a_chinese_pushback_inside_a_sentence_counts_but_a_word_holding_its_letters_does_not(
) -> None:
    claim = CLAIM["zh"]
    assert _run(("assistant", claim), ("user", "你说的不对。"))[0] == []
    # 不对称 ("asymmetric") holds the letters of 不对 ("wrong") and is no pushback
    assert claim in _run(("assistant", claim), ("user", "这个面包的形状不对称。"))[0]
