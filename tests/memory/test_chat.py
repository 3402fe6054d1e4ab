"""The generic chat client against a real loopback OpenAI-compatible server."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import LlmFailed
from sidecar.models.chat import chat_url, complete, generator_name
from sidecar.settings import Config, make_config

HELLO = [{"role": "user", "content": "Say hello."}]


def _config(tmp_path: Path, url: str, **extra: Any) -> Config:
    return make_config(tmp_path, llm_url=url, llm_model="test-model", **extra)


@pytest.mark.parametrize("base", ["http://h:1", "http://h:1/", "http://h:1/v1",
                                  "http://h:1/v1/chat/completions"])
def test_chat_url_accepts_a_base_with_or_without_v1(base: str) -> None:
    assert chat_url(base) == "http://h:1/v1/chat/completions"


async def test_complete_returns_the_reply_and_sends_model_key_and_limits(
    tmp_path: Path, llm: Any
) -> None:
    llm.reply = lambda body: "  Hello there.  "
    config = _config(tmp_path, llm.url + "/v1", llm_api_key="sk-test")
    assert await complete(config, HELLO, private=False, max_tokens=20) == "Hello there."
    (body,) = llm.requests
    assert body == {"model": "test-model", "messages": HELLO, "max_tokens": 20, "temperature": 0}
    assert llm.headers[0]["Authorization"] == "Bearer sk-test"
    assert generator_name(config) == "llm:test-model"


async def test_an_http_error_is_llm_failed_with_the_status(tmp_path: Path, llm: Any) -> None:
    llm.mode = "error"
    with pytest.raises(LlmFailed, match=r"HTTP 500.*overloaded"):
        await complete(_config(tmp_path, llm.url), HELLO, private=False, max_tokens=5)


async def test_a_slow_model_times_out_as_llm_failed(tmp_path: Path, llm: Any) -> None:
    llm.mode = "slow"
    with pytest.raises(LlmFailed, match=r"did not answer within 0\.3 s"):
        await complete(_config(tmp_path, llm.url), HELLO, private=False, max_tokens=5, timeout=0.3)


async def test_the_timeout_and_answer_budget_are_settings(
    tmp_path: Path, llm: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sidecar.answers import AnswerLimits

    monkeypatch.setenv("ORA_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("ORA_ANSWER_MAX_TOKENS", "77")
    config = _config(tmp_path, llm.url)
    assert AnswerLimits.load(config).max_tokens == 77
    llm.mode = "slow"
    with pytest.raises(LlmFailed, match=r"did not answer within 0\.3 s"):
        await complete(config, HELLO, private=False, max_tokens=5)


async def test_a_reply_without_choices_is_llm_failed(tmp_path: Path, llm: Any) -> None:
    llm.mode = "garbled"
    with pytest.raises(LlmFailed, match=r"choices\[0\]"):
        await complete(_config(tmp_path, llm.url), HELLO, private=False, max_tokens=5)


@pytest.mark.parametrize("streams", [False, True])
async def test_a_blank_reply_is_llm_failed(tmp_path: Path, llm: Any, streams: bool) -> None:
    # Before: a reply of spaces was an answer "", remembered as an empty assistant turn.
    llm.reply, llm.streams = (lambda body: "  \n "), streams

    async def ignore(piece: str) -> None:
        pass

    with pytest.raises(LlmFailed, match=r"empty reply|no content"):
        await complete(_config(tmp_path, llm.url), HELLO, private=False, max_tokens=5,
                       on_delta=ignore if streams else None)


async def test_an_unreachable_endpoint_is_llm_failed(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(LlmFailed, match="unreachable"):
        await complete(_config(tmp_path, f"http://127.0.0.1:{port}"), HELLO, private=False,
                       max_tokens=5)


async def test_without_llm_url_there_is_no_generator(tmp_path: Path) -> None:
    config = _config(tmp_path, "")
    assert generator_name(config) is None
    with pytest.raises(LlmFailed, match="set llm_url"):
        await complete(config, HELLO, private=False, max_tokens=5)
