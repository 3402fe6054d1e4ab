"""`ora adopt`: proposals for untyped notes, a dry run that writes nothing, an apply that writes
exactly the plan (or refuses), and an undo that gives the vault back byte for byte."""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from sidecar.cli import main
from sidecar.errors import NotFound
from sidecar.lint.adopt import Plan, plan_adoption
from sidecar.lint.adopt_journal import apply_adoption, undo_adoption
from sidecar.lint.diagnostics import lint_vault
from sidecar.vault import journal as journals
from sidecar.vault.journal import journal_folder
from tests.notes import write_notes

from ..full_disk import fill_disk

PLAIN = Path(__file__).resolve().parents[2] / "examples" / "plain-vault"


def _tree(root: Path) -> dict[str, str]:
    """Every file and folder under root (dot-folders included) with its bytes' hash."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return out


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    vault = tmp_path / "plain-vault"
    shutil.copytree(PLAIN, vault)
    return vault


def _by_path(plan: Plan) -> dict[str, dict[str, object]]:
    return {p.path: p.values for p in plan.proposals}


# ---- the whole example vault --------------------------------------------------------------------


def test_a_dry_run_changes_no_byte(plain: Path) -> None:
    before = _tree(plain)
    assert main(["adopt", str(plain), "--json"]) == 0
    assert _tree(plain) == before


def test_apply_then_undo_gives_the_tree_back_byte_for_byte(plain: Path) -> None:
    before = _tree(plain)
    assert not [d for d in lint_vault(plain, data=None) if d.severity == "error"]
    plan = plan_adoption(plain, data=None)
    assert len(plan.proposals) >= 40
    applied = apply_adoption(plain, plan.proposals)
    assert applied.refused == [] and len(applied.done) == len(plan.proposals)
    assert _tree(plain) != before
    assert not [d for d in lint_vault(plain, data=None) if d.severity == "error"]
    assert plan_adoption(plain, data=None).proposals == []  # nothing left to adopt
    undone = undo_adoption(plain)
    assert sorted(undone.done) == sorted(applied.done) and undone.refused == []
    assert _tree(plain) == before


def test_apply_writes_exactly_the_planned_diff_and_nothing_else(plain: Path) -> None:
    plan = plan_adoption(plain, data=None)
    rel = "Projects/Allotment/Allotment.md"
    proposal = next(p for p in plan.proposals if p.path == rel)
    old = (plain / rel).read_text(encoding="utf-8")
    apply_adoption(plain, [proposal])
    new = (plain / rel).read_text(encoding="utf-8")
    assert hashlib.sha256(new.encode()).hexdigest() == proposal.after_hash
    assert new.split("\n---\n", 1)[1] == old.split("\n---\n", 1)[1]  # the body, untouched
    for line in proposal.diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            assert line[1:] in new.splitlines()


def test_a_plan_limited_to_some_notes_proposes_the_same_for_them(plain: Path) -> None:
    full = {p.path: p for p in plan_adoption(plain, data=None).proposals}
    some = ["Recipes/Weeknight dal.md", "Projects/Allotment/Compost notes.md"]
    limited = plan_adoption(plain, only=some, data=None)
    assert [p.path for p in limited.proposals] == sorted(some)
    assert all(p == full[p.path] for p in limited.proposals)  # nexus still sees every hub


def test_a_note_edited_between_plan_and_apply_is_refused_and_left_untouched(plain: Path) -> None:
    plan = plan_adoption(plain, data=None)
    edited = plain / "Recipes/Weeknight dal.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nAdd a bay leaf.\n", "utf-8")
    mine = edited.read_bytes()
    outcome = apply_adoption(plain, plan.proposals)
    assert [r["path"] for r in outcome.refused] == ["Recipes/Weeknight dal.md"]
    assert "changed since the plan" in outcome.refused[0]["reason"]
    assert edited.read_bytes() == mine
    assert len(outcome.done) == len(plan.proposals) - 1


def test_undo_refuses_a_note_edited_since_and_restores_the_rest(plain: Path) -> None:
    before = _tree(plain)
    apply_adoption(plain, plan_adoption(plain, data=None).proposals)
    note = plain / "Health/Knee physio.md"
    adopted_bytes = note.read_bytes()
    note.write_bytes(adopted_bytes + b"\n- 15 Dec: discharged.\n")
    first = undo_adoption(plain)
    assert [r["path"] for r in first.refused] == ["Health/Knee physio.md"]
    assert note.read_bytes().endswith(b"discharged.\n")  # the user's edit survives
    note.write_bytes(adopted_bytes)  # the user takes their edit back out
    second = undo_adoption(plain)
    assert second.done == ["Health/Knee physio.md"] and second.refused == []
    assert _tree(plain) == before
    with pytest.raises(NotFound):
        undo_adoption(plain)


def test_a_journal_written_before_a_crash_still_undoes(plain: Path) -> None:
    """The journal is written before any note: an apply that died after some notes is undone."""
    before = _tree(plain)
    plan = plan_adoption(plain, data=None)
    apply_adoption(plain, plan.proposals[:5])
    journal = next(journal_folder(plain).glob("adopt-*.json"))
    doc = json.loads(journal.read_text(encoding="utf-8"))
    rest = apply_adoption(plain, plan.proposals[5:10])  # a second journal
    assert rest.journal is not None
    undo_adoption(plain)  # the latest first
    assert len(doc["files"]) == 5
    undo_adoption(plain)
    assert _tree(plain) == before


# ---- what is proposed ---------------------------------------------------------------------------


def test_types_come_from_folder_rules_then_content_cues_then_the_default(tmp_path: Path) -> None:
    stamps = "\n".join(f"[00:{i:02d}] Speaker: line {i}" for i in range(6))
    turns = "\n\n".join(f"**User:** question {i}\n\n**Assistant:** answer {i}" for i in range(3))
    vault = write_notes(tmp_path, {
        "ora.yaml": "folders:\n  Zettel/: engram\n",
        "Zettel/Idea.md": "An idea.\n",
        "Clips/Article.md": "---\nsource: https://example.org/a\n---\nText.\n",
        "Calls/Call.md": f"# Call\n{stamps}\n",
        "Talk/Chat.md": f"# Chat\n\n{turns}\n",
        "Index.md": "# Index\n\n- [[Idea]]\n- [[Article]]\n- [[Call]]\n- [[Chat]]\n",
        "Plain.md": "Just text.\n",
    })
    plan = _by_path(plan_adoption(vault, data=None))
    assert {rel: v["type"] for rel, v in plan.items()} == {
        "Zettel/Idea.md": "engram", "Clips/Article.md": "web", "Calls/Call.md": "transcript",
        "Talk/Chat.md": "chat", "Index.md": "matrix", "Plain.md": "resource",
    }  # fmt: skip


def test_nexus_is_the_folder_note_else_the_hubs_linking_here(tmp_path: Path) -> None:
    vault = write_notes(tmp_path, {
        "Projects/Garden/Garden.md": "# Garden\nThe plot.\n",
        "Projects/Garden/Compost.md": "Browns and greens.\n",
        "Projects/Kitchen.md": "# Kitchen\n",
        "Projects/Kitchen/Tiles.md": "White tiles.\n",
        "Home.md": "- [[Garden]]\n- [[Kitchen]]\n- [[Loose]]\n- [[Tiles]]\n",
        "Loose.md": "Linked from home only.\n",
        "Alone.md": "Nobody links here.\n",
    })
    plan = _by_path(plan_adoption(vault, data=None))
    assert plan["Projects/Garden/Compost.md"]["nexus"] == ["[[Garden]]"]
    assert plan["Projects/Kitchen/Tiles.md"]["nexus"] == ["[[Kitchen]]"]
    assert plan["Loose.md"]["nexus"] == ["[[Home]]"]
    assert plan["Alone.md"]["nexus"] == []
    text = (vault / "Loose.md").read_text(encoding="utf-8")
    assert text == "Linked from home only.\n"  # planning wrote nothing


def test_a_hub_of_markdown_links_is_a_nexus_too(tmp_path: Path) -> None:
    # A vault with "Use [[Wikilinks]]" off: its hubs link by Markdown links.
    vault = write_notes(tmp_path, {
        "Home.md": "- [Loose](Loose.md)\n- [Other](<Notes/Other note.md>)\n"
                   "- [Third](Notes/Third%20note.md#Part)\n- [Fourth](/Fourth.md)\n",
        "Loose.md": "Linked from home only.\n",
        "Fourth.md": "The fourth.\n",
        "Notes/Other note.md": "Linked from home too.\n",
        "Notes/Third note.md": "And this one.\n",
    })
    plan = _by_path(plan_adoption(vault, data=None))
    assert plan["Loose.md"]["nexus"] == ["[[Home]]"]
    assert plan["Notes/Third note.md"]["nexus"] == ["[[Home]]"]


def test_an_empty_tags_list_says_the_notes_inline_tags_still_count(tmp_path: Path) -> None:
    """A daily note tagged inline was told its tags were "none yet", as if adopting lost them."""
    vault = write_notes(tmp_path, {
        "Daily.md": "Call the plumber #kitchen/sink, buy descaler #errands\n",
        "Bare.md": "No tags at all.\n"})
    by_path = {p.path: p for p in plan_adoption(vault, data=None).proposals}
    assert by_path["Daily.md"].values["tags"] == []
    assert by_path["Daily.md"].why["tags"] == (
        "none in the frontmatter; its inline tags still count (#kitchen/sink, #errands)")
    assert by_path["Bare.md"].why["tags"] == "none yet"


def test_tags_are_kept_as_one_list_in_the_vocabulary_spelling(tmp_path: Path) -> None:
    vault = write_notes(tmp_path, {
        "A.md": "---\ntags: \"#Health, sleep/naps\"\n---\nText.\n",
        "B.md": "---\ntag: Productivity\n---\nText.\n",
        "C.md": "---\ntags: [Garden]\n---\n#inline stays inline.\n",
        "D.md": "---\ntags: [learning]\n---\nAlready a clean list.\n",
        "E.md": "---\ntags: [memory, {odd: 1}]\n---\nNot only strings: left alone.\n",
        "F.md": "---\nTags: [Private, sleep]\n---\nObsidian reads that as tags.\n",
    })
    plan = plan_adoption(vault, data=None)
    values = _by_path(plan)
    assert values["A.md"]["tags"] == ["health", "sleep/naps"]
    assert values["B.md"]["tags"] == ["productivity"]
    assert "tags" not in values["C.md"]  # a list of the vault's own tags: nothing to change
    assert "tags" not in values["D.md"]
    assert "tags" not in values["E.md"]
    assert values["F.md"]["tags"] == ["private", "sleep"]
    apply_adoption(vault, plan.proposals)
    text = (vault / "B.md").read_text(encoding="utf-8")
    assert "tag:" not in text and "- productivity" in text  # legacy `tag` folded into `tags`
    text = (vault / "F.md").read_text(encoding="utf-8")
    assert "Tags:" not in text and "- private" in text  # one `tags`, not two spellings


def test_dates_come_from_a_created_property_or_the_file_name_else_the_file(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path, {
        "Daily/2026-10-26.md": "Monday.\n",
        "Clip.md": "---\ncreated: 2026-08-03T10:00\n---\nClipped.\n",
        "Plain.md": "Text.\n",
        "Dated.md": "---\ndate created: 2020-01-01\n---\nKeeps its own.\n",
        "Capital.md": "---\nDate Created: 2020-01-01\nDATE MODIFIED: 2020-01-02\n---\nSame.\n",
    })
    os.utime(vault / "Plain.md", (1_700_000_000, 1_700_000_000))
    plan = _by_path(plan_adoption(vault, data=None))
    assert plan["Daily/2026-10-26.md"]["date created"] == "2026-10-26"
    assert plan["Clip.md"]["date created"] == "2026-08-03"
    # the adoption writes the note: its day is the file's mtime day after it (lint-current)
    assert plan["Plain.md"]["date modified"] == dt.date.today().isoformat()
    assert "date created" not in plan["Dated.md"]
    # Obsidian's property names are case-insensitive: no second date beside `Date Created`
    assert "date created" not in plan["Capital.md"] and "date modified" not in plan["Capital.md"]


def test_a_filled_date_modified_is_never_before_the_notes_date_created(tmp_path: Path) -> None:
    """Adopt proposed the file's older mtime as `date modified` beside a later `date created`."""
    vault = write_notes(tmp_path, {"Synced.md": "---\ndate created: 2099-05-06\n---\nSynced.\n"})
    os.utime(vault / "Synced.md", (1_700_000_000, 1_700_000_000))  # 2023-11-14
    (proposal,) = plan_adoption(vault, data=None).proposals
    assert proposal.values["date modified"] == "2099-05-06"  # set ahead, after the write day
    assert proposal.why["date modified"] == "the note's `date created`"


