"""Download one file from a Hugging Face hub (or a mirror with the same URL layout), resumably.

Layout: `{endpoint}/{repo}/resolve/{revision}/{path}`. A HEAD without following redirects gives
the file's identity: for LFS files `X-Linked-Etag` is the sha256 of the content and
`X-Linked-Size` its size (the 302 points at a CDN); small files kept in git answer 200 with
`ETag` = the git blob sha1. The GET follows redirects and asks for `Range: bytes=N-` when a
`.part` file already holds N bytes, so an interrupted transfer continues where it stopped.
Nothing is kept whose digest differs from the published one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import aiohttp

from sidecar.errors import ModelUnavailable

Progress = Callable[[str, int, int | None], None]  # (file, bytes done, bytes total or None)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_MAX_HOPS = 5


@dataclass(frozen=True)
class HubSettings:
    endpoint: str
    attempts: int
    connect_timeout: float
    read_timeout: float
    chunk_bytes: int


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


def resolve_url(endpoint: str, repo: str, revision: str, path: str) -> str:
    return f"{endpoint.rstrip('/')}/{repo}/resolve/{revision}/{path}"


def _etag(raw: str | None) -> str | None:
    if not raw:
        return None
    return raw.removeprefix("W/").strip('"') or None


def _int(raw: str | None) -> int | None:
    return int(raw) if raw and raw.isdigit() else None


async def head(session: aiohttp.ClientSession, url: str) -> RemoteFile:
    """The published identity of `url`; follows only redirects that carry no identity
    (a renamed repository), since an LFS redirect's target is a CDN without the hub's headers."""
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
            url = urljoin(url, headers["Location"])
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


async def _transfer(session: aiohttp.ClientSession, remote: RemoteFile, part: Path,
                    name: str, progress: Progress, chunk_bytes: int) -> None:
    """One GET into `part`, continuing from its current length when the server allows."""
    have = part.stat().st_size if part.exists() else 0
    if remote.size is not None and have >= remote.size:
        return
    headers = {"Range": f"bytes={have}-"} if have else {}
    async with session.get(remote.url, headers=headers) as resp:
        if resp.status == 416:  # nothing left to send: the part is as long as the file
            return
        if resp.status >= 400:
            raise ModelUnavailable(f"{remote.url} answered HTTP {resp.status}")
        mode = "ab" if resp.status == 206 else "wb"  # 200: the server ignored Range, start over
        done = have if mode == "ab" else 0
        with open(part, mode) as fh:
            async for block in resp.content.iter_chunked(chunk_bytes):
                fh.write(block)
                done += len(block)
                progress(name, done, remote.size)


async def download(session: aiohttp.ClientSession, remote: RemoteFile, dest: Path,
                   progress: Progress, settings: HubSettings) -> None:
    """Fetch `remote` into `dest` via `dest.part`, resuming after a broken transfer, then check
    the size and digest; a mismatch deletes the part and refuses the file."""
    part = dest.with_name(dest.name + ".part")
    failures: list[str] = []
    for _attempt in range(settings.attempts):
        try:
            await _transfer(session, remote, part, dest.name, progress, settings.chunk_bytes)
        except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError, TimeoutError) as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
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


def open_session(settings: HubSettings) -> aiohttp.ClientSession:
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=settings.connect_timeout,
                                    sock_read=settings.read_timeout)
    return aiohttp.ClientSession(timeout=timeout, headers={"User-Agent": "ora-vault"})


def offline_message(endpoint: str, exc: Exception) -> str:
    return (f"cannot reach {endpoint} ({exc}): this machine looks offline. Connect and run the "
            "command again (a partial download resumes), set ORA_HF_ENDPOINT to a reachable "
            "mirror, or copy the model's files into the models folder by hand (`ora models`).")
