"""Read a BEIR-format data set: corpus.jsonl, queries.jsonl and a qrels TSV.

Thakur et al., "BEIR: A Heterogeneous Benchmark for Zero-shot Evaluation of Information
Retrieval Models", NeurIPS 2021 Datasets track, defines the layout.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidecar.errors import BadRequest


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    text: str

    @property
    def passage(self) -> str:
        """What gets indexed: the title and the body, as BEIR's own baselines join them."""
        return f"{self.title}\n{self.text}" if self.title else self.text


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a line that is not a JSON object is a
    BadRequest naming file:line."""
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise BadRequest(f"{path}:{number}: not a JSON object: {exc}") from exc
                if not isinstance(row, dict):
                    raise BadRequest(f"{path}:{number}: not a JSON object")
                yield number, row
    except OSError as exc:
        raise BadRequest(f"cannot read {path}: {exc}") from exc


def _field(path: Path, number: int, row: dict[str, Any], key: str) -> str:
    """`row[key]` as text; a missing or null field is a BadRequest naming file:line."""
    value = row.get(key)
    if value is None:
        raise BadRequest(f"{path}:{number}: missing `{key}`")
    return str(value)


def load_corpus(path: Path) -> list[Document]:
    """Every document of corpus.jsonl (`_id`, `title`, `text`), in file order."""
    return [
        Document(id=_field(path, number, row, "_id"), title=str(row.get("title") or ""),
                 text=_field(path, number, row, "text"))
        for number, row in _jsonl(path)
    ]


def load_queries(path: Path) -> dict[str, str]:
    """Query id → query text, from queries.jsonl (`_id`, `text`)."""
    return {
        _field(path, number, row, "_id"): _field(path, number, row, "text")
        for number, row in _jsonl(path)
    }


def _score(path: Path, number: int, text: str) -> int:
    """A qrels relevance: an integer, as BEIR writes it; `1.0` is accepted as 1 because some
    converters write integral floats, but `0.5` or `x` is a BadRequest naming file:line."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value.is_integer():
        raise BadRequest(f"{path}:{number}: score {text!r} is not an integer")
    return int(value)


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Query id → {doc id: relevance} from a TSV with a `query-id corpus-id score` header."""
    qrels: dict[str, dict[str, int]] = {}
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t")
            for number, row in enumerate(reader, start=1):
                if number == 1 and row and not row[-1].lstrip("-").isdigit():
                    continue  # the header line
                if len(row) < 3:
                    raise BadRequest(f"{path}:{number}: expected query-id, corpus-id, score")
                qrels.setdefault(row[0], {})[row[1]] = _score(path, number, row[2])
    except OSError as exc:
        raise BadRequest(f"cannot read {path}: {exc}") from exc
    return qrels
