"""What the index files a document under, and its chunks: the index's half of documents
(`sidecar/documents/`).

A document is typed by the vault's folder rules like an untyped note (`resource` outside every
rule, P2), private when ora.yaml's `private` covers its path (it has no tags to say so), titled
by its own Title (else its file name), and its Author and Subject are its searchable
`description` (BM25's `about` field): they rank it, and live in its chunks' store, so a private
document's metadata is no more reachable than its text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tokenizers import Tokenizer

from sidecar.chunking.chunker import Chunk
from sidecar.documents.chunk import chunk_pages
from sidecar.documents.extract import DocumentError
from sidecar.documents.formats import formats
from sidecar.documents.worker import extract_in_worker
from sidecar.index.records import NoteInfo, mtime_date
from sidecar.vault.vault_settings import VaultSettings, effective_type, is_private_path


def document_info(rel: str, mtime_ns: int, settings: VaultSettings,
                  meta: dict[str, str] | None = None) -> NoteInfo:
    meta = meta or {}
    doc_type, _ = effective_type(settings, rel, None)
    about = " · ".join(v for k in ("author", "subject", "keywords") if (v := meta.get(k, "")))
    return NoteInfo(
        path=rel, title=meta.get("title") or PurePosixPath(rel).stem, type=doc_type, tags=(),
        nexus=(), subtype=None, declared_cluster=None, date=mtime_date(mtime_ns),
        private=is_private_path(settings, rel), archived=False, source={}, type_inferred=True,
        description=about,
    )  # fmt: skip


@dataclass(frozen=True)
class DocumentPlan:
    """A document's index entry: its info and chunks, or the reason it has none."""

    info: NoteInfo
    chunks: list[Chunk]
    error: str | None = None
    cut: str | None = None  # why only part of it is indexed


def plan_document(
    vault: Path, rel: str, fmt: str, mtime_ns: int, settings: VaultSettings,
    tokenizer: Tokenizer, max_tokens: int,
) -> DocumentPlan:
    """Extract (in a worker, within budget) and chunk one document of a retrievable type (the
    index keeps one of another type without reading it)."""
    try:
        text = extract_in_worker(vault / rel, fmt)
    except DocumentError as exc:
        return DocumentPlan(document_info(rel, mtime_ns, settings), [], error=str(exc))
    info = document_info(rel, mtime_ns, settings, text.meta)
    limits = formats().limits
    chunks, over = chunk_pages(rel, info.title, text.pages, text.paged, tokenizer, max_tokens,
                               limits.max_chunks)
    cut = f"it makes more than {limits.max_chunks} chunks" if over else text.cut
    return DocumentPlan(info, chunks, cut=cut)
