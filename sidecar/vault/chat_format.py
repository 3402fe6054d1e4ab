"""The chat note's format (`schema/memory.json` `chat_notes`): one section per turn, headed by
the role's label, the time and its marks (`## You · 2026-11-30 08:40:12 UTC · private`). Writing
and reading conversations is `memory/chat_note.py`; what lives here is what every reader of a
note needs, the index among them: which of its turns were asked in private mode."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from sidecar.schema import load_json
from sidecar.vault.note import Note


@dataclass(frozen=True)
class ChatFormat:
    """`schema/memory.json` `chat_notes`."""

    labels: dict[str, str]  # role → heading label
    private_marker: str
    no_answer_marker: str
    sources_heading: str

    @property
    def heading(self) -> re.Pattern[str]:
        labels = "|".join(re.escape(label) for label in self.labels.values())
        return re.compile(rf"^## (?P<label>{labels}) · (?P<stamp>\d{{4}}-\d\d-\d\d "
                          rf"\d\d:\d\d:\d\d) UTC(?P<marks>(?: · [^\n·]+)*)[ \t]*\r?$", re.M)

    def marks(self, heading: re.Match[str]) -> set[str]:
        """The marks of a turn heading the `heading` pattern matched (`private`, `no answer`)."""
        return {mark.strip() for mark in heading["marks"].split(" · ") if mark.strip()}

    @property
    def escaped(self) -> re.Pattern[str]:
        """A line of a turn's text that starts like a turn heading, after any backslashes."""
        labels = "|".join(re.escape(label) for label in self.labels.values())
        return re.compile(rf"^(\\*## (?:{labels}) ·)", re.M)


@cache
def chat_format() -> ChatFormat:
    c = load_json("memory.json")["chat_notes"]
    return ChatFormat({str(k): str(v) for k, v in c["roles"].items()},
                      str(c["private_marker"]), str(c["no_answer_marker"]),
                      str(c["sources_heading"]))


def has_private_turn(note: Note) -> bool:
    """Whether a chat note holds a turn asked in private mode. Such a turn stays private when
    the note is not (its owner took the private tag off by hand, or its folder stopped being
    private): whatever shows a note's text outside private mode keeps the whole note out."""
    if note.type != "chat":
        return False
    fmt = chat_format()
    return any(fmt.private_marker in fmt.marks(m) for m in fmt.heading.finditer(note.body))
