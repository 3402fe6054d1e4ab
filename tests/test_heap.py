"""The C heap's arenas are limited before threads start (glibc), so fewer of them hold memory."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from sidecar.heap import ARENAS

# Eight threads allocate at once; malloc_info lists one <heap> per arena in use.
_ARENAS_USED = """
import ctypes, sys, threading
from sidecar.heap import limit_arenas
if sys.argv[1] == "limited":
    assert limit_arenas()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.fopen.restype = ctypes.c_void_p
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
start = threading.Barrier(8)
def allocate():
    start.wait()
    blocks = [libc.malloc(64) for _ in range(20000)]
    for block in blocks:
        libc.free(block)
threads = [threading.Thread(target=allocate) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
out = libc.fopen(sys.argv[2].encode(), b"w")
libc.malloc_info(0, out)
libc.fclose(out)
print(open(sys.argv[2]).read().count("<heap nr="))
"""


def _arenas(mode: str, tmp_path: Path) -> int:
    done = subprocess.run([sys.executable, "-c", _ARENAS_USED, mode, str(tmp_path / mode)],
                          capture_output=True, text=True, check=True)
    return int(done.stdout.strip())


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's M_ARENA_MAX")
def test_threads_share_at_most_the_limited_arenas(tmp_path: Path) -> None:
    assert _arenas("limited", tmp_path) <= ARENAS < _arenas("default", tmp_path)
