"""`verifierbench build [--out DIR] [--seed N] [--source S]`: construct the suite from the installed sources."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from verifierbench.suite.build import SOURCES, SourcePaths, build_suite
from verifierbench.sources import registry
from verifierbench.sources.base import BuildOption
from verifierbench.cli.options import DEFAULT_SUITE, output_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "build", help="construct the suite (tasks, hidden cases, screening record) from the upstream sources",
        description="Deterministic for a given seed and upstream data: two builds give identical manifests. "
        "A source whose data is missing is reported in one line and skipped.",
    )
    p.add_argument("--out", default=DEFAULT_SUITE, metavar="DIR", help=f"suite directory to write (default {DEFAULT_SUITE})")
    p.add_argument("--seed", type=int, default=0, help="selection and generation seed (default 0)")
    p.add_argument("--source", action="append", dest="sources", choices=SOURCES,
                   help="only this source; repeatable (default: all but swebench, which is built only when named)")
    for option in _source_options():  # where each source's data is, as the source declares it
        p.add_argument(f"--{option.flag}", metavar=option.metavar, help=option.help)
    p.set_defaults(handler=run)


def _source_options() -> list[BuildOption]:
    return [option for name in SOURCES for option in registry.source(name).build_options]


def run(args: argparse.Namespace) -> int:
    output_dir(args.out, "--out")
    started = time.perf_counter()
    paths = SourcePaths({option.dest: getattr(args, option.dest) for option in _source_options()})
    if sys.stdout.isatty():  # a bar over the sources with the one being built; plain lines otherwise (logs, CI)
        with Progress(SpinnerColumn(), TextColumn("build {task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), transient=True) as progress:
            bar = progress.add_task("", total=None)

            def starting(name: str, position: int, total: int) -> None:
                progress.update(bar, description=name, completed=position - 1, total=total)

            result = build_suite(Path(args.out), seed=args.seed, sources=args.sources, paths=paths,
                                 say=progress.console.print, starting=starting)
    else:
        result = build_suite(Path(args.out), seed=args.seed, sources=args.sources, paths=paths,
                             say=lambda line: print(line, flush=True))
    suite = result.suite
    print(f"build: wrote {args.out}: {len(suite.tasks)} tasks, {len(suite.cases)} cases, "
          f"{len(result.excluded)} tasks excluded (see {args.out}/screening.json) in {time.perf_counter() - started:.1f} s")
    return 0
