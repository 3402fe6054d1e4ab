"""A Hugging Face hub on loopback: the real URL layout and headers, with faults on request.

`/{repo}/resolve/{revision}/{path}` answers like the hub: LFS files (`*.onnx`) with a 302 to
`/cdn/{sha256}` carrying `X-Linked-Etag`/`X-Linked-Size`, small files with 200 and the git blob
sha1 as `ETag`. `/cdn/` honours `Range`. `renamed` repos answer 307 to their new name (a redirect
without identity). Faults: `truncate` (serve half, then drop the connection, N times) and
`corrupt` (serve different bytes than the published digest); `throttle` sends LFS files in 64 kB
pieces that many seconds apart, so a client sees a download in progress; `drop_head` closes
the connection without an answer to that many HEAD requests; `stall` sends half of an LFS file,
then nothing until `unstall` is set, or the client hangs up (then `hung_up` is set). Hostile
mirrors:
`oversize` sends that many bytes more than the announced size (chunked, with no Content-Length,
or with a Content-Length telling the real length when `oversize_declared`), and `redirect` /
`cdn_redirect` answer a hub path (at `resolve/`, or at `/cdn/`) with a redirect to any URL.

Run standalone for the plugin's end-to-end tests: `python -m tests.models.loopback_hub REPO
[--throttle S]` serves a generated tiny BERT as REPO and prints its base URL on stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data, usedforsecurity=False).hexdigest()


@dataclass
class LoopbackHub:
    repos: dict[str, dict[str, bytes]]  # repo -> hub path -> content
    renamed: dict[str, str] = field(default_factory=dict)  # old repo -> new repo
    truncate: dict[str, int] = field(default_factory=dict)  # hub path -> times to cut short
    corrupt: set[str] = field(default_factory=set)  # hub paths served with wrong bytes
    throttle: float = 0.0  # seconds between 64 kB pieces of an LFS file
    oversize: dict[str, int] = field(default_factory=dict)  # hub path -> bytes past its size
    oversize_declared: bool = False  # send Content-Length for the oversized body
    redirect: dict[str, str] = field(default_factory=dict)  # hub path -> Location at resolve/
    cdn_redirect: dict[str, str] = field(default_factory=dict)  # hub path -> Location at /cdn/
    drop_head: int = 0  # HEAD requests answered by closing the connection
    stall: dict[str, int] = field(default_factory=dict)  # hub path -> times to stall halfway
    unstall: threading.Event = field(default_factory=threading.Event)
    hung_up: threading.Event = field(default_factory=threading.Event)
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    commit: str = "0123456789abcdef0123456789abcdef01234567"
    _blobs: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # sha256 -> (path, data)

    async def resolve(self, request: web.Request) -> web.StreamResponse:
        self.requests.append((request.method, request.path, request.headers.get("Range")))
        repo = f"{request.match_info['org']}/{request.match_info['name']}"
        path = request.match_info["path"]
        if repo in self.renamed:
            new = request.path.replace(f"/{repo}/", f"/{self.renamed[repo]}/", 1)
            raise web.HTTPTemporaryRedirect(new)
        if path in self.redirect:
            raise web.HTTPFound(self.redirect[path])
        if request.method == "HEAD" and self.drop_head > 0:
            self.drop_head -= 1
            assert request.transport is not None
            request.transport.close()  # the client sees the server disconnect, with no answer
            return web.Response()
        data = self.repos.get(repo, {}).get(path)
        if data is None:
            raise web.HTTPNotFound()
        if path.endswith(".onnx"):
            sha = hashlib.sha256(data).hexdigest()
            self._blobs[sha] = (path, data)
            raise web.HTTPFound(f"/cdn/{sha}", headers={
                "X-Linked-Etag": f'"{sha}"', "X-Linked-Size": str(len(data)),
                "ETag": f'"{sha}"', "X-Repo-Commit": self.commit})
        return web.Response(body=data, headers={"ETag": f'"{git_blob_sha1(data)}"',
                                                "X-Repo-Commit": self.commit})

    async def cdn(self, request: web.Request) -> web.StreamResponse:
        self.requests.append((request.method, request.path, request.headers.get("Range")))
        path, data = self._blobs[request.match_info["sha"]]
        if path in self.cdn_redirect:
            raise web.HTTPFound(self.cdn_redirect[path])
        if path in self.corrupt:
            data = bytes(b ^ 0xFF for b in data)
        if path in self.oversize:
            return await self._oversized(request, data + b"\0" * self.oversize[path])
        start = 0
        if request.http_range.start is not None:
            start = request.http_range.start
        body = data[start:]
        resp = web.StreamResponse(status=206 if start else 200)
        resp.content_length = len(body)
        if start:
            resp.headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        await resp.prepare(request)
        if self.stall.get(path, 0) > 0:
            self.stall[path] -= 1
            return await self._stalled(request, resp, body)
        if self.truncate.get(path, 0) > 0:
            self.truncate[path] -= 1
            await resp.write(body[: len(body) // 2])
            assert request.transport is not None
            request.transport.close()  # the client sees a payload shorter than Content-Length
            return resp
        piece = 1 << 16 if self.throttle else max(len(body), 1)
        for start in range(0, len(body), piece):
            await resp.write(body[start:start + piece])
            if self.throttle:
                await asyncio.sleep(self.throttle)
        await resp.write_eof()
        return resp

    async def _stalled(self, request: web.Request, resp: web.StreamResponse,
                       body: bytes) -> web.StreamResponse:
        """Half of `body`, then the rest once `unstall` is set (from the test's thread); a
        client that hangs up meanwhile sets `hung_up`."""
        await resp.write(body[: len(body) // 2])
        while not self.unstall.is_set():
            if request.transport is None or request.transport.is_closing():
                self.hung_up.set()
                return resp
            await asyncio.sleep(0.01)
        await resp.write(body[len(body) // 2:])
        await resp.write_eof()
        return resp

    async def _oversized(self, request: web.Request, body: bytes) -> web.StreamResponse:
        """`body` in 1 MB pieces; the announced size (X-Linked-Size) is shorter."""
        resp = web.StreamResponse()
        if self.oversize_declared:
            resp.content_length = len(body)
        else:
            resp.enable_chunked_encoding()
        await resp.prepare(request)
        with contextlib.suppress(ConnectionResetError):  # a careful client hangs up early
            for start in range(0, len(body), 1 << 20):
                await resp.write(body[start:start + (1 << 20)])
            await resp.write_eof()
        return resp

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/{org}/{name}/resolve/{rev}/{path:.+}", self.resolve)
        app.router.add_get("/cdn/{sha}", self.cdn)
        return app


class RunningApp:
    """Serves an aiohttp app on 127.0.0.1 from a thread, so synchronous code (the CLI, the
    embedder) can call it; `with RunningApp(app) as base_url`."""

    def __init__(self, app: web.Application) -> None:
        self._loop = asyncio.new_event_loop()
        self._runner = web.AppRunner(app)
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._runner.setup(), self._loop).result()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        asyncio.run_coroutine_threadsafe(site.start(), self._loop).result()
        port = self._runner.addresses[0][1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *_exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


def repo_files(folder: Path) -> dict[str, bytes]:
    """A tiny model folder laid out as the hub holds an optimum export (ONNX under onnx/)."""
    return {"onnx/model.onnx": (folder / "model.onnx").read_bytes(),
            "tokenizer.json": (folder / "tokenizer.json").read_bytes(),
            "config.json": (folder / "config.json").read_bytes()}


def main(argv: list[str] | None = None) -> None:
    import argparse
    import sys
    import tempfile

    from tests.conftest import write_tiny_bert

    parser = argparse.ArgumentParser(description="serve a tiny model under the hub's URL layout")
    parser.add_argument("repos", nargs="+", help="repositories to serve the tiny model as")
    parser.add_argument("--throttle", type=float, default=0.0, help="seconds between 64 kB pieces")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        files = repo_files(write_tiny_bert(Path(tmp) / "tiny", seed=5))
        # multilingual-e5-small's repository keeps its tokenizer and config under onnx/ too
        files |= {f"onnx/{name}": data for name, data in files.items() if "/" not in name}
        hub = LoopbackHub({repo: files for repo in args.repos}, throttle=args.throttle)
        with RunningApp(hub.app()) as url:
            print(url, flush=True)
            sys.stdin.read()  # serve until stdin closes (the test that started us ends)


if __name__ == "__main__":
    main()
