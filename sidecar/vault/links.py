"""Links in notes, read and resolved to vault paths the way Obsidian does: the one reader of link
syntax (chunking, anchors, related notes and lint read links through it).

Two syntaxes name a note. A wikilink `[[Target#heading|alias]]` (embed `![[...]]`), and a
Markdown link `[text](Target.md#heading)`, which vaults with "Use [[Wikilinks]]" turned off
write: its destination URL-encoded (`Graph%20view.md`) or in `<...>` (`<Folder/My note.md>`),
relative to the linking note's folder (`../Other/Note.md`) or to the vault (`/Folder/Note.md`),
with or without `.md`. A destination with a scheme (`https:`, `mailto:`, `obsidian:`) is not a
note, nor is a Markdown image `![alt](picture.png)` (an embed, like `![[...]]`). A destination
that is neither `./`- nor `../`-relative nor vault-absolute is tried relative to the linking
note's folder first, then as written (a vault path, or a bare file name matched anywhere).

A target is a file name without `.md` (matched case-insensitively anywhere in the vault) or a
vault path (`Folder/Note`, with or without `.md`); failing both, one of a note's `aliases`. Names
are compared composed (NFC, `scan.composed_name`), as Obsidian does: a file name macOS saved
decomposed (`o` + U+0308 for `ö`) is named by a link typed composed, and the reverse. When
several notes share a name Obsidian picks one; we pick the shortest path, then the first in sort
order, so the choice is stable. A file name always wins over another note's alias.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote

from sidecar.vault.scan import folded

WIKILINK = re.compile(r"^\s*!?\[\[([^\[\]]*)\]\]\s*$")
# A wikilink or embed anywhere in text: embed mark, target, `#part`, `|alias`.
LINK = re.compile(r"(!?)\[\[([^\[\]|#]*)(#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")
# A Markdown link or image: mark, text (one level of nested brackets), destination (`<...>`, or
# no space with balanced parentheses), optional title. A wikilink is matched first.
_MD = (r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
       r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)")
_ANY = re.compile(f"{LINK.pattern}|{_MD}")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_SIZE = re.compile(r"^\d+(?:x\d+)?$")  # `![[image.png|300]]` sets a width, not a caption


def parse_wikilink(value: str) -> str | None:
    """The target of `[[Target#heading|alias]]` (here `Target`); None if not a wikilink."""
    match = WIKILINK.match(value)
    if match is None:
        return None
    target = re.split(r"[#|^]", match.group(1), maxsplit=1)[0].strip()
    return target or None


def link_target(value: str) -> str | None:
    """The target named by a wikilink or by a bare note name (as `nexus` allows)."""
    if "[[" in value or "]]" in value:
        return parse_wikilink(value)
    target = value.strip()
    return target or None


@dataclass(frozen=True)
class Link:
    """One link of a line: where it is, whether it embeds, what it reads as, and the targets it
    may name in the order they are tried (empty: not a note, e.g. a web address or `[[#part]]`)."""

    start: int
    end: int
    embed: bool
    shown: str
    targets: tuple[str, ...]
    markdown: bool


def _shown(name: str, part: str) -> str:
    """"Note > Heading", as Obsidian shows a link without text of its own."""
    name = name.rsplit("/", 1)[-1].removesuffix(".md")
    parts = [p.strip() for p in part.split("#") if p.strip() and not p.startswith("^")]
    return " > ".join([name, *parts]) if name else " > ".join(parts)


def markdown_targets(destination: str, source: str = "") -> tuple[str, ...]:
    """The note targets a Markdown link's destination may name from the note at `source`, in
    the order they are tried; none for a web address or other scheme, or the note's own part."""
    dest = destination.strip()
    if dest.startswith("<") and dest.endswith(">"):
        dest = dest[1:-1].strip()
    if not dest or _SCHEME.match(dest):
        return ()
    dest = unquote(re.split(r"[#?]", dest, maxsplit=1)[0]).strip()
    if not dest:
        return ()
    if dest.startswith("/"):
        return (dest.lstrip("/"),)
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), dest))
    relative = () if joined.startswith("../") or joined in ("..", ".") else (joined,)
    if dest.startswith(("./", "../")):
        return relative
    return tuple(dict.fromkeys([*relative, dest]))


