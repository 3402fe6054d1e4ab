"""Names the stores share: namespaces, store names and chunk ids.

Isolation is by physical name (ADR-0005 decision 3): the public chunks of namespace NS live in
`NS__vault` and chunks of notes tagged `private` in `NS__private`, both in Chroma and in the BM25
database, so a query that is not in private mode never opens a private store.
"""

from __future__ import annotations

import hashlib
import re

from sidecar.errors import BadRequest

# Chroma's own rule for collection names, narrowed so the name is also a safe SQLite identifier.
_NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}")
# `__` separates a name's parts and `mem` prefixes conversation memory (`mem__<namespace>`), so
# neither may appear in a namespace: `mem` would make `mem__vault`, memory's name for namespace
# `vault`.
_RESERVED = frozenset({"mem"})


def check_namespace(namespace: str) -> str:
    """The namespace, or BadRequest when it cannot name a collection."""
    if not _NAMESPACE.fullmatch(namespace) or "__" in namespace or namespace in _RESERVED:
        raise BadRequest(
            f"namespace {namespace!r} is not valid: use 1-63 letters, digits, '_' or '-', "
            "starting with a letter or digit, without '__', and not 'mem'"
        )
    return namespace


def store_name(namespace: str, private: bool) -> str:
    """`<namespace>__private` for private chunks, `<namespace>__vault` for the rest."""
    return f"{check_namespace(namespace)}__{'private' if private else 'vault'}"


def chunk_id(path: str, index: int) -> str:
    """A chunk's id: stable for (note path, chunk position), so a rebuild gives the same ids."""
    return hashlib.sha256(f"{path}\0{index}".encode()).hexdigest()[:32]


def text_hash(text: str) -> str:
    """The key under which a chunk's vector is reused: same text, same model → same vector."""
    return hashlib.sha256(text.encode()).hexdigest()
