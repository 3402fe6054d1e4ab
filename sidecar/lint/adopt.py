"""`ora adopt`: propose Ora's core frontmatter for the notes of a vault that never adopted it.

For every note that has not adopted the schema (`diagnostics.adopted`), a proposal sets only what is
missing, and keeps every property already there:

- `type`: the vault's folder rule (ora.yaml) if one matches, else the first content cue of
  `schema/adopt.json` that fits (a web address in `source` → web, timestamped lines →
  transcript, assistant turns → chat, a hub of links → matrix), else the vault's untyped type.
  A note with a `type` of its own (`type: book`) is skipped: adopting would overwrite it.
- `nexus`: the note's folder note (`A/B/B.md` or `A/B.md` for a note in `A/B/`), else the hubs
  that link to it (at most `max_nexus`), else `[]` (domain-general).
- `tags`: the note's frontmatter tags (a string or the legacy `tag` become one list), spelled as
  the vocabulary spells them where they match it; inline `#tags` stay where they are.
- `date created`: a `created` property or a date in the file name, else the file's times;
  `date modified`: the day the adoption writes the note, never before `date created`
  (`diagnostics.dates_to_fill`).

A plan changes nothing. Each proposal carries the hash of the bytes it was planned from and the
exact bytes it would write (`rewrite_frontmatter`, the pure half of the one writer), so a dry
run shows the real diff and `adopt_journal.apply` writes exactly that, or nothing.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from sidecar.errors import InvalidFrontmatter, UnreadableNote
from sidecar.lint.diagnostics import (
    DEFAULT_MAX_BYTES,
    LintContext,
    adopted,
    dates_to_fill,
)
from sidecar.schema import get_schema, load_json
from sidecar.vault.drawings import drawing_format
from sidecar.vault.frontmatter_edit import Mutation, rewrite_frontmatter
from sidecar.vault.links import NameIndex
from sidecar.vault.note import Note, decode_note, parse_note, split_frontmatter
from sidecar.vault.properties import plugin_note, property_key
from sidecar.vault.scan import iter_note_paths, read_regular, vault_path
from sidecar.vault.tags import (
    clean_tag,
    frontmatter_tags,
    property_values,
    tag_properties,
    tag_words,
)
from sidecar.vault.vault_settings import VaultSettings, is_excluded, note_private
from sidecar.vault.write import content_hash

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_URL = re.compile(r"^https?://\S+$", re.IGNORECASE)


@cache
def _rules() -> dict[str, Any]:
    return dict(load_json("adopt.json"))


@dataclass(frozen=True)
class Proposal:
    """What adopting one note would write. `values` are the properties set (JSON-safe, in the
    order they are written), `why` says where each came from, `removed` lists properties folded
    into others (the legacy `tag`)."""

    path: str
    hash: str
    after_hash: str
    values: dict[str, Any]
    why: dict[str, str]
    removed: tuple[str, ...]
    new_block: bool
    private: bool
    diff: str

    @property
    def digest(self) -> str:
        """Identifies this exact proposal (path, planned bytes, values) for a later apply."""
        body = json.dumps([self.path, self.hash, self.values, self.removed], sort_keys=True)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]

    def mutation(self) -> Mutation:
        """The frontmatter edit that realises this proposal."""

        def mutate(cm: CommentedMap) -> None:
            for key in self.removed:
                cm.pop(key, None)
            for key, value in self.values.items():
                if not (key == "tags" and _respell_in_place(cm.get(key), value)):
                    cm[key] = _yaml_value(key, value)

        return mutate

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "hash": self.hash, "digest": self.digest, "values": self.values,
            "why": self.why, "removed": list(self.removed), "new_block": self.new_block,
            "private": self.private, "diff": self.diff,
        }  # fmt: skip


@dataclass(frozen=True)
class Skipped:
    """A note adopt leaves alone, and why."""

    path: str
    reason: str
    private: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "private": self.private}


@dataclass
class Plan:
    """Proposals for every untyped note, the notes skipped, and how many already adopted."""

    proposals: list[Proposal] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    already_adopted: int = 0

    def to_json(self, *, private: bool = True) -> dict[str, Any]:
        """The plan document; without `private`, private notes are only counted."""
        shown = [p for p in self.proposals if private or not p.private]
        skipped = [s for s in self.skipped if private or not s.private]
        by_type: dict[str, int] = {}
        for p in shown:
            by_type[str(p.values.get("type", ""))] = by_type.get(str(p.values.get("type")), 0) + 1
        return {
            "summary": {
                "proposed": len(shown),
                "new_frontmatter": sum(p.new_block for p in shown),
                "with_nexus": sum(bool(p.values.get("nexus")) for p in shown),
                "by_type": dict(sorted(by_type.items())),
                "skipped": len(skipped),
                "already_adopted": self.already_adopted,
                "private_hidden": len(self.proposals) - len(shown)
                + len(self.skipped) - len(skipped),
            },
            "proposals": [p.to_json() for p in shown],
            "skipped": [s.to_json() for s in skipped],
        }


def _yaml_value(key: str, value: Any) -> Any:
    """A JSON-safe proposal value as it is written: links quoted, dates as YAML dates."""
    if key == "nexus":
        return CommentedSeq([DoubleQuotedScalarString(v) for v in value])
    if isinstance(value, list):
        return CommentedSeq(value)
    if key in get_schema().linter_managed_dates:
        return dt.date.fromisoformat(value)
    return value


def _respell_in_place(seq: Any, tags: Any) -> bool:
    """Edit the note's `tags` list into `tags` where it stands, when each item holds one tag:
    items respelled (`'#Health'` → `health`), repeats and empty items removed, tags folded in
    from elsewhere (the legacy `tag`) added at its end. The list keeps its style, its comments
    (on items, before the first) and every unchanged item's bytes. False, touching nothing,
    when it is not such a list; the caller then writes `tags` anew."""
    if not isinstance(seq, CommentedSeq) or not isinstance(tags, list):
        return False
    kept: list[int] = []  # indexes of the items that stay, in the order of `tags`
    drop: list[int] = []
    seen: set[str] = set()
    for i, item in enumerate(seq):
        words = tag_words(item) if isinstance(item, str) else []
        if (item is not None and not isinstance(item, str)) or len(words) > 1:
            return False
        name = clean_tag(words[0]).casefold() if words else ""
        if not name or name in seen:
            drop.append(i)
            continue
        seen.add(name)
        kept.append(i)
    if len(kept) > len(tags) or any(
            clean_tag(seq[i]).casefold() != str(tags[n]).casefold() for n, i in enumerate(kept)):
        return False
    for n, i in enumerate(kept):
        if seq[i] != tags[n]:
            seq[i] = tags[n]
    for i in reversed(drop):
        del seq[i]
    seq.extend(tags[len(kept):])
    return True


# ---- reading the vault --------------------------------------------------------------------


@dataclass(frozen=True)
class _Read:
    """One note as planning needs it: its bytes' hash, parsed note, and the notes it links to."""

    rel: str
    hash: str
    note: Note
    links: frozenset[str]
    hub_links: int  # distinct links when the note reads as a hub (matrix cue), else 0
    private: bool  # by its words or its folder (ora.yaml `private`): `note_private`


