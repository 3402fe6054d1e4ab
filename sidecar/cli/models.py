"""`ora models`: which models are installed and chosen; `ora models build` builds the fp32
embedder, its int8 quantisation and the multilingual embedder; `ora models pull NAME` downloads
a catalogue model from the Hugging Face hub."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from sidecar.cleaning import judge_status
from sidecar.cli.common import add_json_arg, emit, log
from sidecar.models.build import build_embedders, build_lock
from sidecar.models.catalogue import catalogue, entry, pull
from sidecar.models.report import models_report
from sidecar.settings import Config, make_config

# How often the bar of the file in transfer is redrawn, and after how long without bytes it says
# the transfer is stalled (the hub client waits up to schema/models.json hub.read_timeout, 60 s,
# before it asks again).
_REDRAW_S = 1.0
_STALLED_S = 5.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "models", help="show the models in use; `ora models build` builds the embedders",
        description=__doc__,
    )
    add_json_arg(parser)
    parser.set_defaults(func=run_report)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    build = actions.add_parser(
        "build", help="build the fp32 embedder from the packaged safetensors (no torch), its "
                 "int8 quantisation (q8) and the multilingual embedder (use-multilingual-v3)"
    )
    build.add_argument("--force", action="store_true", help="rebuild even if up to date")
    # SUPPRESS keeps `ora models --json build` working: the sub-parser's default would reset it.
    build.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print one JSON document on stdout")
    build.set_defaults(func=run_build)
    names = ", ".join(catalogue())
    pulling = actions.add_parser(
        "pull", help=f"download a model from the Hugging Face hub ({names})",
        description="Download NAME's files (resumable, checksum-verified) and install them where "
                    "Ora looks for them; ORA_HF_ENDPOINT names a mirror.",
    )
    pulling.add_argument("name", metavar="NAME", help=f"a catalogue model: {names}")
    pulling.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print one JSON document on stdout")
    pulling.set_defaults(func=run_pull)


def _config() -> Config:
    # Models are per machine (models_dir), not per vault: any vault path will do.
    return make_config(Path.cwd())


def run_report(args: argparse.Namespace) -> int:
    config = _config()
    emit(args, {**models_report(config, vault=False), "judges": judge_status(config)}, render)
    return 0


def run_build(args: argparse.Namespace) -> int:
    config = _config()
    with build_lock(config.models_path, log):
        log(f"building the fp32, q8 and multilingual embedders into {config.models_path} …")
        built = build_embedders(config.models_path, force=args.force)
    emit(args, built, _render_build)
    return 0


class _Bars:
    """One progress bar per file on stderr. tqdm draws an update at most every 0.1 s, so the
    bytes that arrived just before a hub went silent were never drawn (a half-received file
    stayed at 0%): `tick`, every _REDRAW_S while pulling, redraws the file in transfer, and
    says it is stalled once nothing arrived for _STALLED_S."""

    def __init__(self, file: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._bars: dict[str, Any] = {}
        self._file = file if file is not None else sys.stderr
        self._clock = clock
        self._current: str | None = None  # the file that got bytes last
        self._since = 0.0  # when it did

    def __call__(self, name: str, done: int, total: int | None) -> None:
        from tqdm import tqdm

        bar = self._bars.get(name)
        if bar is None:
            bar = self._bars[name] = tqdm(total=total, desc=name, unit="B", unit_scale=True,
                                          unit_divisor=1024, file=self._file, leave=False)
        self._current, self._since = name, self._clock()
        bar.set_postfix_str("", refresh=False)
        bar.update(done - bar.n)

    def tick(self) -> None:
        bar = self._bars.get(self._current) if self._current else None
        if bar is None or (bar.total is not None and bar.n >= bar.total):
            return
        quiet = self._clock() - self._since
        bar.set_postfix_str(f"stalled: nothing received for {int(quiet)} s"
                            if quiet >= _STALLED_S else "", refresh=False)
        bar.refresh()

    async def ticking(self) -> None:
        while True:
            await asyncio.sleep(_REDRAW_S)
            self.tick()

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()


async def _pull_drawn(config: Config, name: str, bars: _Bars) -> dict[str, Any]:
    ticker = asyncio.create_task(bars.ticking())
    try:
        return await pull(config, name, bars)
    finally:
        ticker.cancel()


def run_pull(args: argparse.Namespace) -> int:
    config = _config()
    entry(args.name)  # an unknown name is refused before anything says it is being pulled
    log(f"pulling {args.name} from {config.hf_endpoint} into {config.models_path} …")
    bars = _Bars()
    try:
        result = asyncio.run(_pull_drawn(config, args.name, bars))
    finally:
        bars.close()
    emit(args, result, _render_pull)
    return 0


def _render_pull(result: dict[str, Any]) -> str:
    line = f"{result['name']} ({result['repo']}) installed in {result['folder']}"
    if result["kind"] == "embedder":
        line += f"\n  use it with ORA_EMBED_MODEL={result['name']} (the index re-embeds)"
    return line


def _render_build(result: dict[str, Any]) -> str:
    def line(name: str, built: dict[str, Any]) -> str:
        verb = "built" if built["built"] else "up to date (same source), kept"
        return f"{name} embedder {verb}: {built['path']}"

    return "\n".join([line("fp32", result), line("q8", result["q8"]),
                      line("multilingual", result["multilingual"])])


def _status(entry: dict[str, Any]) -> str:
    if entry["available"]:
        return f"{entry['name']} ({entry['folder']})"
    return f"not installed: {entry['reason']}\n    {entry['instructions']}"


def _multilingual_line(emb: dict[str, Any]) -> str:
    """Whether the packaged multilingual embedder is built, and how to use it."""
    name = emb["multilingual"]["name"]
    if emb["chosen"] == name:
        state = "built, in use"
    elif emb["multilingual"]["available"]:
        state = f"built; use it with ORA_EMBED_MODEL={name} (the index re-embeds)"
    else:
        state = f"not built; build it with `ora models build`, then set ORA_EMBED_MODEL={name}"
    return f"multilingual embedder {name}: {state}"


def render(report: dict[str, Any]) -> str:
    emb = report["embedder"]
    lines = [f"models dir: {report['models_dir']}",
             f"embedder: setting {emb['setting']}, available {', '.join(emb['available'])}"]
    if emb["chosen"]:
        lines.append(f"  using {emb['model_id']} ({emb['file']})")
    else:
        lines.append(f"  none usable: {emb['reason']}")
    if "q8" not in emb["available"]:
        lines.append("  build the fp32 and q8 variants with: ora models build")
    lines.append(_multilingual_line(emb))
    rr = report["reranker"]
    cohere = f"Cohere {rr['cohere_model']}, then " if rr["cohere"] else ""
    lines.append(f"reranker: {cohere}local {_status(rr)}")
    lines.append(f"nli: {_status(report['nli'])}")
    judge = report["llm_judge"]
    lines.append("llm judge: " + (f"{judge['url']} ({judge['model'] or 'default model'})"
                                  if judge["configured"] else "not configured (set ORA_LLM_URL)"))
    for row in report["catalogue"]:
        size = f" (about {row['download_mb']} MB)" if row["download_mb"] else ""
        state = "installed" if row["installed"] else f"ora models pull {row['name']}{size}"
        lines.append(f"pullable {row['kind']} {row['name']} ({row['repo']}): {state}")
    for row in report.get("judges", []):
        mark = "*" if row["selected"] else ("+" if row["available"] else "-")
        lines.append(f"contradiction judge {mark} {row['name']}: {row['reason']}")
    for row in report.get("endpoints", []):
        lines.append(f"endpoint {row['service']} {row['url']}: receives {row['receives']}; "
                     f"private text: {row['private']}")
    return "\n".join(lines)