def test_each_date_says_where_it_came_from(tmp_path: Path) -> None:
    vault = write_notes(tmp_path, {"Daily/2026-10-26.md": "Monday, edited since.\n"})
    (proposal,) = plan_adoption(vault, data=None).proposals
    assert proposal.why["date created"] == "the date in its file name"
    assert proposal.why["date modified"] == "the day it is written"


def test_notes_adopt_leaves_alone_are_skipped_with_a_reason(tmp_path: Path) -> None:
    vault = write_notes(tmp_path, {
        "Own type.md": "---\ntype: book\n---\nMine.\n",
        "Broken.md": "---\ntags: [a\n---\nBad YAML.\n",
        "Adopted.md": "---\ntype: engram\nnexus: []\ntags: []\n---\nDone.\n",
        "Binary.md": b"\x00\x01",
        # YAML the reader takes but the round-trip editor refuses (tabs inside a plain value):
        # it used to stop the whole plan with an error that named no note.
        "Tabbed.md": "---\ntitle: Tab\t\tbed\n---\nText.\n",
        # A new note never written: its dry run proposed a block that apply then refused.
        "Untitled.md": "",
        "Blank.md": "\n  \n",
        "Fine.md": "Text.\n",
    })
    plan = plan_adoption(vault, data=None)
    assert [p.path for p in plan.proposals] == ["Fine.md"] and plan.already_adopted == 1
    assert apply_adoption(vault, plan.proposals).refused == []
    reasons = {s.path: s.reason for s in plan.skipped}
    assert "would overwrite" in reasons["Own type.md"]
    assert "fix it first" in reasons["Broken.md"]
    assert "binary" in reasons["Binary.md"]
    assert "replace it by a space" in reasons["Tabbed.md"] and "line 2" in reasons["Tabbed.md"]
    assert "\n" not in reasons["Tabbed.md"]
    assert reasons["Untitled.md"] == reasons["Blank.md"] == "empty: adopted once it has text"