def _body_lines(body: str) -> Iterator[str]:
    """Non-blank lines outside fenced code."""
    fence: str | None = None
    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0]:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        if line.strip():
            yield line


def _links(note: Note, names: NameIndex) -> tuple[frozenset[str], int]:
    """(paths the body links to, distinct links if the note is a hub else 0)."""
    cue = next(c for c in _rules()["cues"] if "min_links" in c)
    targets: set[str] = set()
    lines = linked = 0
    for line in _body_lines(note.body):
        found = list(names.linked(line, note.path))
        targets.update(t for t in found if t and t != note.path)
        if not _HEADING.match(line):
            lines += 1
            linked += bool(found)
    is_hub = len(targets) >= cue["min_links"] and linked >= cue["min_link_line_share"] * lines
    return frozenset(targets), len(targets) if is_hub else 0


def _read_all(vault: Path, names: NameIndex, settings: VaultSettings, max_bytes: int,
              plan: Plan) -> dict[str, _Read]:
    out: dict[str, _Read] = {}
    for rel in names.paths:
        if is_excluded(settings, rel):
            continue
        try:
            data = read_regular(vault_path(vault, rel))
            note = parse_note(decode_note(data, rel, max_bytes), rel)
        except UnreadableNote as err:  # its tags cannot be read: private, as privacy fails closed
            plan.skipped.append(Skipped(rel, err.message, private=True))
            continue
        except OSError as err:
            plan.skipped.append(Skipped(rel, f"cannot read it ({err.strerror})", private=True))
            continue
        links, hub = _links(note, names)
        out[rel] = _Read(rel, content_hash(data), note, links, hub, note_private(note, settings))
    return out


# ---- one proposal --------------------------------------------------------------------------


