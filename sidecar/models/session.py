"""Shared plumbing for BERT-style ONNX models: one session, tokenizers, length-sorted batches.

The embedder, the cross-encoder re-ranker and the NLI judge all feed `input_ids`,
`attention_mask` and (when the graph has it) `token_type_ids`, padded per batch. Sorting inputs
by token length before batching keeps padding, and so wasted compute, small.

Memory: onnxruntime's arena keeps the largest working set any run needed, and attention's grows
with batch × length². A batch is therefore bounded by padded tokens (TOKEN_BUDGET unless a model
is given another budget) as well as by count: 32 sequences of 256 tokens held ~500 MB of arena
where 8 hold ~110 MB, at the same CPU cost per text (docs/benchmarks.md, "## Index memory"). Memory
patterns (pre-planned buffers per input shape) are off: every batch has another shape, so they
only add to the arena.

A long-running process (`ora serve`, `ora watch`) holds its sessions through `LazySession`, which
gives a session's weights and arena back after an idle period (setting `idle_release_s`) and
opens it again on the next run (docs/benchmarks.md, "## Index memory: idle").
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from sidecar.errors import ModelUnavailable
from sidecar.leases import Leases

BATCH_SIZE = 32
# Padded tokens (rows × width) in flight at once: four full-length (256-token) texts, or 16 of
# 64 tokens. Chosen for memory (issue 17, at 2,048) and then halved by measurement: smaller
# batches embed more per CPU-second on this CPU, long texts and short (docs/benchmarks.md,
# "## Index speed"). The embedder splits it between its workers.
TOKEN_BUDGET = 1024


def read_tokenizer(path: Path, max_tokens: int | None = None) -> Tokenizer:
    """A tokenizer from `tokenizer.json`, with the file's own padding removed.

    With `max_tokens` the tokenizer truncates (keeping [CLS]/[SEP]); without it, it counts every
    token, which is what the chunker needs to size chunks.
    """
    if not path.is_file():
        raise ModelUnavailable(f"tokenizer not found: {path}")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception on malformed files
        raise ModelUnavailable(f"cannot read tokenizer {path}: {exc}") from exc
    tok.no_padding()
    if max_tokens is None:
        tok.no_truncation()
    else:
        tok.enable_truncation(max_length=max_tokens)
    return tok


def open_session(path: Path, threads: int | None = None) -> ort.InferenceSession:
    """One CPU InferenceSession using every core unless told otherwise."""
    if not path.is_file():
        raise ModelUnavailable(f"model file not found: {path}")
    # Search is offline: no usage events from onnxruntime (its Linux builds log them by default).
    ort.disable_telemetry_events()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or os.cpu_count() or 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.enable_mem_pattern = False  # see the module docstring
    # Idle intra-op threads would spin for the next op: on two shared cores that spin took the
    # core a search's BM25 thread needed (a query embedding cost 15 CPU-ms spinning, 8.5 not),
    # and a fifth of an index's CPU time (docs/benchmarks.md, "## Index speed").
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad graphs
        raise ModelUnavailable(f"cannot load ONNX model {path}: {exc}") from exc


@runtime_checkable
class Releasable(Protocol):
    """Holds memory it can give back when idle and take again when used (a model's session)."""

    def release(self, idle_s: float) -> bool: ...


@dataclass(frozen=True)
class Node:
    """A graph input's or output's name and shape (dimensions, or their symbolic names)."""

    name: str
    shape: list[int | str | None]


class LazySession:
    """An InferenceSession that `release` drops once idle and `run` opens again when needed.

    Opened at construction (callers read the graph's inputs and outputs, which are kept), or
    with `open_now=False` at its first use (`ora serve` loads no model before every note is
    findable by its words). A run in progress holds the session: `release` then does nothing,
    so a request arriving while releasing either finds the session or reopens it. The file is
    checked (size and mtime) at every reopen, so a model replaced on disk is never mixed into an
    index's vectors silently.
    """

    def __init__(self, path: Path, threads: int | None = None, *, open_now: bool = True) -> None:
        self.path, self.threads = path, threads
        self._leases = Leases()
        self._lock = self._leases.lock
        self._session: ort.InferenceSession | None = None
        self._stamp = _stamp(path)
        self._inputs: list[Node] = []
        self._outputs: list[Node] = []
        self.opens = 0  # how many times the file was loaded (the first, then reloads)
        if open_now:
            with self.use():
                pass

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def get_inputs(self) -> list[Node]:
        if not self.opens:
            with self.use():
                pass
        return list(self._inputs)

    def get_outputs(self) -> list[Node]:
        if not self.opens:
            with self.use():
                pass
        return list(self._outputs)

    @contextmanager
    def use(self) -> Iterator[ort.InferenceSession]:
        """The session, opened if it was released; not released while the block runs."""
        with self._leases.hold(self._open) as session:
            yield session

    def _open(self) -> ort.InferenceSession:
        """The session, loaded again if released (the caller holds `_lock`)."""
        if self._session is None:
            try:
                stamp = _stamp(self.path)
            except OSError as exc:  # removed (or its folder unreadable) since it was loaded
                raise ModelUnavailable(
                    f"{self.path} is gone since it was loaded ({exc.strerror}): restore it "
                    "or restart with another model") from exc
            if stamp != self._stamp:
                raise ModelUnavailable(
                    f"{self.path} changed on disk since it was loaded: restart to use it")
            self._session = open_session(self.path, self.threads)
            if not self.opens:
                # Copies: onnxruntime's NodeArg objects keep their session's weights alive.
                self._inputs = [Node(i.name, list(i.shape)) for i in self._session.get_inputs()]
                self._outputs = [Node(o.name, list(o.shape)) for o in self._session.get_outputs()]
            self.opens += 1
        return self._session

    def run(
        self, outputs: list[str], feed: dict[str, npt.NDArray[np.int64]]
    ) -> list[npt.NDArray[np.float32]]:
        with self.use() as session:
            result: list[npt.NDArray[np.float32]] = session.run(outputs, feed)
            return result

    def release(self, idle_s: float) -> bool:
        """Drop the session if no run used it for `idle_s` seconds and none is running; True if
        dropped (its memory goes back once the allocator trims, `sidecar/heap.py`)."""
        with self._lock:
            if self._session is None or not self._leases.idle(idle_s):
                return False
            self._session = None
            return True


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


@dataclass(frozen=True)
class Batch:
    """Padded model inputs for some of the encodings, and where they came from."""

    positions: list[int]
    feed: dict[str, npt.NDArray[np.int64]]

    @property
    def mask(self) -> npt.NDArray[np.int64]:
        return self.feed["attention_mask"]


def _groups(order: list[int], lengths: Sequence[int], batch_size: int,
            token_budget: int | None) -> Iterator[list[int]]:
    """Consecutive runs of `order` (ascending length): at most `batch_size` rows, and with a
    `token_budget` at most that many padded tokens (rows x widest), one row at least."""
    group: list[int] = []
    for i in order:
        over_budget = token_budget is not None and (len(group) + 1) * lengths[i] > token_budget
        if group and (len(group) == batch_size or over_budget):
            yield group
            group = []
        group.append(i)
    if group:
        yield group


def batches(
    encodings: Sequence[Encoding],
    input_names: Sequence[str],
    batch_size: int = BATCH_SIZE,
    token_budget: int | None = TOKEN_BUDGET,
) -> Iterator[Batch]:
    """Length-sorted, right-padded batches with the inputs the graph declares: at most
    `batch_size` rows and, unless one text is longer, `token_budget` padded tokens (None: no
    bound)."""
    lengths = [len(e.ids) for e in encodings]
    order = sorted(range(len(encodings)), key=lengths.__getitem__)
    for positions in _groups(order, lengths, batch_size, token_budget):
        width = max(len(encodings[i].ids) for i in positions)
        ids = np.zeros((len(positions), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, i in enumerate(positions):
            enc = encodings[i]
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = enc.attention_mask
            types[row, :n] = enc.type_ids
        named = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        yield Batch(positions, {name: named[name] for name in input_names})


def input_names(session: ort.InferenceSession | LazySession) -> list[str]:
    """The graph's inputs, checked against the three a BERT export may declare."""
    names = [i.name for i in session.get_inputs()]
    unknown = set(names) - {"input_ids", "attention_mask", "token_type_ids"}
    if unknown or "input_ids" not in names:
        raise ModelUnavailable(f"unexpected model inputs {names}: not a BERT-style ONNX export")
    return names