def test_a_type_of_the_notes_own_in_any_spelling_is_never_overwritten_nor_doubled(
    tmp_path: Path,
) -> None:
    # Before: `Type: book` got a `type: resource` beside it (two types that disagree), and an
    # empty `type:` was "its own `type: None`".
    vault = write_notes(tmp_path, {"Capital.md": "---\nType: book\n---\nMine.\n",
                                   "Empty.md": "---\ntype:\n---\nMine.\n"})
    plan = plan_adoption(vault, data=None)
    assert plan.proposals == []
    reasons = {s.path: s.reason for s in plan.skipped}
    assert reasons["Capital.md"].startswith("has its own `Type: book`, which adopting would")
    assert reasons["Empty.md"].startswith("has an empty `type` property") and "None" not in (
        reasons["Empty.md"])


def test_a_note_without_frontmatter_gets_a_block_and_keeps_every_byte(tmp_path: Path) -> None:
    body = "\ufeff# Title\r\n\r\nCRLF body, kept exactly.\r\n"
    vault = write_notes(tmp_path, {"Note.md": body})
    plan = plan_adoption(vault, data=None)
    (proposal,) = plan.proposals
    assert proposal.new_block
    apply_adoption(vault, plan.proposals)
    text = (vault / "Note.md").read_bytes().decode("utf-8")
    assert text.startswith("\ufeff---\r\ntype: resource\r\n") and text.endswith(body[1:])
    undo_adoption(vault)
    assert (vault / "Note.md").read_bytes() == body.encode("utf-8")


