"""`ora lint VAULT|FILE [--json] [--fix] [--data DIR]`: check notes' frontmatter against the schema.

Exit status 1 when any error remains or a note could not be fixed (each is named on stderr).
`--fix` fills absent linter-managed dates and updates a stale `date modified` (the only
automatic fix) and lints again; a note it cannot fix (read-only, YAML the editor refuses) is
reported and skipped.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from sidecar.cli.common import add_json_arg, emit, log
from sidecar.errors import BadRequest, OraError
from sidecar.lint.diagnostics import Diagnostic, LintContext, fix_dates, lint_file, lint_vault
from sidecar.settings import Config, make_config
from sidecar.vault.scan import is_ignored
from sidecar.vault.vault_settings import settings_path

_FIXABLE = {"date-missing", "date-invalid", "date-modified-stale"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lint", help="check every note's frontmatter", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="VAULT|FILE", help="a vault folder or one note in it")
    # The index's folder keeps the vault settings a missing ora.yaml last said (DESIGN: every
    # subcommand takes --data).
    parser.add_argument("--data", metavar="DIR", help="index folder (default VAULT/.ora)")
    add_json_arg(parser)
    parser.add_argument("--fix", action="store_true",
                        help="fill absent `date created` / `date modified` and update a stale "
                        "`date modified`")
    parser.set_defaults(func=run)


def _is_vault_root(folder: Path) -> bool:
    """Obsidian's settings folder, Ora's index folder or Ora's vault settings mark a vault."""
    return ((folder / ".obsidian").is_dir() or make_config(folder).data.is_dir()
            or settings_path(folder).is_file())


def _vault_of(target: Path) -> tuple[Path, list[str] | None]:
    """(vault folder, [the one note] or None for all) for a folder or a file argument."""
    if target.is_dir():
        return target, None
    if not target.is_file():
        raise BadRequest(f"{target} is neither a vault folder nor a note file")
    root = next((p for p in target.parents if _is_vault_root(p)), target.parent)
    rel = target.relative_to(root).as_posix()
    if is_ignored(rel):
        raise BadRequest(f"{rel} is not a note (notes are .md files outside dot-folders)")
    return root, [rel]


def _lint(config: Config, only: list[str] | None) -> list[Diagnostic]:
    vault, max_bytes = config.vault, int(config.max_file_bytes)
    if only is None:
        return lint_vault(vault, max_bytes, data=config.data)
    ctx = LintContext.for_vault(vault, None, max_bytes, data=config.data)
    return [d for rel in only for d in lint_file(vault, rel, ctx, max_bytes)]


def _human(payload: dict[str, Any]) -> str:
    return "\n".join(
        f"{d['path']}:{d['line']}: {d['severity']} {d['code']} {d['message']}"
        for d in payload["diagnostics"]
    )


def _fix(vault: Path, paths: list[str], max_bytes: int) -> tuple[list[str], list[str]]:
    """Fill dates note by note: (fixed, refused); a refusal is reported by name and skipped."""
    fixed: list[str] = []
    refused: list[str] = []
    for rel in paths:
        try:
            if fix_dates(vault, rel, max_bytes):
                fixed.append(rel)
                log(f"filled dates in {rel}")
        except OraError as err:
            refused.append(rel)
            log(f"cannot fix {rel}: {err.message}")
        except OSError as err:
            refused.append(rel)
            log(f"cannot fix {rel}: {err.strerror or err}")
    return fixed, refused


def run(args: argparse.Namespace) -> int:
    # absolute but not resolved: a note reached through a linked folder stays outside the vault
    vault, only = _vault_of(Path(os.path.abspath(Path(args.target).expanduser())))
    config = make_config(vault, args.data)
    max_bytes = int(config.max_file_bytes)
    found = _lint(config, only)
    refused: list[str] = []
    if args.fix:
        fixed, refused = _fix(vault, sorted({d.path for d in found if d.code in _FIXABLE}),
                              max_bytes)
        if fixed:
            found = _lint(config, only)
    errors = sum(d.severity == "error" for d in found)
    hints = sum(d.severity == "info" for d in found)
    emit(args, {"diagnostics": [d.to_json() for d in found]}, _human)
    log(f"{errors} error(s), {len(found) - errors - hints} warning(s), {hints} hint(s) in "
        f"{len({d.path for d in found})} file(s)")
    return 1 if errors or refused else 0
