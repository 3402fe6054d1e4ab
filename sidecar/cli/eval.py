"""`ora eval`: nDCG@10 and Recall@100 of each retrieval mode on a BEIR-format data set."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from sidecar.cli.common import add_json_arg, emit, log
from sidecar.models.choice import load_embedder
from sidecar.models.reranker import build_reranker
from sidecar.retrieval.beir import load_corpus, load_qrels, load_queries
from sidecar.retrieval.evaluate import MODES, evaluate
from sidecar.retrieval.fusion import fusion_settings
from sidecar.retrieval.vector_cache import default_cache_dir
from sidecar.settings import make_config


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval", help="retrieval quality on a BEIR data set", description=__doc__
    )
    parser.add_argument("--corpus", required=True, type=Path, help="corpus.jsonl")
    parser.add_argument("--queries", required=True, type=Path, help="queries.jsonl")
    parser.add_argument("--qrels", required=True, type=Path, help="qrels TSV (e.g. test.tsv)")
    parser.add_argument(
        "--mode", choices=[*MODES, "all"], default="all", help="which mode to score (default all)"
    )
    parser.add_argument(
        "--cache", type=Path, default=None,
        help=f"corpus vector cache (default {_home_relative(default_cache_dir())})",
    )
    parser.add_argument("--no-rerank", action="store_true", help="score `default` unre-ranked")
    add_json_arg(parser)
    parser.set_defaults(func=run)


def _home_relative(path: Path) -> str:
    """`path` with the home folder written `~`, so --help shows what the user would type."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="ora-eval-config-") as scratch:
        # No vault here: the config only carries the model and re-ranker settings.
        config = make_config(scratch, data=Path(scratch) / "data")
        modes = list(MODES) if args.mode == "all" else [args.mode]
        reranker, reason = (None, "") if args.no_rerank else build_reranker(config)
        if "default" in modes:
            log(f"re-ranker: {reranker.name if reranker else 'none'} ({reason or 'turned off'})")
        docs = load_corpus(args.corpus)
        queries = load_queries(args.queries)
        qrels = load_qrels(args.qrels)
        result = evaluate(
            docs, queries, qrels, load_embedder(config),
            modes=modes, fusion=fusion_settings(), cache=args.cache or default_cache_dir(),
            reranker=reranker, log=log,
        )
    emit(args, result, render)
    return 0


def render(result: dict[str, Any]) -> str:
    lines = [
        f"{result['queries']} queries over {result['documents']} documents "
        f"· embedder {result['embedder']} · re-rank {result['rerank'] or '-'}",
        f"{'mode':<8} {'nDCG@10':>8} {'R@100':>8}",
    ]
    for mode, scores in result["modes"].items():
        lines.append(f"{mode:<8} {scores['ndcg@10']:>8.4f} {scores['recall@100']:>8.4f}")
    return "\n".join(lines)