@pytest.mark.parametrize("secret", [
    {"Secret zqx.md": "---\ntags: [private]\n---\nSecret zqx text.\n"},
    {"ora.yaml": "private: [Health/]\n", "Health/Secret zqx.md": "Secret zqx text.\n"},
], ids=["tag", "folder"])
def test_private_notes_are_only_counted_outside_private_mode(
    tmp_path: Path, secret: dict[str, str]
) -> None:
    vault = write_notes(tmp_path, {"Public.md": "Text.\n", **secret})
    doc = plan_adoption(vault, data=None).to_json(private=False)
    assert "zqx" not in json.dumps(doc)
    assert doc["summary"]["private_hidden"] == 1 and doc["summary"]["proposed"] == 1
    assert "zqx" in json.dumps(plan_adoption(vault, data=None).to_json(private=True))


def test_a_public_notes_nexus_never_names_a_private_hub_or_folder_note(tmp_path: Path) -> None:
    """A public note's proposal is shown outside private mode and, applied, written into a
    public note: a private hub or folder note (its name is private too) is never its nexus, and
    a note whose privacy cannot be read (binary, too large) is skipped as private."""
    vault = write_notes(tmp_path, {
        "Hubs/Zqx divorce.md": "---\ntags: [private]\n---\n- [[Lawyer]]\n- [[Flat]]\n"
                               "- [[Kids]]\n- [[Money]]\n",
        "Hubs/Home.md": "- [[Kids]]\n- [[Garden]]\n- [[Money]]\n- [[Flat]]\n",
        "Lawyer.md": "Call on Monday.\n", "Flat.md": "Two rooms.\n", "Kids.md": "School.\n",
        "Money.md": "Budget.\n", "Garden.md": "Roses.\n",
        "Case/Case.md": "#private\nThe Zqx case file.\n",
        "Case/Hearing.md": "On the 4th.\n",
        "Zqx blob.md": b"\x00\x01 #private",
    })
    plan = plan_adoption(vault, data=None)
    values = _by_path(plan)
    assert values["Lawyer.md"]["nexus"] == [] and values["Kids.md"]["nexus"] == ["[[Home]]"]
    assert values["Case/Hearing.md"]["nexus"] == []
    doc = plan.to_json(private=False)
    assert "Zqx" not in json.dumps(doc), json.dumps(doc)
    assert doc["summary"]["private_hidden"] == 3  # two private notes, one skipped
    apply_adoption(vault, [p for p in plan.proposals if not p.private])
    assert not any("Zqx" in (vault / p).read_text(encoding="utf-8")
                   for p in ("Lawyer.md", "Kids.md", "Case/Hearing.md"))


