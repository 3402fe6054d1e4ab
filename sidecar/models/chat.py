"""A generic client of an OpenAI-compatible `/v1/chat/completions` endpoint (setting `llm_url`).

One request per call, over aiohttp, with the bearer key `llm_api_key` when set. Every failure —
a refused connection, a timeout, a non-200 status, a reply without `choices[0].message.content`
— raises `LlmFailed`, so a caller can fall back honestly instead of inventing text.

A reply is text from outside: a JSON `\\ud83d` escape may leave a lone UTF-16 surrogate, which
no file or UTF-8 response can hold. Surrogate pairs split across streamed chunks are joined (a
trailing high surrogate is held back until the next piece), and what stays alone becomes U+FFFD:
the real answer is always kept. A reply that is itself JSON (an extractor's answer) makes new
ones when it is decoded: `json_reply` decodes it with every string cleaned the same way. When
the receiver of streamed pieces is gone (the asker hung up), `DeltaRefused` ends the call: that
is not the model failing.

A reply is read up to a bound, never whole: an endpoint ignoring `max_tokens` could send any
size. A streamed reply stops at `reply_chars(max_tokens)` characters, a JSON one at
`reply_bytes(max_tokens)` bytes (its answer text decoded from what was read): the reply keeps
more characters than an answer may hold, so the caller's cut (`answers.pipeline.kept_reply`) adds
its marker.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import aiohttp
from aiohttp.http_exceptions import HttpProcessingError

from sidecar.errors import LlmFailed, PrivateWithheld
from sidecar.privacy.egress import may_send_private, withheld
from sidecar.schema import load_json
from sidecar.settings import Config
from sidecar.vault.inert import encodable

Message = Mapping[str, str]
REPLY_SLACK_CHARS = 1024  # past the answer's cap, so a reply cut here is still cut with a marker
# A JSON reply's envelope (id, role, usage…) beyond its text, and a `\uXXXX` escape per character
# at worst (6 bytes).
REPLY_SLACK_BYTES = 65536
BYTES_PER_CHAR = 6
ERROR_DETAIL_BYTES = 4096  # of a non-200 reply's body, for its message


def reply_chars(max_tokens: int) -> int:
    """The most characters of a reply read: `max_tokens` × `chars_per_token`
    (`schema/memory.json`), no real token being that long, plus slack."""
    per_token = int(load_json("memory.json")["answers"]["chars_per_token"])
    return max_tokens * per_token + REPLY_SLACK_CHARS


def reply_bytes(max_tokens: int) -> int:
    """The most bytes of a JSON reply read: its text at `reply_chars`, every one escaped."""
    return reply_chars(max_tokens) * BYTES_PER_CHAR + REPLY_SLACK_BYTES


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


# Called with each piece of a streamed reply, in order; raises DeltaRefused when its receiver
# is gone.
OnDelta = Callable[[str], Awaitable[None]]


class DeltaRefused(Exception):
    """The receiver of a streamed reply is gone (the asker hung up): the call is abandoned."""


async def complete(
    config: Config, messages: Sequence[Message], *, private: bool, max_tokens: int,
    temperature: float = 0, timeout: float | None = None, on_delta: OnDelta | None = None,
) -> str:
    """The assistant's reply to `messages` from the configured model (LlmFailed on any failure).

    `private` says whether the messages hold private text (a private note's passage or claim,
    a private-mode question, a private turn): then they are sent only to an endpoint on this
    machine or trusted in `private_remote_ok`, else PrivateWithheld (an LlmFailed, so callers
    fall back as for any failure) and nothing is sent (`sidecar/privacy/egress.py`).

    With `on_delta` the reply is asked for as a stream (`"stream": true`, server-sent chunks with
    `choices[0].delta.content`) and each piece is handed on as it arrives; an endpoint that answers
    with one JSON document instead is read as usual and handed on whole. The whole reply is
    returned either way, or its first `reply_chars(max_tokens)` characters when it is longer
    (the rest is not read)."""
    if not str(config.llm_url):
        raise LlmFailed("no language model is configured: set llm_url (ORA_LLM_URL)")
    url = chat_url(str(config.llm_url))
    if private and not may_send_private(config, url):
        raise PrivateWithheld(withheld("the language model", url))
    body = {
        "model": str(config.llm_model) or "default",
        "messages": [dict(m) for m in messages],
        "max_tokens": max_tokens,
        "temperature": temperature,
    }
    if on_delta is not None:
        body["stream"] = True
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
                detail = (await resp.content.read(ERROR_DETAIL_BYTES)).decode(
                    "utf-8", errors="replace")[:200]
                raise LlmFailed(
                    f"the language model at {url} answered HTTP {resp.status}: {detail}")
            if on_delta is not None and resp.content_type == "text/event-stream":
                return await _streamed(resp, on_delta, url, reply_chars(max_tokens))
            content = await _json_content(resp, url, max_tokens)
    except TimeoutError as exc:
        raise LlmFailed(
            f"the language model at {url} did not answer within {limit.total} s") from exc
    except (aiohttp.ClientError, HttpProcessingError, ValueError) as exc:
        # HttpProcessingError: a streamed line longer than aiohttp's buffer
        raise LlmFailed(f"the language model at {url} is unreachable or garbled: {exc}") from exc
    content = encodable(content).strip()
    if not content:  # a blank reply answers nothing: callers fall back as for any failure
        raise LlmFailed(f"the language model at {url} gave an empty reply")
    if on_delta is not None:
        with contextlib.suppress(DeltaRefused):  # the reply is whole: the caller still keeps it
            await on_delta(content)
    return content


async def _bounded_body(resp: aiohttp.ClientResponse, most: int) -> tuple[bytes, bool]:
    """The reply's body up to `most` bytes, and whether there was more (left unread)."""
    body = bytearray()
    while len(body) <= most:
        chunk = await resp.content.read(most + 1 - len(body))
        if not chunk:
            return bytes(body), False
        body += chunk
    return bytes(body[:most]), True


