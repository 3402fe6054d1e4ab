"""Hand the C heap's free pages back to the system between index batches (glibc only).

glibc keeps freed memory in its arenas for later reuse rather than returning it. A cold index
frees every batch's texts, vectors and the stores' and onnxruntime's temporaries, and what the
arenas keep of them grows with the work done: about 50 MiB held free after 1,000 notes
(docs/benchmarks.md, "Index memory: where it goes"). `malloc_trim(0)` returns those pages, in a
few milliseconds; where the C library has no such call (macOS, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None
    return trim


_TRIM = _malloc_trim()

# glibc gives a thread that finds the heap busy an arena of its own, up to eight per core, and
# each arena keeps its own free pages and fragments. A cold index runs the syncing thread, the
# embedding thread and its workers, and Chroma's and tantivy's threads; with two arenas its peak
# RSS at 4,000 notes went 484 → 432 MiB (docs/benchmarks.md, "Index memory").
ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number in glibc's malloc.h


def limit_arenas(count: int = ARENAS) -> bool:
    """Let the C heap use at most `count` arenas from now on (glibc's M_ARENA_MAX; call it before
    threads start); False where the C library has no such setting."""
    try:
        mallopt: Callable[[int, int], int] = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False
    return bool(mallopt(_M_ARENA_MAX, count))


def release_free_heap() -> bool:
    """Return the C heap's free pages to the system; False where that cannot be done."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
