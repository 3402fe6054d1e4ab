"""`ora adopt VAULT [--apply] [--undo] [--json] [--data DIR]`: Ora's frontmatter for untyped notes.

Without a flag it is a dry run: it prints what it would add to each note (type, nexus, tags,
dates), why, and the exact diff, and changes no byte. `--apply` writes that plan through the
byte-preserving writer, refusing any note that changed in the meantime, and keeps a journal in
VAULT/.ora-journal/; `--undo` restores every note of the latest adoption byte for byte (a note
edited since is refused). Exit status 1 when a note was refused. See docs/adopt.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sidecar.cli.common import add_json_arg, emit, log
from sidecar.errors import BadRequest
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption, undo_adoption
from sidecar.settings import make_config


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "adopt", help="propose (and apply, or undo) Ora frontmatter for untyped notes",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("vault", metavar="VAULT", help="the vault folder")
    # Where the vault settings a missing ora.yaml last said are kept (DESIGN: every subcommand
    # takes --data).
    parser.add_argument("--data", metavar="DIR", help="index folder (default VAULT/.ora)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--apply", action="store_true", help="write the proposed frontmatter")
    action.add_argument("--undo", action="store_true", help="restore the latest adoption")
    add_json_arg(parser)
    parser.set_defaults(func=run)


def _plan_text(doc: dict[str, Any]) -> str:
    summary = doc["summary"]
    types = ", ".join(f"{n} {t}" for t, n in summary["by_type"].items()) or "none"
    lines = [f"{p['path']}\n  " + "; ".join(f"{k}: {_show(v)} ({p['why'][k]})"
                                            for k, v in p["values"].items())
             + "\n" + p["diff"] for p in doc["proposals"]]
    lines += [f"skipped {s['path']}: {s['reason']}" for s in doc["skipped"]]
    lines.append(
        f"{summary['proposed']} note(s) to adopt ({types}); {summary['new_frontmatter']} get a "
        f"new frontmatter block, {summary['with_nexus']} a nexus; {summary['skipped']} skipped, "
        f"{summary['already_adopted']} already adopted"
    )
    return "\n".join(lines)


def _show(value: Any) -> str:
    return "[" + ", ".join(map(str, value)) + "]" if isinstance(value, list) else str(value)


def _outcome_text(doc: dict[str, Any]) -> str:
    return "\n".join(f"refused {r['path']}: {r['reason']}" for r in doc["refused"])


def run(args: argparse.Namespace) -> int:
    vault = Path(args.vault).expanduser().resolve()
    if not vault.is_dir():
        raise BadRequest(f"{vault} is not a vault folder")
    config = make_config(vault, args.data)
    max_bytes = int(config.max_file_bytes)
    if args.undo:
        outcome = undo_adoption(vault)
        doc = outcome.to_json("restored")
        emit(args, doc, _outcome_text)
        log(f"restored {len(outcome.done)} note(s), refused {len(outcome.refused)} "
            f"({outcome.journal})")
        return 1 if outcome.refused else 0
    plan = plan_adoption(vault, max_bytes, data=config.data)
    doc = plan.to_json()
    if not args.apply:
        emit(args, doc, _plan_text)
        log("dry run: nothing written; run again with --apply to write it")
        return 0
    outcome = apply_adoption(vault, plan.proposals)
    doc |= outcome.to_json("applied")
    emit(args, doc, lambda d: _outcome_text(d))
    log(f"adopted {len(outcome.done)} note(s), refused {len(outcome.refused)}"
        + (f"; undo with `ora adopt {args.vault} --undo` ({outcome.journal})"
           if outcome.journal else ""))
    return 1 if outcome.refused else 0
