"""Download one file from a Hugging Face hub (or a mirror with the same URL layout), resumably.

Layout: `{endpoint}/{repo}/resolve/{revision}/{path}`. A HEAD without following redirects gives
the file's identity: for LFS files `X-Linked-Etag` is the sha256 of the content and
`X-Linked-Size` its size (the 302 points at a CDN); small files kept in git answer 200 with
`ETag` = the git blob sha1. The GET follows redirects and asks for `Range: bytes=N-` when a
`.part` file already holds N bytes, so an interrupted transfer continues where it stopped.
A HEAD or GET whose connection breaks, stalls or answers garbage is tried again (`attempts` in
schema/models.json), then refused with one message; a connection that cannot be made at all is
not retried (the caller says the machine looks offline). Nothing is kept whose digest differs
from the published one.

A mirror is not trusted further than that: only http(s) URLs are followed (a redirect to
`file://` or another scheme is refused), and no more bytes are read than the file's announced
size (`X-Linked-Size`, or `Content-Length`; `max_unannounced_bytes` in schema/models.json when
neither is given), so a file announced at 100 bytes that sends 30 MB is refused after 100.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import aiohttp

from sidecar.errors import ModelUnavailable

Progress = Callable[[str, int, int | None], None]  # (file, bytes done, bytes total or None)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_MAX_HOPS = 5
_SCHEMES = frozenset({"http", "https"})


@dataclass(frozen=True)
class HubSettings:
    endpoint: str
    attempts: int
    connect_timeout: float
    read_timeout: float
    chunk_bytes: int
    max_unannounced_bytes: int  # the cap on a file whose size nobody announced


@dataclass(frozen=True)
class RemoteFile:
    """What the hub publishes about a file before it is fetched."""

    url: str
    digest: str  # hex
    algorithm: str  # "sha256" (LFS object id) or "git-sha1" (git blob id)
    size: int | None
    commit: str | None


class Offline(ModelUnavailable):
    """The hub (or mirror) cannot be reached at all."""

    code = "hub_unreachable"


class ChecksumMismatch(ModelUnavailable):
    """A downloaded file differs from what the hub published (size or digest); it was removed."""

    code = "checksum_mismatch"


class UnsafeRedirect(ModelUnavailable):
    """The hub or a redirect names a URL that is not http(s) (`file://`, `ftp://`, …)."""

    code = "unsafe_redirect"


def _followed(base: str, location: str) -> str:
    """The URL a redirect from `base` to `location` names, if it is http(s); else UnsafeRedirect."""
    url = urljoin(base, location)
    if urlsplit(url).scheme.lower() not in _SCHEMES:
        raise UnsafeRedirect(f"{base} redirects to {location!r}: only http and https URLs are "
                             "followed, so the pull was refused; check ORA_HF_ENDPOINT and the "
                             "mirror's configuration")
    return url


def resolve_url(endpoint: str, repo: str, revision: str, path: str) -> str:
    return f"{endpoint.rstrip('/')}/{repo}/resolve/{revision}/{path}"


def _etag(raw: str | None) -> str | None:
    if not raw:
        return None
    return raw.removeprefix("W/").strip('"') or None


def _int(raw: str | None) -> int | None:
    return int(raw) if raw and raw.isdigit() else None


async def head(session: aiohttp.ClientSession, url: str, attempts: int = 1) -> RemoteFile:
    """The published identity of `url`, asked up to `attempts` times when the connection breaks
    or stalls (as `download` retries its GET); ModelUnavailable once every attempt failed."""
    if urlsplit(url).scheme.lower() not in _SCHEMES:
        raise UnsafeRedirect(f"{url} is not an http or https URL: set ORA_HF_ENDPOINT to the "
                             "hub's or a mirror's http(s) address")
    failures: list[str] = []
    for _attempt in range(max(attempts, 1)):
        try:
            return await _head(session, url)
        except aiohttp.ClientConnectorError:
            raise  # no connection at all: the caller says the machine looks offline
        except (aiohttp.ClientError, TimeoutError) as exc:
            failures.append(_failure(exc))
    raise ModelUnavailable(f"{url}: asking for the file kept failing ({failures[-1]}, "
                           f"{len(failures)} attempts); run the same command again later, or set "
                           "ORA_HF_ENDPOINT to another mirror")


async def _head(session: aiohttp.ClientSession, url: str) -> RemoteFile:
    """One HEAD of `url`; follows only redirects that carry no identity (a renamed
    repository), since an LFS redirect's target is a CDN without the hub's headers."""
    for _hop in range(_MAX_HOPS):
        async with session.head(url, allow_redirects=False) as resp:
            headers, status = resp.headers, resp.status
        if status in (401, 403):
            raise ModelUnavailable(f"{url} needs an account (HTTP {status}): a gated or private "
                                   "model cannot be pulled")
        if status == 404:
            raise ModelUnavailable(f"{url} does not exist (HTTP 404): check the catalogue entry "
                                   "or the mirror (ORA_HF_ENDPOINT)")
        linked = _etag(headers.get("X-Linked-Etag"))
        if status in _REDIRECTS and not linked and "Location" in headers:
            url = _followed(url, headers["Location"])
            continue
        if status >= 400:
            raise ModelUnavailable(f"{url} answered HTTP {status}")
        commit = headers.get("X-Repo-Commit")
        if linked:
            return RemoteFile(url, linked, "sha256", _int(headers.get("X-Linked-Size")), commit)
        etag = _etag(headers.get("ETag"))
        if not etag:
            raise ModelUnavailable(f"{url} publishes no ETag: cannot verify the download")
        algorithm = "sha256" if len(etag) == 64 else "git-sha1"
        return RemoteFile(url, etag, algorithm, _int(headers.get("Content-Length")), commit)
    raise ModelUnavailable(f"{url}: more than {_MAX_HOPS} redirects")


def digest_of(path: Path, algorithm: str) -> str:
    """sha256 of the content, or git's blob id: sha1 of `blob <size>\\0` + content."""
    if algorithm == "sha256":
        h = hashlib.sha256()
    else:
        h = hashlib.sha1(usedforsecurity=False)
        h.update(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


async def _get(session: aiohttp.ClientSession, url: str,
               headers: dict[str, str]) -> aiohttp.ClientResponse:
    """GET `url`, following at most _MAX_HOPS redirects, each to an http(s) URL only."""
    for _hop in range(_MAX_HOPS):
        resp = await session.get(url, headers=headers, allow_redirects=False)
        if resp.status not in _REDIRECTS or "Location" not in resp.headers:
            return resp
        resp.release()
        url = _followed(url, resp.headers["Location"])
    raise ModelUnavailable(f"{url}: more than {_MAX_HOPS} redirects")


def _refuse_oversize(remote: RemoteFile, part: Path, cap: int, why: str) -> ChecksumMismatch:
    part.unlink(missing_ok=True)
    return ChecksumMismatch(f"{remote.url}: the server sends more than {why} ({cap} bytes); "
                            "the download was stopped there and refused")


async def _transfer(session: aiohttp.ClientSession, remote: RemoteFile, part: Path,
                    name: str, progress: Progress, settings: HubSettings) -> None:
    """One GET into `part`, continuing from its current length when the server allows; never
    more bytes than announced (module docstring)."""
    have = part.stat().st_size if part.exists() else 0
    if remote.size is not None and have >= remote.size:
        return
    headers = {"Range": f"bytes={have}-"} if have else {}
    async with await _get(session, remote.url, headers) as resp:
        if resp.status == 416:  # nothing left to send: the part is as long as the file
            return
        if resp.status >= 400:
            raise ModelUnavailable(f"{remote.url} answered HTTP {resp.status}")
        mode = "ab" if resp.status == 206 else "wb"  # 200: the server ignored Range, start over
        done = have if mode == "ab" else 0
        if remote.size is not None:
            cap, why = remote.size, "the size the hub announced"
        elif resp.content_length is not None:
            cap, why = done + resp.content_length, "its own Content-Length"
        else:
            cap, why = settings.max_unannounced_bytes, "max_unannounced_bytes"
        if resp.content_length is not None and done + resp.content_length > cap:
            raise _refuse_oversize(remote, part, cap, why)
        over = False
        with open(part, mode) as fh:
            async for block in resp.content.iter_chunked(settings.chunk_bytes):
                over = done + len(block) > cap
                if over:  # stop reading: nothing past the announced size is written
                    break
                fh.write(block)
                done += len(block)
                progress(name, done, remote.size)
        if over:
            raise _refuse_oversize(remote, part, cap, why)


async def download(session: aiohttp.ClientSession, remote: RemoteFile, dest: Path,
                   progress: Progress, settings: HubSettings) -> None:
    """Fetch `remote` into `dest` via `dest.part`, resuming after a broken transfer, then check
    the size and digest; a mismatch deletes the part and refuses the file."""
    part = dest.with_name(dest.name + ".part")
    failures: list[str] = []
    for _attempt in range(settings.attempts):
        try:
            await _transfer(session, remote, part, dest.name, progress, settings)
        except aiohttp.ClientConnectorError:
            raise  # no connection at all: the caller says the machine looks offline
        except (aiohttp.ClientError, TimeoutError) as exc:
            failures.append(_failure(exc))
            continue  # the bytes received so far stay in the part; the next GET resumes
        break
    else:
        raise ModelUnavailable(f"{remote.url}: transfer kept failing ({failures[-1]}); "
                               f"run the same command again to resume from {part}")
    size = part.stat().st_size
    if remote.size is not None and size != remote.size:
        part.unlink()
        raise ChecksumMismatch(f"{remote.url}: received {size} bytes, the hub says "
                               f"{remote.size}; the partial file was removed")
    actual = digest_of(part, remote.algorithm)
    if actual != remote.digest:
        part.unlink()
        raise ChecksumMismatch(f"{remote.url}: {remote.algorithm} {actual} differs from the "
                               f"published {remote.digest}; the file was refused")
    part.replace(dest)


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def open_session(settings: HubSettings) -> aiohttp.ClientSession:
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=settings.connect_timeout,
                                    sock_read=settings.read_timeout)
    return aiohttp.ClientSession(timeout=timeout, headers={"User-Agent": "ora-vault"})


def offline_message(endpoint: str, exc: Exception) -> str:
    return (f"cannot reach {endpoint} ({exc}): this machine looks offline. Connect and run the "
            "command again (a partial download resumes), set ORA_HF_ENDPOINT to a reachable "
            "mirror, or copy the model's files into the models folder by hand (`ora models`).")
