"""Search filters over notes: type, folder, tag, date, topic cluster and conversation, resolved
to chunk ids in the stores.

A filter is applied inside the stores (Chroma's `ids` restriction, a BM25 join on the allowed
ids), before any top-k cut, so a query asking for k results gets k whenever k notes pass the
filter, however far down the unfiltered ranking they sit. A filter admitting a large share of a
store is first tried on the store's unfiltered top (`overfetch`), which holds enough of its
chunks unless they rank low; the exact search among its ids is the fallback. The ledger knows
every note's type, tags, date and chunk ids, so it resolves a filter to the ids it admits.

Semantics: several types, folders, clusters or conversations match any of them; several tags
must all be present; a tag
matches itself and its nested tags (`project` matches `project/ora`), case-insensitively, as
Obsidian's `tag:` search does; a folder matches the notes beneath it case-insensitively, as
Obsidian's `path:` does; `since`/`until` are inclusive and compare the note's date (`date
created`, else the creation date it states, else `date modified`, else the file's mtime, UTC:
`records.decay_date`). A cluster is the note's topic cluster (its `cluster` property, else the one
the index assigned: `clusters.py`), matched case-insensitively; a conversation is a chat note's
conversation id (its `conversation` property), matched exactly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sidecar.errors import BadRequest
from sidecar.schema import get_schema, load_json
from sidecar.vault.scan import composed_name
from sidecar.vault.tags import lowered

# Chunk ids a filter admits, by store (False: the public store, True: the private one).
Scope = dict[bool, list[str]]


@cache
def _filter_settings() -> tuple[int, int]:
    found = load_json("ranking.json")["filter"]
    return int(found["overfetch"]), int(found["fetch_limit"])


def overfetch(k: int, admitted: int, stored: int) -> int | None:
    """How many unfiltered hits a store ranks to find about `overfetch` × k admitted ones, when
    a filter admits `admitted` of its `stored` chunks (schema/ranking.json `filter`); None when
    that is over `fetch_limit`: the filter is narrow, and searching among its ids is cheaper.

    Ranking the whole store is fast (the engines skip what cannot reach the top), while a search
    among the admitted ids costs as many as there are: 24,000 for a filter admitting a quarter
    of 100,000 chunks (docs/benchmarks.md "Latency")."""
    factor, limit = _filter_settings()
    if admitted <= 0 or stored <= 0:
        return None
    wanted = -(-factor * k * stored // admitted)  # ceiling
    return wanted if wanted <= limit else None


# Bounds past the calendar's edge (year 1 to 9999, as stored dates are): nothing stored lies
# before the first, so an `until` there admits nothing; nothing lies after the second, so a
# `since` there admits nothing. (A `since` before the edge or an `until` after it is no bound.)
_BEFORE_ALL = dt.datetime.min.isoformat(timespec="seconds")
_AFTER_ALL = f"{dt.datetime.max.isoformat(timespec='seconds')}\uffff"


def _beyond_calendar(*, end: bool, after: bool) -> str | None:
    """The bound of a date past the calendar's edge, `after` its end or before its start: an
    `until` after the end or a `since` before the start bounds nothing, the other two admit
    nothing (no stored date is that early or late)."""
    if end == after:
        return None
    return _BEFORE_ALL if end else _AFTER_ALL


def _date_bound(value: str | None, name: str, *, end: bool) -> str | None:
    """An ISO bound comparable with stored dates (`YYYY-MM-DDTHH:MM:SS`, UTC).

    A bare date as `until` means the end of that day, so it is turned into an exclusive bound on
    the next day's start (the caller compares with `<`). A bound the calendar cannot hold (until
    9999-12-31, the day after which is past year 9999; an offset moving 0001-01-01 into year 0)
    is clamped at its edge (`_beyond_calendar`), not refused: `until 9999-12-31` means no end."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            day = dt.date.fromisoformat(text)
            if end and day == dt.date.max:
                return _beyond_calendar(end=end, after=True)
            return (day + dt.timedelta(days=1) if end else day).isoformat()
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise BadRequest(
            f"{name} {value!r} is not a date: use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS"
        ) from None
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
        except OverflowError:  # in UTC it falls in year 0 or 10000
            return _beyond_calendar(end=end, after=moment.year == dt.MAXYEAR)
    stamp = moment.isoformat(timespec="seconds")
    # An exact `until` instant is inclusive: anything after it in the same second is later.
    return f"{stamp}\uffff" if end else stamp


