"""Extraction in a worker process with a time and memory budget (`schema/documents.json`).

`extract_in_worker` runs `python -m sidecar.documents.worker FORMAT` on one file: the child
limits its own address space (RLIMIT_AS) and CPU time before it opens anything, reads the file,
and prints one JSON document; the parent kills it when the wall-clock budget runs out. A file
that makes the parser loop, allocate without end or crash costs only that child: the sidecar
names the file in `ora index` errors and goes on. The child is started fresh (no fork of the
sidecar, whose threads and open stores a fork would copy), and its output is bounded by the
text limit, so the parent's memory is too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from sidecar.documents.extract import DocumentError, Extracted, extract
from sidecar.documents.formats import DocumentLimits, formats

_MB = 1 << 20


def _limit_self(limits: DocumentLimits) -> None:
    """In the child, before any parsing: the memory and CPU ceilings (POSIX; on Windows only
    the parent's wall-clock budget applies)."""
    try:
        import resource
    except ImportError:
        return

    memory = limits.memory_mb * _MB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits.seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _child(fmt: str) -> int:
    """Read the file named on stdin; print {"pages", "meta", "paged", "cut"} or {"error"}."""
    limits = formats().limits
    path = Path(os.fsdecode(sys.stdin.buffer.read()))
    try:
        _limit_self(limits)
        out = extract(path, fmt, limits)
        doc: dict[str, Any] = {"pages": out.pages, "meta": out.meta, "paged": out.paged,
                               "cut": out.cut}
    except DocumentError as exc:
        doc = {"error": str(exc)}
    except MemoryError:
        doc = {"error": _over_memory(limits)}
    except RecursionError:
        doc = {"error": "Unreadable: it nests too deeply to be read"}
    except OSError as exc:
        doc = {"error": f"Cannot be read: {exc.strerror or exc}"}
    sys.stdout.write(json.dumps(doc, ensure_ascii=True))
    sys.stdout.flush()
    return 0


def _over_memory(limits: DocumentLimits) -> str:
    return f"Too large to read within the {limits.memory_mb} MB memory budget"


def extract_in_worker(path: Path, fmt: str, limits: DocumentLimits | None = None) -> Extracted:
    """The text of one document, read by a worker process within `limits` (default:
    schema/documents.json); DocumentError says why there is none."""
    limits = limits or formats().limits
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sidecar.documents.worker", fmt],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
    except OSError as exc:
        raise DocumentError(f"Cannot start the extraction worker: {exc}") from None
    try:
        out, _ = proc.communicate(os.fsencode(path), timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise DocumentError(
            f"Took longer than the {limits.seconds:g}-second budget to read") from None
    except BaseException:  # an interrupted sync: no worker outlives it
        proc.kill()
        proc.wait()
        raise
    return _decoded(out, proc.returncode, limits)


def _decoded(out: bytes, code: int, limits: DocumentLimits) -> Extracted:
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        cpu_signals = {-getattr(signal, name) for name in ("SIGXCPU", "SIGKILL")
                       if hasattr(signal, name)}  # RLIMIT_CPU's soft, then hard limit
        if code in cpu_signals:
            raise DocumentError(
                f"Took more than the {limits.seconds:g}-second CPU budget to read")
        if code != 0:  # killed by the allocator or a crash in the parsing library
            raise DocumentError(f"{_over_memory(limits)}, or the reader crashed on it "
                                f"(exit status {code})")
        raise DocumentError("Unreadable: the reader gave no answer")
    if "error" in doc:
        raise DocumentError(str(doc["error"]))
    return Extracted(pages=[str(p) for p in doc.get("pages", [])],
                     meta={str(k): str(v) for k, v in (doc.get("meta") or {}).items()},
                     paged=bool(doc.get("paged", True)), cut=doc.get("cut"))


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1]))