async def _json_content(resp: aiohttp.ClientResponse, url: str, max_tokens: int) -> str:
    """`choices[0].message.content` of a JSON reply; of one longer than `reply_bytes`, the start
    of that text as far as it was read, cut at `reply_chars`."""
    body, more = await _bounded_body(resp, reply_bytes(max_tokens))
    if more:
        content = _started_content(body.decode("utf-8", errors="replace"))
        if content is None:
            raise LlmFailed(f"the language model at {url} sent a reply of more than "
                            f"{len(body):,} bytes without its text at the start")
        return content[: reply_chars(max_tokens)]
    doc = json.loads(body.decode("utf-8", errors="replace"))
    try:
        content = doc["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LlmFailed(f"the language model at {url} gave no choices[0].message.content") from exc
    if not isinstance(content, str):
        raise LlmFailed(f"the language model at {url} gave a non-text reply")
    return str(content)


_CONTENT_START = re.compile(r'"content"\s*:\s*"')
_OPEN_ESCAPE = re.compile(r"(\\+)(u[0-9a-fA-F]{0,3})?$")


def _started_content(partial: str) -> str | None:
    """The `"content"` string of a JSON document cut short, decoded as far as it goes (None
    when the cut came before it)."""
    start = _CONTENT_START.search(partial)
    if start is None:
        return None
    text = partial[start.end():]
    with contextlib.suppress(ValueError):  # the string ended before the cut
        return str(json.JSONDecoder().raw_decode('"' + text)[0])
    escape = _OPEN_ESCAPE.search(text)
    if escape is not None and len(escape[1]) % 2 == 1:  # an escape cut in half is dropped
        text = text[: escape.start()] + escape[1][:-1]
    try:
        return str(json.loads('"' + text + '"'))
    except ValueError:
        return None


def json_reply(reply: str) -> Any:
    """A reply that is a JSON document, decoded, every string in it (keys too) encodable: the
    reply's own escapes (`"\\ud83d"`) decode to lone surrogates only here, after `complete`
    cleaned its text. ValueError when it is not JSON."""
    return _encodable_strings(json.loads(reply))


def _encodable_strings(value: Any) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [_encodable_strings(v) for v in value]
    if isinstance(value, dict):
        return {encodable(k): _encodable_strings(v) for k, v in value.items()}
    return value


def _high_surrogate(text: str) -> bool:
    return bool(text) and "\ud800" <= text[-1] <= "\udbff"


async def _streamed(resp: aiohttp.ClientResponse, on_delta: OnDelta, url: str, most: int) -> str:
    """The pieces of a streamed reply (`data: {chunk}` lines up to `data: [DONE]`), handed on as
    they arrive, joined; reading stops once they hold more than `most` characters."""
    parts: list[str] = []
    held = ""  # a high surrogate whose low half may come with the next piece
    read = 0
    async for raw in resp.content:
        if read > most:  # the rest is left unread: the caller cuts the answer with a marker
            break
        line = raw.decode("utf-8", errors="replace").strip()
        if not line.startswith("data:"):
            continue
        payload = line.removeprefix("data:").strip()
        if payload == "[DONE]":
            break
        try:
            piece = json.loads(payload)["choices"][0].get("delta", {}).get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LlmFailed(f"the language model at {url} streamed a garbled chunk") from exc
        if not isinstance(piece, str):
            raise LlmFailed(f"the language model at {url} streamed a non-text piece")
        piece, held = held + piece, ""
        if _high_surrogate(piece):
            piece, held = piece[:-1], piece[-1]
        if piece:
            parts.append(encodable(piece))
            read += len(piece)
            await on_delta(parts[-1])
    if held:
        parts.append(encodable(held))
        await on_delta(parts[-1])
    text = "".join(parts)[:most].strip()
    if not text:
        raise LlmFailed(f"the language model at {url} streamed no content")
    return text
