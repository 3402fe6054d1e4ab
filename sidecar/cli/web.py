"""`ora web classify FILE.json [--vault VAULT] [--json]`: tier external web results.
`ora web save URL --vault VAULT [--title T] [--text T] [--json]`: save a page as a web note.

FILE.json holds `{"results": [{"url", "title", "text"}, …]}` (or just the list); `-` reads stdin.
The registry is the note `Registry — Trusted Web Sources` of VAULT (none without --vault).
`save` fetches the page (unless --text is given) and writes it as a new `type: web` note in the
vault's web folder; run `ora index VAULT` (or let `ora serve` see it) to make it searchable.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from sidecar.cli.common import add_json_arg, config_from_args, emit
from sidecar.errors import BadRequest
from sidecar.models.choice import load_embedder
from sidecar.settings import make_config
from sidecar.web import Registry, classify, load_registry
from sidecar.web.save import Page, cleaned, fetch_page, save_page


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("web", help="the external web tier", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    cls = actions.add_parser("classify", help="tier and weight web results",
                             description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    cls.add_argument("file", metavar="FILE.json", help="the results ('-' for stdin)")
    cls.add_argument("--vault", metavar="VAULT", help="vault whose registry note to apply")
    add_json_arg(cls)
    cls.set_defaults(func=run)
    save = actions.add_parser("save", help="save a web page as a `type: web` note",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    save.add_argument("url", metavar="URL", help="the page to save")
    save.add_argument("--vault", metavar="VAULT", required=True, help="the vault to save into")
    save.add_argument("--title", help="the note's title (default: the page's)")
    save.add_argument("--text", help="the text to save instead of fetching the page")
    add_json_arg(save)
    save.set_defaults(func=run_save)


def _read(name: str) -> Any:
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        doc = json.loads(text)
    except (OSError, ValueError) as exc:
        raise BadRequest(f"cannot read results from {name}: {exc}") from exc
    return doc.get("results") if isinstance(doc, dict) else doc


def run(args: argparse.Namespace) -> int:
    results = _read(args.file)
    config = make_config(args.vault or Path.cwd())
    registry = load_registry(config.vault, int(config.max_file_bytes)) if args.vault else Registry()
    emit(args, classify(results, registry, load_embedder(config)), _human)
    return 0


def run_save(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.text is not None:
        page = Page(args.url, args.title or "", args.text)
    else:
        fetched = asyncio.run(fetch_page(config, args.url))
        page = Page(fetched.url, args.title or fetched.title, fetched.text)
    path = save_page(config, page)
    shown = cleaned(page)  # as the note has it: never the URL's password
    emit(args, {"path": path, "url": shown.url, "title": shown.title},
         lambda d: f"saved {d['url']} as {d['path']}")
    return 0


def _human(doc: dict[str, Any]) -> str:
    rows = [f"{r['weight']:.2f}  {r['tier']:<12} {r['url']}  ({r['reason']})"
            for r in doc["results"]]
    rows += [f"removed       excluded     {r['url']}  ({r['reason']})" for r in doc["excluded"]]
    return "\n".join(rows)
