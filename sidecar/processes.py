"""Whether a process still runs, the same way on every platform (a server's parent, the process
that staged a contradiction scan)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _windows_alive(pid: int) -> bool:
    import ctypes  # only on Windows: os.kill(pid, 0) there would terminate the process

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        return bool(ok) and code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def _zombie(pid: int) -> bool:
    """A process that has exited but was not reaped yet (Linux only; elsewhere False)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


def process_alive(pid: int) -> bool:
    """Whether process `pid` still runs."""
    if sys.platform == "win32":
        return _windows_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    return not _zombie(pid)
