"""A generic client of an OpenAI-compatible `/v1/chat/completions` endpoint (setting `llm_url`).

One request per call, over aiohttp, with the bearer key `llm_api_key` when set. Every failure —
a refused connection, a timeout, a non-200 status, a reply without `choices[0].message.content`
— raises `LlmFailed`, so a caller can fall back honestly instead of inventing text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import aiohttp

from sidecar.errors import LlmFailed
from sidecar.settings import Config

Message = Mapping[str, str]


def endpoint_url(base: str, tail: str) -> str:
    """`<base>/v1/<tail>` for a base URL given with or without `/v1` (or already complete)."""
    base = base.rstrip("/")
    if base.endswith(f"/{tail}"):
        return base
    if base.endswith("/v1"):
        return f"{base}/{tail}"
    return f"{base}/v1/{tail}"


def chat_url(base: str) -> str:
    """The completions URL for a base URL given with or without `/v1`."""
    return endpoint_url(base, "chat/completions")


def generator_name(config: Config) -> str | None:
    """`llm:<model>` when an endpoint is configured, else None (there is no generator)."""
    if not str(config.llm_url):
        return None
    return f"llm:{str(config.llm_model) or 'default'}"


async def complete(
    config: Config, messages: Sequence[Message], *, max_tokens: int, temperature: float = 0,
    timeout: float | None = None,
) -> str:
    """The assistant's reply to `messages` from the configured model (LlmFailed on any failure)."""
    if not str(config.llm_url):
        raise LlmFailed("no language model is configured: set llm_url (ORA_LLM_URL)")
    url = chat_url(str(config.llm_url))
    body = {
        "model": str(config.llm_model) or "default",
        "messages": [dict(m) for m in messages],
        "max_tokens": max_tokens,
        "temperature": temperature,
    }
    key = str(config.llm_api_key)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    limit = aiohttp.ClientTimeout(
        total=timeout if timeout is not None else float(config.llm_timeout))
    try:
        async with (
            aiohttp.ClientSession(timeout=limit) as session,
            session.post(url, json=body, headers=headers) as resp,
        ):
            if resp.status != 200:
                detail = (await resp.text())[:200]
                raise LlmFailed(
                    f"the language model at {url} answered HTTP {resp.status}: {detail}")
            doc = await resp.json(content_type=None)
    except TimeoutError as exc:
        raise LlmFailed(
            f"the language model at {url} did not answer within {limit.total} s") from exc
    except (aiohttp.ClientError, ValueError) as exc:
        raise LlmFailed(f"the language model at {url} is unreachable or garbled: {exc}") from exc
    try:
        content = doc["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LlmFailed(f"the language model at {url} gave no choices[0].message.content") from exc
    if not isinstance(content, str):
        raise LlmFailed(f"the language model at {url} gave a non-text reply")
    return content.strip()