def _type(read: _Read, settings: VaultSettings) -> tuple[str, str]:
    """(type, why) from the folder rules, the content cues, else the vault's untyped type."""
    folded = read.rel.casefold()
    for prefix, type_name in settings.folders:
        if folded.startswith(prefix.casefold()):
            return type_name, f"folder rule {prefix}"
    fm = read.note.frontmatter
    for cue in _rules()["cues"]:
        if "url_properties" in cue:
            found = next((k for k in cue["url_properties"]
                          if isinstance(fm.get(k), str) and _URL.match(fm[k].strip())), None)
            if found:
                return cue["type"], cue["why"].format(property=found)
        elif "line_pattern" in cue:
            pattern = re.compile(cue["line_pattern"], re.IGNORECASE)
            count = sum(bool(pattern.match(line)) for line in _body_lines(read.note.body))
            if count >= cue["min_lines"]:
                return cue["type"], cue["why"].format(count=count)
        elif read.hub_links:
            return cue["type"], cue["why"].format(count=read.hub_links)
    return settings.untyped_type, "the vault's type for untyped notes"


def _link_to(rel: str, names: NameIndex) -> str:
    """`[[Name]]`, or `[[Folder/Name]]` when the bare name resolves to another note."""
    stem = PurePosixPath(rel).stem
    return f"[[{stem}]]" if names.resolve(stem) == rel else f"[[{rel.removesuffix('.md')}]]"


def _nexus(read: _Read, reads: dict[str, _Read], names: NameIndex) -> tuple[list[str], str]:
    """The folder note, else the hubs linking here; a public note's never a private one (the
    proposal is shown outside private mode, and the link would be written into the note)."""
    path = PurePosixPath(read.rel)
    folder = path.parent
    usable = {rel: r for rel, r in reads.items() if read.private or not r.private}
    if folder.name:
        for candidate in (folder / f"{folder.name}.md", folder.parent / f"{folder.name}.md"):
            rel = candidate.as_posix().removeprefix("./")
            if rel != read.rel and rel in usable:
                return [_link_to(rel, names)], f"folder note {rel}"
    hubs = sorted(r.rel for r in usable.values() if r.hub_links and read.rel in r.links)
    hubs = hubs[: int(_rules()["max_nexus"])]
    if hubs:
        return [_link_to(h, names) for h in hubs], "hub" + ("s " if len(hubs) > 1 else " ") + \
            ", ".join(hubs)
    return [], "no folder note or hub links here: domain-general"


def _readable_tags(frontmatter: dict[str, Any]) -> bool:
    """True when every tag property is absent, a string or a list of strings: anything else
    (`tags: 5`, a list holding a mapping) would lose a value if rewritten, so it is left alone."""
    for value in property_values(frontmatter, tag_properties()):
        items = value if isinstance(value, list) else [value]
        if not all(item is None or isinstance(item, str) for item in items):
            return False
    return True


def _tags(note: Note, ctx: LintContext) -> tuple[list[str], bool]:
    """(the note's frontmatter tags as one list in the vocabulary's spelling, changed?)."""
    if not _readable_tags(note.frontmatter):
        return [], False
    out: list[str] = []
    for tag in frontmatter_tags(note.frontmatter):
        spelled = tag.casefold() if tag.casefold() in ctx.known_tags else tag
        if spelled.casefold() not in {t.casefold() for t in out}:
            out.append(spelled)
    current = note.frontmatter.get("tags")
    return out, bool(_other_tag_keys(note.frontmatter)) or current != out


def _other_tag_keys(frontmatter: dict[str, Any]) -> tuple[str, ...]:
    """The note's tag properties other than `tags` (the older `tag`, or one spelled `Tags`,
    which Obsidian reads alike): folded into `tags` on adoption."""
    names = {name.casefold() for name in tag_properties()}
    return tuple(k for k in frontmatter if k != "tags" and k.casefold() in names)


