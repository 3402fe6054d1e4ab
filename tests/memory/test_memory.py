"""Three-tier conversation memory over real SQLite, Chroma, the MiniLM embedder and a loopback
chat endpoint: window budget, summary watermark, episodic recall, durability, private turns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sidecar.memory import ConversationMemory, Episodic, count_tokens, restore_recall
from sidecar.memory.conversation import SUMMARY_PROMPT

CHAT = [
    ("user", "I feed my sourdough starter with rye flour every twelve hours."),
    ("assistant", "Rye flour gives the starter plenty of wild yeast to eat."),
    ("user", "My bicycle chain keeps slipping on the smallest gear."),
    ("assistant", "A slipping chain usually means the cassette or chain is worn."),
    ("user", "Which tax form lists my capital gains for the year?"),
    ("assistant", "The annual statement from your broker lists the capital gains."),
    ("user", "Python dataclasses can be frozen to make them immutable."),
    ("assistant", "Frozen dataclasses raise an error when a field is assigned."),
]


def _say(memory: ConversationMemory, turns: list[tuple[str, str]]) -> None:
    for role, content in turns:
        memory.remember(role, content)


def _text(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


def test_the_window_is_the_longest_recent_suffix_within_the_token_budget(
    open_memory: Callable[..., Any],
) -> None:
    memory = open_memory().memory()
    _say(memory, CHAT)
    turns = memory.turns()
    assert [t.tokens for t in turns] == [
        count_tokens(memory.embedder.tokenizer, c) for _, c in CHAT]
    window = memory.window()
    used = sum(t.tokens for t in window)
    assert window == turns[len(turns) - len(window):]
    assert 0 < used <= memory.limits.window_tokens
    # The turn before fits no more, or it is a question whose answer started the suffix
    # that fit (and was dropped with it).
    before = turns[-len(window) - 1]
    assert (used + before.tokens > memory.limits.window_tokens
            or used + before.tokens + turns[-len(window) - 2].tokens
            > memory.limits.window_tokens)


def test_the_window_never_starts_with_an_answer_whose_question_was_dropped(
    open_memory: Callable[..., Any],
) -> None:
    memory = open_memory().memory()
    _say(memory, CHAT)
    # 40 tokens hold the last answer, question and the answer before them (13 + 14 + 11) but not
    # that answer's question: the suffix that fits starts with an answer, which goes too.
    assert [t.tokens for t in memory.turns()][-4:] == [11, 11, 14, 13]
    window = memory.window()
    assert window[0].role == "user"
    assert [t.content for t in window] == [c for _, c in CHAT[-2:]]


async def test_the_summary_folds_in_only_newly_evicted_turns(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    memory = open_memory(llm_url=llm.url).memory()
    llm.reply = lambda body: f"summary #{len(llm.requests)}"
    _say(memory, CHAT[:6])
    context = await memory.context("anything")
    first_evicted = [t for t in memory.turns() if t.id < memory.window()[0].id]
    (request,) = llm.with_system(SUMMARY_PROMPT)
    sent = request["messages"][1]["content"]
    assert first_evicted and all(t.content in sent for t in first_evicted)
    assert not any(t.content in sent for t in memory.window())
    assert context[0] == {"role": "system",
                          "content": "Summary of the earlier conversation:\nsummary #1"}
    assert context[-len(memory.window()):] == [
        {"role": t.role, "content": t.content} for t in memory.window()]

    await memory.context("nothing new was evicted")
    assert len(llm.with_system(SUMMARY_PROMPT)) == 1

    _say(memory, CHAT[6:])
    await memory.context("anything")
    assert len(llm.with_system(SUMMARY_PROMPT)) == 2
    sent = llm.with_system(SUMMARY_PROMPT)[1]["messages"][1]["content"]
    newly = [t for t in memory.turns()
             if first_evicted[-1].id < t.id < memory.window()[0].id]
    assert newly and all(t.content in sent for t in newly)
    assert not any(t.content in sent for t in first_evicted)
    assert "summary #1" in sent  # the running summary is extended, not restarted
    covered = memory.store.summary(memory.namespace, "c1", private=False).covered
    assert covered == newly[-1].id


async def test_a_failed_summary_keeps_the_watermark_and_retries(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    memory = open_memory(llm_url=llm.url).memory()
    _say(memory, CHAT)
    llm.mode = "error"
    context = await memory.context("anything")
    assert "not summarised" in _text(context)
    assert memory.store.summary(memory.namespace, "c1", private=False).covered == 0
    llm.mode = "ok"
    context = await memory.context("anything")
    assert context[0]["content"].startswith("Summary of the earlier conversation:")
    assert len(llm.with_system(SUMMARY_PROMPT)) == 2


async def test_without_a_model_evicted_turns_are_not_summarised_but_recalled(
    open_memory: Callable[..., Any],
) -> None:
    memory = open_memory().memory()
    _say(memory, CHAT)
    assert CHAT[0][1] not in _text([{"content": t.content} for t in memory.window()])
    context = await memory.context("How often should I feed the sourdough starter?")
    assert "are not summarised" in context[0]["content"]
    recalled = next(m["content"] for m in context if m["content"].startswith("Earlier turns"))
    first = recalled.splitlines()[1]
    assert first == f"- (user, conversation c1) {CHAT[0][1]}"


async def test_recall_reaches_other_conversations_of_the_namespace(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    _say(opened.memory("older"), CHAT[:2])
    context = await opened.memory("newer").context("what flour goes in my sourdough starter?")
    assert f"(user, conversation older) {CHAT[0][1]}" in _text(context)


async def test_recall_survives_an_idle_release_of_the_vector_store(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    _say(opened.memory("older"), CHAT[:2])
    assert opened.index.chroma.release(0.0)  # what an idle `ora serve` does
    context = await opened.memory("newer").context("what flour goes in my sourdough starter?")
    assert f"(user, conversation older) {CHAT[0][1]}" in _text(context)
    assert opened.index.chroma.opens == 2


async def test_memory_survives_reopening(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    llm.reply = lambda body: "they talked about bread, bikes and taxes"
    before = open_memory(llm_url=llm.url).memory()
    _say(before, CHAT)
    await before.context("anything")
    turns = before.turns()

    after = open_memory(llm_url=llm.url).memory()  # closes the first index and log
    assert after.turns() == turns
    context = await after.context("how often do I feed the sourdough starter?")
    assert len(llm.with_system(SUMMARY_PROMPT)) == 1  # the watermark was kept
    assert "bread, bikes and taxes" in context[0]["content"]
    assert CHAT[0][1] in _text(context)  # recalled from the reopened Chroma collection


SECRET = "My locker combination is 31-12-07, keep it secret."


async def test_private_turns_are_never_seen_by_a_non_private_conversation(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    opened = open_memory(llm_url=llm.url)
    private, public = opened.memory(private=True), opened.memory("c2")
    private.remember("user", SECRET)
    _say(public, CHAT)
    context = await public.context("what is my locker combination?")
    assert "31-12-07" not in _text(context)
    assert "31-12-07" not in str(llm.requests)  # nor in the public summary's input
    assert all(not t.private for t in public.turns())
    stored = opened.index.chroma.client.get_collection("mem__default").get()
    assert SECRET not in (stored["documents"] or [])
    # Nor by one continuing the same conversation outside private mode: its note is private.
    same = opened.memory()
    same.remember("user", "What was it again?")
    assert same.turns() == [] and "31-12-07" not in _text(await same.context("my locker?"))

    private_context = await private.context("what is my locker combination?")
    assert "31-12-07" in _text(private_context)
    assert SECRET in (opened.index.chroma.client.get_collection(
        "mem__default__private").get()["documents"] or [])


async def test_turns_logged_but_never_embedded_are_restored_for_recall(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    # A crash between the log write and the embedding leaves these turns durable but unrecallable.
    for role, content in CHAT[:2]:
        opened.store.append("default", "crashed", role, content, tokens=12, private=False)
    episodic = Episodic(opened.index.chroma, opened.index.namespace)
    assert episodic.ids(False) == set()

    assert restore_recall(opened.store, episodic, opened.embedder) == 2
    assert restore_recall(opened.store, episodic, opened.embedder) == 0
    context = await opened.memory("newer").context("what flour goes in my sourdough starter?")
    assert f"(user, conversation crashed) {CHAT[0][1]}" in _text(context)


async def test_a_summary_holding_templater_commands_is_written_inert(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    """A summary is the model's text, bound for the chat note's frontmatter: Templater reads the
    frontmatter too."""
    memory = open_memory(llm_url=llm.url).memory()
    llm.reply = lambda body: "They discussed <% tp.file.title %> and dataclasses."
    _say(memory, CHAT[:6])
    await memory.context("anything")
    assert memory.note_path is not None
    text = (memory.config.vault / memory.note_path).read_text(encoding="utf-8")
    assert "summary:" in text and "tp.file.title" in text and "<%" not in text
