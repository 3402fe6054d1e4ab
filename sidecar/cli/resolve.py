"""`ora resolve VAULT ID ACTION`: triage one queued pair (or approve a news batch).

    ora resolve VAULT ID changed-mind --newer PATH   newer supersedes the other, which is archived
    ora resolve VAULT ID flag                         keep for reflection; nothing is edited
    ora resolve VAULT ID wrong --note PATH [--delete] archive that note (or move it to .trash/)
    ora resolve VAULT ID dismiss                      not a contradiction; never shown again
    ora resolve VAULT BATCH approve-all               apply every news proposal of a batch
                                                      (BATCH `news` = all open news proposals)
    ora resolve VAULT last undo                       undo the last resolution (or batch): its
                                                      files back byte for byte, its pairs as
                                                      they were (again for the one before)

A pair involving a private note is found only with `--private`. Edits go through the round-trip
frontmatter writer and are refused when a file changed since the pair was judged; an undo is
refused when a file changed since the resolution. The index is updated at once, unless
`ora serve` holds it (its watcher will).
"""

from __future__ import annotations

import argparse
from typing import Any

from sidecar.cleaning import ACTIONS, Queue, approve_batch, resolve, undo_last
from sidecar.cli.common import add_vault_args, config_from_args, emit, log
from sidecar.errors import BadRequest, IndexLocked
from sidecar.index import open_index
from sidecar.index_params import params_path
from sidecar.settings import Config

APPROVE_ALL = "approve-all"
LAST, UNDO = "last", "undo"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "resolve", help="resolve a contradiction: changed-mind, flag, wrong, dismiss",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_vault_args(parser)
    parser.add_argument("id", metavar="ID",
                        help="pair id from `ora contradictions` (or batch, or `last`)")
    parser.add_argument("action", choices=[*ACTIONS, APPROVE_ALL, UNDO])
    parser.add_argument("--newer", metavar="PATH", help="changed-mind: the note that stands")
    parser.add_argument("--note", metavar="PATH", help="wrong: the note that is wrong")
    parser.add_argument("--delete", action="store_true",
                        help="wrong: move the note to VAULT/.trash/ instead of archiving it")
    parser.add_argument("--private", action="store_true",
                        help="private mode: pairs involving private notes too")
    parser.set_defaults(func=run)


def update_index(config: Config, changed: list[str]) -> None:
    """Re-index the edited notes now, so an archived note leaves default search at once."""
    if not changed or not params_path(config.data).exists():
        return
    try:
        with open_index(config) as index:
            index.apply_paths(changed)
    except IndexLocked:
        log("the index is held by `ora serve`; its watcher applies the change")


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if (args.action == UNDO) != (args.id == LAST):
        raise BadRequest(f"undo goes with `{LAST}`: ora resolve VAULT {LAST} {UNDO}")
    if args.delete and args.action != "wrong":
        raise BadRequest("--delete goes with `wrong`")
    queue = Queue(config.data, config.vault, max_bytes=int(config.max_file_bytes))
    payload: dict[str, Any]
    try:
        if args.action == UNDO:
            payload = undo_last(config, queue, private=args.private).as_json()
        elif args.action == APPROVE_ALL:
            done = approve_batch(config, queue, args.id, private=args.private)
            payload = {
                "pairs": [d.pair.as_json() for d in done],
                "changed": sorted({p for d in done for p in d.changed}),
            }
        else:
            one = resolve(config, queue, args.id, args.action, newer=args.newer,
                          note=args.note, delete=args.delete, private=args.private)
            payload = one.as_json()
    finally:
        queue.close()
    update_index(config, payload["changed"])
    emit(args, payload, _human)
    return 0


def _human(payload: dict[str, Any]) -> str:
    pairs = payload.get("pairs") or [payload["pair"]]
    lines = [f"{p['id']}: {p['status']}" for p in pairs]
    lines += [f"  wrote {path}" for path in payload["changed"]]
    return "\n".join(lines)