def links(line: str, source: str = "") -> Iterator[Link]:
    """The wikilinks and Markdown links of `line` (of the note at `source`), in order."""
    for m in _ANY.finditer(line):
        if m.group(2) is not None:  # a wikilink
            embed, target, part, alias = m.group(1, 2, 3, 4)
            alias = alias.strip() if alias else ""
            shown = alias if alias and not (embed and _SIZE.match(alias)) else _shown(
                target.strip(), part or "")
            target = target.strip()
            yield Link(m.start(), m.end(), bool(embed), shown, (target,) if target else (),
                       markdown=False)
            continue
        embed, text, destination = m.group(5, 6, 7)
        targets = markdown_targets(destination, source)
        caption = text.strip()
        if embed:  # `![alt|300](picture.png)`: the alt text without its size
            head, _, size = caption.rpartition("|")
            caption = head.strip() if head and _SIZE.match(size.strip()) else caption
            caption = "" if _SIZE.match(caption) else caption
        shown = caption or (_shown(targets[-1], "") if targets else "")
        yield Link(m.start(), m.end(), bool(embed), shown, targets, markdown=True)


def shown(text: str) -> str:
    """`text` with each link as Obsidian shows it: its text or alias, else "Note > Heading"."""
    if "[" not in text:
        return text
    out, at = [], 0
    for link in links(text):
        out += [text[at : link.start], link.shown]
        at = link.end
    return "".join([*out, text[at:]])


def searchable(text: str) -> str:
    """`text` with each Markdown link to a note as its text and its target URL-decoded
    (`[the view](Graph%20view.md)` reads "the view (Graph view.md)"): its words are then words,
    as a wikilink's are, not `20view`. Other links are left as written."""
    if "](" not in text:
        return text
    out, at = [], 0
    for link in links(text):
        if link.markdown and link.targets:
            out += [text[at : link.start], f"{link.shown} ({link.targets[-1]})"]
            at = link.end
    return "".join([*out, text[at:]])


def _strip_md(name: str) -> str:
    return name[:-3] if name.lower().endswith(".md") else name


def name_key(name: str) -> str:
    """The key a link target or note path is compared by: `folded`, without `.md`."""
    return folded(_strip_md(name))


class NameIndex:
    """Resolves link targets against a fixed set of note paths and their aliases."""

    def __init__(
        self, paths: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None,
        files: Iterable[str] = (),
    ) -> None:
        """`files` are other files a link may name by their full name (`paper.pdf`), as in
        Obsidian; they resolve but are not among `paths` (the notes)."""
        self.paths: tuple[str, ...] = tuple(sorted(paths))
        self._by_path: dict[str, str] = {}
        self._by_name: dict[str, str] = {}
        self._by_alias: dict[str, str] = {}
        for path in sorted({*self.paths, *files}, key=lambda p: (p.count("/"), len(p), p)):
            self._by_path.setdefault(name_key(path), path)
            self._by_name.setdefault(name_key(PurePosixPath(path).name), path)
            for alias in (aliases or {}).get(path, ()):
                self._by_alias.setdefault(folded(alias.strip()), path)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and name_key(path) in self._by_path

    def __len__(self) -> int:
        return len(self._by_path)

    def resolve(self, target: str) -> str | None:
        """The vault path a link target points at, or None when no note matches."""
        key = name_key(target.strip().lstrip("/"))
        if not key:
            return None
        if "/" in key:
            return self._by_path.get(key) or self._by_alias.get(key)
        return self._by_name.get(key) or self._by_alias.get(key)

    def resolve_first(self, targets: Iterable[str]) -> str | None:
        """The vault path the first of `targets` that resolves points at (a `Link`'s)."""
        return next((p for t in targets if (p := self.resolve(t))), None)

    def resolve_link(self, value: str) -> str | None:
        """Resolve a wikilink or bare name straight to a vault path."""
        target = link_target(value)
        return self.resolve(target) if target else None

    def linked(self, text: str, source: str = "") -> Iterator[str | None]:
        """The vault path each link and embed of `text` (of the note at `source`) names, None
        for one that names no note; a web address or a part of the same note is no link here."""
        for line in text.splitlines():
            if "[[" in line or "](" in line:
                yield from (self.resolve_first(link.targets)
                            for link in links(line, source) if link.targets)
