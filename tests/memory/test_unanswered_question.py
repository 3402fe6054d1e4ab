"""A question asked again after the server died answering it is the same turn, not a second one.

The QA pass killed the sidecar (SIGKILL) while it streamed an answer and asked the question
again after the restart: the chat note and the log held `user, user` back to back, and both went
to the model. The question is written before the model is asked (so a crash keeps it), and
nothing after it: asked again, it is that turn. Asked again after an answer, or after a
`no answer` line, it is a new turn, as the user asked it twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

QUESTION = "And what about deep sleep?"
ANSWER = "Caffeine after two pm reduces deep sleep."


def _asked_before_a_crash(open_memory: Callable[..., Any]) -> Any:
    """A conversation with one answered question, then a question the server died answering;
    the data folder opened again, as a restarted server opens it."""
    memory = open_memory().memory()
    memory.remember("user", "Does caffeine affect sleep?")
    memory.remember("assistant", "It can, when taken late in the day.")
    memory.remember("user", QUESTION)  # written before the model is asked; then SIGKILL
    return open_memory()


def _roles(memory: Any) -> list[str]:
    return [t.role for t in memory.turns()]


def _questions_in_note(opened: Any, memory: Any) -> int:
    return (opened.config.vault / memory.note_path).read_text(encoding="utf-8").count(QUESTION)


async def test_a_question_asked_again_after_a_crash_is_one_turn_sent_once(
    open_memory: Callable[..., Any],
) -> None:
    opened = _asked_before_a_crash(open_memory)
    memory = opened.memory()
    orphan = memory.turns()[-1]
    context = await memory.context(QUESTION)
    # The pipeline sends the question after the context: the orphaned turn is not sent too.
    assert [m["content"] for m in context].count(QUESTION) == 0
    assert context[-1] == {"role": "assistant", "content": "It can, when taken late in the day."}
    again = memory.remember("user", QUESTION)
    assert again is not None and again.id == orphan.id
    memory.remember("assistant", ANSWER)
    assert _roles(memory) == ["user", "assistant", "user", "assistant"]
    assert _questions_in_note(opened, memory) == 1


def test_a_question_asked_again_after_its_answer_is_a_new_turn(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    memory = opened.memory()
    memory.remember("user", QUESTION)
    memory.remember("assistant", ANSWER)
    memory.remember("user", QUESTION)
    assert _roles(memory) == ["user", "assistant", "user"]
    assert _questions_in_note(opened, memory) == 2


def test_a_question_asked_again_after_a_no_answer_line_is_a_new_turn(
    open_memory: Callable[..., Any],
) -> None:
    opened = _asked_before_a_crash(open_memory)
    memory = opened.memory()
    memory.no_answer("the model did not answer")
    memory.remember("user", QUESTION)
    assert _roles(memory) == ["user", "assistant", "user", "user"]
    assert _questions_in_note(opened, memory) == 2


def test_another_question_after_a_crash_is_a_new_turn(open_memory: Callable[..., Any]) -> None:
    opened = _asked_before_a_crash(open_memory)
    memory = opened.memory()
    memory.remember("user", "What about naps?")
    assert _roles(memory) == ["user", "assistant", "user", "user"]