def _dates(read: _Read, vault: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The missing linter-managed dates, each with where it came from."""
    created_key, modified_key = get_schema().linter_managed_dates
    fm = read.note.frontmatter
    created, modified, why = dates_to_fill(fm, read.rel, vault_path(vault, read.rel))
    out, whence = {}, {}
    if property_key(fm, created_key) is None:
        out[created_key], whence[created_key] = created, why
    if property_key(fm, modified_key) is None:
        out[modified_key] = modified
        whence[modified_key] = "the day it is written" if out[modified_key] != created else why
    return out, whence


def _no_tags_why(note: Note) -> str:
    """Why `tags: []` is proposed: none in the frontmatter. A note tagged inline keeps those
    tags (the index reads them as Obsidian does), which "none yet" used to hide."""
    if not note.tags:
        return "none yet"
    shown = ", ".join(f"#{t}" for t in note.tags[:5])
    more = f" and {len(note.tags) - 5} more" if len(note.tags) > 5 else ""
    return f"none in the frontmatter; its inline tags still count ({shown}{more})"


def _propose(read: _Read, reads: dict[str, _Read], vault: Path, ctx: LintContext,
             names: NameIndex) -> Proposal:
    note = read.note
    values: dict[str, Any] = {}
    why: dict[str, str] = {}
    values["type"], why["type"] = _type(read, ctx.settings)
    values["nexus"], why["nexus"] = _nexus(read, reads, names)
    tags, changed = _tags(note, ctx)
    if changed or "tags" not in note.frontmatter:
        values["tags"] = tags
        why["tags"] = "kept from the note" if tags else _no_tags_why(note)
    elif not _readable_tags(note.frontmatter):
        why["tags"] = "left as written: not a list of tags (lint will say why)"
    dates, dates_why = _dates(read, vault)
    values.update(dates)
    why.update(dates_why)
    removed = _other_tag_keys(note.frontmatter)
    proposal = Proposal(read.rel, read.hash, "", values, why, removed,
                        split_frontmatter(note.text) is None, read.private, "")
    after = rewrite_frontmatter(note.text, proposal.mutation())
    return Proposal(
        read.rel, read.hash, content_hash(after.encode("utf-8")), values, why, removed,
        proposal.new_block, read.private, _diff(read.rel, note.text, after),
    )  # fmt: skip


def _diff(rel: str, before: str, after: str) -> str:
    """A unified diff of the note (only the frontmatter changes, so only it shows)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        f"a/{rel}", f"b/{rel}", n=2,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _own_type(key: str, value: object) -> str:
    """Why a note with a `type` property of its own (any spelling: Obsidian reads `Type` as
    `type`) is not adopted: adopting would overwrite it, or add a second one beside it."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return (f"has an empty `{key}` property; remove it or set Ora's type by hand, or give "
                "its folder a rule in ora.yaml")
    return (f"has its own `{key}: {value}`, which adopting would overwrite; set Ora's type by "
            "hand or give its folder a rule in ora.yaml")


def plan_adoption(vault: str | Path, max_bytes: int = DEFAULT_MAX_BYTES,
                  only: Collection[str] | None = None, *, data: Path | None) -> Plan:
    """Proposals for every note of `vault` that has not adopted the schema; writes nothing.

    `only` limits the proposals (the costly part: each renders its new frontmatter) to those
    paths; every note is still read, since folder notes and hubs decide `nexus`."""
    root = Path(vault)
    ctx = LintContext.for_vault(root, None, max_bytes, data=data)
    names = ctx.names or NameIndex(iter_note_paths(root))
    plan = Plan()
    reads = _read_all(root, names, ctx.settings, max_bytes, plan)
    for rel, read in reads.items():
        if only is not None and rel not in only:
            continue
        note = read.note
        if note.yaml_error is not None:
            message, line = note.yaml_error
            plan.skipped.append(Skipped(rel, f"line {line}: {message}; fix it first",
                                        read.private))
        elif adopted(note):
            plan.already_adopted += 1
        elif not note.text.strip():  # a new note not yet written, or one mid-save: apply refuses
            plan.skipped.append(Skipped(rel, "empty: adopted once it has text", read.private))
        elif (drawing := drawing_format(note)) is not None:
            plan.skipped.append(Skipped(
                rel, f"a drawing (`{drawing.key}`): searched by its text as it is; add `type` "
                "and `nexus` by hand to give it an Ora type", read.private))
        elif (owned := plugin_note(note.frontmatter)) is not None:
            plan.skipped.append(Skipped(
                rel, f"{owned}: its plugin writes this note; searched as it is; add `type` and "
                "`nexus` by hand to give it an Ora type", read.private))
        elif (own := property_key(note.frontmatter, "type")) is not None:
            plan.skipped.append(Skipped(rel, _own_type(own, note.frontmatter[own]), read.private))
        else:
            try:
                plan.proposals.append(_propose(read, reads, root, ctx, names))
            except InvalidFrontmatter as err:  # YAML Ora's editor cannot keep byte for byte
                plan.skipped.append(Skipped(rel, err.message, read.private))
    plan.skipped.sort(key=lambda s: s.path)
    return plan
