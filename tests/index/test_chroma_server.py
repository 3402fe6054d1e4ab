"""With `chroma_url`, the dense store is a real Chroma server (`chroma run`) instead of files."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.errors import OraError
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import KETTLE, write


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = _free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    server = subprocess.Popen(
        [exe, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None, "chroma run exited"
            assert time.monotonic() < deadline, "chroma run did not start"
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_index_and_search_through_a_chroma_server(
    vault: Path, tmp_path: Path, embedder: Embedder, chroma_url: str
) -> None:
    config = make_config(vault, tmp_path / "data", chroma_url=chroma_url, namespace="served")
    with open_index(config, embedder=embedder) as index:
        result = index.reconcile()
        assert result["embedded"] == result["chunks"] > 0
        names = {c.name for c in index.chroma.client.list_collections()}
        assert {"served__vault", "served__private"} <= names
        hits = index.dense_search(embedder.embed(["kettle limescale"])[0], 3, private=False)
        found = index.get_chunks([h[0] for h in hits], private=False)
        assert "Engrams/Kettle.md" in {r.path for r in found.values()}
        write(vault, "Engrams/Kettle.md", KETTLE.replace("tags: []", 'tags: ["private"]'))
        assert index.reconcile()["embedded"] == 0
        assert index.chroma.count("served", True) == 1
        assert not index.chroma.release(0.0)  # the server holds the vectors, not this process
    assert not (tmp_path / "data" / "chroma").exists()  # nothing embedded on disk


def test_cli_accepts_chroma_url(
    vault: Path, tmp_path: Path, chroma_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["index", str(vault), "--data", str(tmp_path / "d"), "--chroma-url", chroma_url,
            "--namespace", "cli", "--json"]  # fmt: skip
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["files"] == 4


def test_unreachable_server_is_a_clear_error(vault: Path, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    config = make_config(vault, tmp_path / "data", chroma_url=url)
    with pytest.raises(OraError, match="Chroma server") as info:
        open_index(config, writer=False)
    assert info.value.code == "chroma_unavailable"