def test_a_folder_made_private_by_ora_yaml_hides_its_notes_and_hubs(tmp_path: Path) -> None:
    """ora.yaml `private: [Health/]` makes its notes private as a #private tag does: hidden
    from the plan outside private mode, never a public note's nexus, and not applied there."""
    vault = write_notes(tmp_path, {
        "ora.yaml": "private: [Health/]\n",
        "Health/Zqx therapy.md": "Session notes about zqx.\n",
        "Health/Zqx hub.md": "- [[Lawyer]]\n- [[Flat]]\n- [[Kids]]\n- [[Money]]\n",
        "Lawyer.md": "Call on Monday.\n", "Flat.md": "Two rooms.\n", "Kids.md": "School.\n",
        "Money.md": "Budget.\n",
    })
    plan = plan_adoption(vault, data=None)
    assert _by_path(plan)["Lawyer.md"]["nexus"] == []
    assert {p.path for p in plan.proposals if p.private} == {
        "Health/Zqx therapy.md", "Health/Zqx hub.md"}
    doc = plan.to_json(private=False)
    assert "zqx" not in json.dumps(doc).casefold(), json.dumps(doc)
    assert doc["summary"]["private_hidden"] == 2


def test_a_linked_journal_folder_is_refused_and_nothing_written(tmp_path: Path) -> None:
    """The journal keeps notes' old frontmatter (private notes' too): a journal folder linked
    elsewhere would carry them out of the vault, so adoption refuses before writing."""
    vault = write_notes(tmp_path / "vault", {"Fine.md": "Text.\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    journal_folder(vault).symlink_to(outside)
    out = apply_adoption(vault, plan_adoption(vault, data=None).proposals)
    assert out.done == [] and "symbolic link" in out.refused[0]["reason"]
    assert list(outside.iterdir()) == []
    assert (vault / "Fine.md").read_text(encoding="utf-8") == "Text.\n"


# ---- the command line ---------------------------------------------------------------------------


def test_cli_dry_run_apply_and_undo(plain: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _tree(plain)
    assert main(["adopt", str(plain), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["summary"]["proposed"] == len(plan["proposals"]) >= 40
    assert main(["adopt", str(plain), "--apply", "--json"]) == 0
    applied = json.loads(capsys.readouterr().out)
    assert len(applied["applied"]) == plan["summary"]["proposed"]
    assert applied["journal"].startswith(".ora-journal/adopt-")
    assert main(["adopt", str(plain), "--undo"]) == 0
    assert _tree(plain) == before
    assert main(["adopt", str(plain), "--undo"]) == 2  # nothing left to undo
    assert "no adoption to undo" in capsys.readouterr().err


def test_a_note_that_cannot_be_written_is_refused_and_the_rest_applied(plain: Path) -> None:
    plan = plan_adoption(plain, data=None)
    locked = plain / "Notes/Ideas.md"
    before = locked.read_bytes()
    locked.chmod(0o444)
    try:
        outcome = apply_adoption(plain, plan.proposals)
    finally:
        locked.chmod(0o644)
    assert locked.read_bytes() == before
    assert [r["path"] for r in outcome.refused] == ["Notes/Ideas.md"]
    assert len(outcome.done) == len(plan.proposals) - 1


# ---- round two: journals are ordered, and written whole or not at all ----------------------------


def _clock(monkeypatch: pytest.MonkeyPatch, at: dt.datetime) -> None:
    """The journal's clock says `at`, however often it is asked."""

    class Stopped(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> Stopped:  # type: ignore[override]
            return cls.fromtimestamp(at.timestamp(), tz)

    monkeypatch.setattr(journals, "dt", SimpleNamespace(datetime=Stopped, UTC=dt.UTC))


NOON = dt.datetime(2026, 12, 1, 12, 0, 0, tzinfo=dt.UTC)


def test_two_applies_in_one_second_are_undone_newest_first(
    plain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`adopt-<time>.json` and `adopt-<time>-2.json`: `.` sorts after `-`, so --undo took the
    older apply first."""
    _clock(monkeypatch, NOON)
    proposals = plan_adoption(plain, data=None).proposals
    first = apply_adoption(plain, proposals[:3])
    second = apply_adoption(plain, proposals[3:6])
    assert first.journal != second.journal
    assert sorted(undo_adoption(plain).done) == sorted(second.done)
    assert sorted(undo_adoption(plain).done) == sorted(first.done)


def test_undo_takes_the_latest_apply_even_when_the_clock_went_back(
    plain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proposals = plan_adoption(plain, data=None).proposals
    _clock(monkeypatch, NOON)
    first = apply_adoption(plain, proposals[:3])
    _clock(monkeypatch, NOON - dt.timedelta(hours=1))  # a clock set back between the two
    second = apply_adoption(plain, proposals[3:6])
    assert sorted(undo_adoption(plain).done) == sorted(second.done)
    assert sorted(undo_adoption(plain).done) == sorted(first.done)


def test_journals_named_before_the_sequence_still_undo_newest_first(plain: Path) -> None:
    proposals = plan_adoption(plain, data=None).proposals
    first = apply_adoption(plain, proposals[:3])
    second = apply_adoption(plain, proposals[3:6])
    assert first.journal is not None and second.journal is not None
    (plain / first.journal).rename(journal_folder(plain) / "adopt-20261201T120000Z.json")
    (plain / second.journal).rename(journal_folder(plain) / "adopt-20261201T120000Z-2.json")
    assert sorted(undo_adoption(plain).done) == sorted(second.done)
    assert sorted(undo_adoption(plain).done) == sorted(first.done)


def test_a_full_disk_leaves_no_empty_journal_behind(
    plain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal is written before any note; on a full disk that write failed after the file
    was created, and a 0-byte journal was left in the vault. Without a journal no note is
    written: each is refused with the system's words."""
    before = _tree(plain)
    proposals = plan_adoption(plain, data=None).proposals
    fill_disk(monkeypatch, journal_folder(plain))
    out = apply_adoption(plain, proposals)
    assert out.done == [] and len(out.refused) == len(proposals)
    assert all(os.strerror(errno.ENOSPC) in r["reason"] for r in out.refused)
    assert _tree(plain) == before  # no note, no journal, no journal folder
