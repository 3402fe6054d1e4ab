"""`ora ingest VAULT FILE [--apply] [--undo] [--json] [--data DIR]`: a document as resource notes.

Without a flag it is a dry run: it prints the notes the document would become (one per page
with text, under the folder typed `resource`) and whether they are already written, and changes
no byte. `--apply` writes them and records the document as processed, so the index finds the
notes instead of the document; `--undo` undoes the latest ingest. See docs/documents.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sidecar.cli.common import add_vault_args, config_from_args, emit, log
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.ingest_undo import undo_ingest
from sidecar.errors import BadRequest, IndexLocked
from sidecar.index import open_index
from sidecar.settings import Config


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ingest", help="process a document (PDF, EPUB, …) into resource notes",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_vault_args(parser)
    parser.add_argument("file", metavar="FILE", nargs="?",
                        help="the document, vault-relative or a path inside the vault")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--apply", action="store_true", help="write the notes")
    action.add_argument("--undo", action="store_true", help="undo the latest ingest")
    parser.set_defaults(func=run)


def _relative(vault: Path, given: str) -> str:
    path = Path(given).expanduser()
    if not path.is_absolute() and (vault / path).exists():
        return given  # the vault's file, even when the current folder has one of that name
    if path.is_absolute() or path.exists():
        try:
            return path.resolve().relative_to(vault.resolve()).as_posix()
        except ValueError:
            raise BadRequest(f"{given} is not inside the vault {vault}") from None
    return given


def _reindex(config: Config, paths: list[str]) -> None:
    """Bring the index in line with what was written (the notes, and the document they now
    stand for); a running writer's watcher does it when it holds the index (it follows the
    notes and the ingest manifest)."""
    try:
        with open_index(config) as index:
            index.apply_paths(paths)
    except IndexLocked:
        log("another process is writing the index (a running sidecar or `ora watch`, or another "
            "ora command): a watcher indexes the notes and drops the document; otherwise run "
            "`ora index` once it is done")


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    vault = config.vault
    if args.undo:
        # the vault owner's own terminal: ingest has no private mode here (nor has an apply)
        done = undo_ingest(vault, data=config.data, private=True)
        _reindex(config, [str(done["document"]), *done["undone"]])
        emit(args, done, _undone_text)
        return 1 if done["refused"] else 0
    if not args.file:
        raise BadRequest("name the document to process: ora ingest VAULT FILE")
    plan = plan_ingest(vault, _relative(vault, args.file), data=config.data)
    if not args.apply:
        emit(args, plan.to_json(), _plan_text)
        log("dry run: nothing written; run again with --apply to write the notes")
        return 0
    if plan.cut:
        log(f"{plan.document}: only part of it is read: {plan.cut}")
    done = apply_ingest(vault, plan, data=config.data)
    if done["written"] or done["trashed"]:
        _reindex(config, [plan.document, *done["written"], *done["trashed"]])
    emit(args, done, _applied_text)
    return 0


def _applied_text(done: dict[str, Any]) -> str:
    lines = [f"wrote {p}" for p in done["written"]]
    lines += [f"moved to the trash {p} (no such page now, or its notes moved)"
              for p in done["trashed"]]
    written = "\n".join(lines) or "nothing to write: the notes are up to date"
    return "\n".join([written, *[f"kept {p} (edited since ingest wrote it; its page is no "
                                  "longer in the document)" for p in done.get("kept", [])]])


def _undone_text(done: dict[str, Any]) -> str:
    document, undone, refused = done["document"], done["undone"], done["refused"]
    if not refused:
        head = f"undid the ingest of {document}"
    elif undone:
        head = f"undid the ingest of {document} in part: {len(refused)} note(s) kept"
    else:
        head = (f"undid the ingest of {document} but for its notes: each was changed since, "
                "and is kept")
    lines = [head, *[f"undone {p}" for p in undone],
             *[f"kept {r['path']}: {r['reason']}" for r in refused]]
    if refused:
        lines.append("nothing more of this ingest can be undone; the next --undo undoes the "
                     "ingest before it")
    return "\n".join(lines)


def _plan_text(doc: dict[str, Any]) -> str:
    state = "already written, unchanged" if doc["unchanged"] else "to write"
    lines = [f"{doc['document']}: {len(doc['notes'])} note(s) {state}"]
    lines += [f"  {n['path']}" + (f" (page {n['page_start']})" if n["page_start"] else "")
              for n in doc["notes"]]
    if doc["stale"]:
        lines.append(f"{len(doc['stale'])} note(s) of pages no longer in it, or of the folder "
                     "its notes move away from, to the trash:")
        lines += [f"  {p}" for p in doc["stale"]]
    if doc["conflicts"]:
        lines.append("an apply is refused until these are moved away (edited since ingest "
                     "wrote them, or notes of your own):")
        lines += [f"  {p}" for p in doc["conflicts"]]
    if doc["kept"]:
        lines.append("kept where they are (edited since ingest wrote them; their pages are no "
                     "longer in the document):")
        lines += [f"  {p}" for p in doc["kept"]]
    if doc["cut"]:
        lines.append(f"only part of the document is read: {doc['cut']}")
    return "\n".join(lines)
