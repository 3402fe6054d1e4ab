"""A document's pages as chunks: each page is chunked as a note's body is (headings,
paragraphs, blocks that fit), and every chunk keeps the 1-based page it came from.

A chunk never spans two pages, so a result cites exactly one page and its link opens there.
The breadcrumb the embedder reads starts with the document's title and page ("Tidal pumping,
page 7 > 4 Results"), so a page whose own lines never name the subject still embeds near it.
"""

from __future__ import annotations

from dataclasses import replace

from tokenizers import Tokenizer

from sidecar.chunking.chunker import Chunk, chunk_note
from sidecar.vault.note import Note


def page_title(title: str, page: int | None) -> str:
    return title if page is None else f"{title}, page {page}"


def chunk_pages(
    rel: str, title: str, pages: list[str], paged: bool, tokenizer: Tokenizer, max_tokens: int,
    max_chunks: int,
) -> tuple[list[Chunk], bool]:
    """The chunks of a document's pages in order (at most `max_chunks`; True when that cut
    some off). A format without pages gives chunks with `page` None."""
    chunks: list[Chunk] = []
    for n, text in enumerate(pages, 1):
        if not text.strip():
            continue
        page = n if paged else None
        body = Note(path=rel, text=text, frontmatter={}, key_lines={}, body=text, body_line=1)
        left = max_chunks - len(chunks)
        made = chunk_note(body, tokenizer, max_tokens, left + 1, page_title(title, page))
        chunks.extend(replace(c, index=len(chunks) + i, page=page) for i, c in enumerate(made))
        if len(chunks) > max_chunks:
            return chunks[:max_chunks], True
    return chunks, False
