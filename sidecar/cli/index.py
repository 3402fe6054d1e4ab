"""`ora index VAULT [--rebuild] [--json] [--data DIR] [--chroma-url URL] [--namespace NS]`."""

from __future__ import annotations

import argparse
from typing import Any

from sidecar.cli.common import add_vault_args, config_from_args, emit, log
from sidecar.index import open_index
from sidecar.index.language_offer import chosen_by_auto, language_offer
from sidecar.index.progress import StderrProgress
from sidecar.index.reembed import describe
from sidecar.index_params import load_params
from sidecar.models import multilingual
from sidecar.models.build import ensure_embedders


def add_store_args(parser: argparse.ArgumentParser) -> None:
    """`--chroma-url` and `--namespace`, shared by the commands that open the index."""
    parser.add_argument("--chroma-url", metavar="URL", help="use a Chroma server (`chroma run`)")
    parser.add_argument("--namespace", metavar="NS", help="collection namespace (default: default)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "index", help="bring the index in line with the vault",
        description="Bring the index (VAULT/.ora unless --data) in line with the vault: notes "
        "and documents added or changed since the last run are embedded, removed ones dropped. "
        "With --rebuild the index is dropped and made anew.",
    )
    add_vault_args(parser)
    add_store_args(parser)
    parser.add_argument("--rebuild", action="store_true", help="drop the index and index anew")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args, chroma_url=args.chroma_url, namespace=args.namespace)
    ensure_embedders(config, log)
    new = config.namespace not in load_params(config.data)["namespaces"]
    with open_index(config) as index:
        if index.reembedding:
            log(describe(index.reembedding))
        elif new and str(load_params(config.data)["namespaces"].get(config.namespace, {}).get(
                "model", "")).startswith(f"{multilingual.NAME}:"):
            log(f"most notes are not in English: embedding them with {multilingual.NAME} "
                f"({multilingual.spec()['about']})")
        progress = StderrProgress()
        result = index.rebuild(progress) if args.rebuild else index.reconcile(progress)
        result.update(language_offer(index))
        problems = index.vault_settings.problems
    for problem in problems:  # what of ora.yaml could not be used, and what was used instead
        log(problem)
    if result["suggestion"] and chosen_by_auto(config):  # not of an embedder set on purpose
        log(result["suggestion"]["message"])
    emit(args, result, _human)
    return 0


def _human(result: dict[str, Any]) -> str:
    lines = [
        f"{result['files']} files, {result['chunks']} chunks: embedded {result['embedded']}, "
        f"removed {result['removed']} in {result['seconds']:.1f} s"
    ]
    for err in result["errors"]:  # each message says what became of its file
        lines.append(f"  {err['path']}: {err['message']}")
    return "\n".join(lines)