def _folder(value: str) -> str:
    folder = value.strip().replace("\\", "/").strip("/")
    if not folder or any(part in ("", ".", "..") for part in folder.split("/")):
        raise BadRequest(f"folder {value!r} is not a vault folder such as Engrams or Notes/2024")
    return folder


def fold_tag(tag: str) -> str:
    """A note's tag as filters compare it: composed (NFC; a tag typed decomposed, pasted from a
    macOS file name, is the same tag) and lower-cased, without its '#'. Lower-cased as Obsidian
    compares tags (JavaScript's toLowerCase), not case-folded: #Straße and #STRASSE, #ﬁnance
    and #finance are two tags there (vault/tags.py `lowered`)."""
    return lowered(tag).lstrip("#")


def fold_path(path: str) -> str:
    """A note's path as folder filters compare it: lower-cased, as Obsidian's `path:` search
    does (`projects` finds `Projects/`, `ärzte` finds `Ärzte/`; `strasse` is not `Straße`), and
    composed (NFC): a folder macOS saved decomposed is found by its name as typed."""
    return composed_name(path).lower()


def fold_name(name: str | None) -> str | None:
    """A cluster name as filters compare it: case-folded, surrounding spaces dropped."""
    return None if name is None else name.strip().casefold()


def _named(value: str, what: str) -> str:
    name = value.strip()
    if not name:
        raise BadRequest(f"{what} {value!r} is empty")
    return name


def _tag(value: str) -> str:
    tag = lowered(value.strip().lstrip("#").strip("/"))
    if not tag:
        raise BadRequest(f"tag {value!r} is empty")
    return tag


@dataclass(frozen=True)
class NoteFilter:
    """What a search or related query is restricted to; the empty filter admits everything."""

    types: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    since: str | None = None  # inclusive lower bound, normalised by `make`
    until: str | None = None  # exclusive upper bound, normalised by `make`
    clusters: tuple[str, ...] = ()  # case-folded
    conversations: tuple[str, ...] = ()

    @classmethod
    def make(
        cls,
        types: Sequence[str] = (),
        folders: Sequence[str] = (),
        tags: Sequence[str] = (),
        since: str | None = None,
        until: str | None = None,
        clusters: Sequence[str] = (),
        conversations: Sequence[str] = (),
    ) -> NoteFilter:
        """A filter from user input (BadRequest naming the bad value); `types` come from the
        schema's vocabulary."""
        low = _date_bound(since, "since", end=False)
        high = _date_bound(until, "until", end=True)
        if low is not None and high is not None and low >= high:
            raise BadRequest(f"since {since!r} is after until {until!r}")
        known = get_schema().types
        unknown = sorted({t for t in types if t not in known})
        if unknown:
            raise BadRequest(
                f"unknown type {', '.join(unknown)}: choose from {', '.join(sorted(known))}"
            )
        return cls(
            types=tuple(dict.fromkeys(types)),
            folders=tuple(dict.fromkeys(fold_path(_folder(f)) for f in folders)),
            tags=tuple(dict.fromkeys(_tag(t) for t in tags)),
            since=low,
            until=high,
            clusters=tuple(dict.fromkeys(str(fold_name(_named(c, "cluster"))) for c in clusters)),
            conversations=tuple(dict.fromkeys(_named(c, "conversation") for c in conversations)),
        )

    @classmethod
    def from_json(cls, body: Mapping[str, Any] | None) -> NoteFilter:
        """A filter from the `filters` object of an HTTP request (already schema-checked)."""
        body = body or {}
        return cls.make(body.get("types", ()), body.get("folders", ()), body.get("tags", ()),
                        body.get("since"), body.get("until"), body.get("clusters", ()),
                        body.get("conversations", ()))

    @property
    def active(self) -> bool:
        return bool(self.types or self.folders or self.tags or self.since or self.until
                    or self.clusters or self.conversations)

    def admits(self, path: str, type_name: str | None, tags: Iterable[str], date: str,
               cluster: str | None = None, conversation: str | None = None) -> bool:
        """True when a note with these properties passes every part of the filter."""
        if self.types and type_name not in self.types:
            return False
        if self.clusters and fold_name(cluster) not in self.clusters:
            return False
        if self.conversations and conversation not in self.conversations:
            return False
        if self.folders and not any(fold_path(path).startswith(f"{f}/") for f in self.folders):
            return False
        if self.tags:
            have = {fold_tag(t) for t in tags}
            for wanted in self.tags:
                if not any(t == wanted or t.startswith(f"{wanted}/") for t in have):
                    return False
        if self.since is not None and date < self.since:
            return False
        return self.until is None or date < self.until
