"""Options shared by commands that run untrusted code."""

from __future__ import annotations

import argparse
import math
import os
import stat
from dataclasses import asdict
from pathlib import Path

from verifierbench.cluster.backend import BACKEND_ENV, BACKENDS, RAY_ADDRESS_ENV, Backend, ExecutorConfig
from verifierbench.cluster.factory import make_backend
from verifierbench.core.errors import UserError
from verifierbench.executor import Executor, Limits
from verifierbench.executor.isolation import ALLOW_ENV
from verifierbench.executor.scheduler import COLD_ENV

# Upper bounds: past them a value is a typo, and the OS calls behind them overflow or the slot set never ends.
MAX_TIMEOUT_S = 7 * 86400
MAX_SLOTS = 1024

# Where `verifierbench build` writes unless told. Every command that reads a suite resolves it as `inspect eval` does
# (suite/resolver.py).
DEFAULT_SUITE = os.environ.get("VERIFIERBENCH_SUITE", "tasks/suite")
SUITE_HELP = ("suite directory (default: $VERIFIERBENCH_SUITE, else the suite the logs were scored on where the command reads logs, else ./tasks/suite, else the default suite in ~/.cache/verifierbench, built on first use, as `inspect eval` does)")


def add_suite_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", default=None, metavar="DIR", help=SUITE_HELP)


def add_executor_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("sandbox")
    g.add_argument("--timeout", type=_positive(float, MAX_TIMEOUT_S), default=Limits.timeout_s, metavar="S", help="wall-clock limit per case (default %(default)s)")
    g.add_argument("--memory-mb", type=_positive(int), default=Limits.memory_bytes >> 20, metavar="MB", help="address-space limit (default %(default)s)")
    g.add_argument("--max-processes", type=_positive(int), default=Limits.max_processes, metavar="N", help="process limit per run (default %(default)s)")
    g.add_argument("--slots", type=_positive(int, MAX_SLOTS), default=None, metavar="N", help="parallel runs (default: CPU count)")
    g.add_argument("--isolation", choices=("auto", "bwrap", "none"), default="auto", help="auto uses bubblewrap and refuses without it")
    g.add_argument("--reference-libs", action="store_true",
                   help="mount verifierbench and the sources' checkers (with their dependencies) read-only in the sandbox, and preload them in warm sandboxes (for exported reference verifiers only)")
    g.add_argument("--cold", action="store_true",
                   help=f"a fresh sandbox per case (the path before warm sandboxes) instead of warm sandboxes forking a process per case (also {COLD_ENV}=1)")
    g.add_argument("--allow-unsandboxed", action="store_true", help=f"run untrusted code without isolation if none is available (also {ALLOW_ENV}=1)")


def judge_libraries(reference_libs: bool) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """(libraries, site-packages) `judge` mounts: the public helpers (vgb_env) for every verifier, as in the eval; with
    --reference-libs also the packages exported reference verifiers import."""
    from verifierbench.sandboxes import VGB_ENV

    libraries: tuple[tuple[str, str], ...] = ((str(VGB_ENV), "vgb_env"),)
    if not reference_libs:
        return libraries, ()
    from verifierbench.suite.export import reference_libraries, reference_site_packages

    return libraries + reference_libraries(), reference_site_packages()


def add_backend_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("judging backend (docs/cluster.md)")
    g.add_argument("--backend", choices=BACKENDS, default=None,
                   help=f"where hidden cases run: local (this machine, the default) or ray (also {BACKEND_ENV})")
    g.add_argument("--ray-address", metavar="HOST:PORT", default=None, help=f"the Ray cluster for --backend ray (also {RAY_ADDRESS_ENV})")


def executor_from(args: argparse.Namespace) -> Executor:
    """The local executor the options describe."""
    return executor_config(args).make()


def backend_from(args: argparse.Namespace, suite_dir: str) -> Backend:
    """Where the options say hidden cases run: the local executor, or (--backend ray) the cluster."""
    return make_backend(executor_config(args), args.backend, args.ray_address, suite_dir)


def executor_config(args: argparse.Namespace) -> ExecutorConfig:
    limits = Limits(timeout_s=args.timeout, memory_bytes=args.memory_mb << 20, max_processes=args.max_processes)
    libraries, site_packages = judge_libraries(getattr(args, "reference_libs", False))
    return ExecutorConfig(limits=asdict(limits), isolation=args.isolation, allow_unsandboxed=args.allow_unsandboxed,
                          slots=args.slots, libraries=libraries, site_packages=site_packages,
                          warm=False if getattr(args, "cold", False) else None,
                          trusted_preload=getattr(args, "reference_libs", False))


def _positive(kind, most: float | None = None):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value):  # nan passes every comparison below
            raise argparse.ArgumentTypeError(f"must be a finite number: {text!r}")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:g}: {text!r}")
        return value

    return parse


def output_file(value: str, option: str) -> Path:
    """A file the command appends to: a regular file if it exists, else one its directory can hold."""
    path = Path(value)
    try:
        if path.exists() or path.is_symlink():
            if not stat.S_ISREG(path.stat().st_mode):
                raise UserError(f"{option} {value}: not a regular file")
            if not os.access(path, os.R_OK | os.W_OK):
                raise UserError(f"{option} {value}: not writable")
    except OSError as exc:
        raise UserError(f"{option} {value}: {exc.strerror}") from None
    _writable_ancestor(path.parent, value, option)  # --resume rewrites the file through a sibling
    return path


def output_dir(value: str, option: str) -> Path:
    """A directory the command writes into: an existing writable one, or one that can be made."""
    path = Path(value)
    _writable_ancestor(path, value, option)
    return path


def _writable_ancestor(path: Path, value: str, option: str) -> None:
    # The nearest existing ancestor decides: it must be a directory we may write in (mkdir -p does the rest).
    try:
        while not path.exists() and path != path.parent:
            path = path.parent
        if not path.is_dir():
            raise UserError(f"{option} {value}: {path} is not a directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise UserError(f"{option} {value}: {path} is not writable")
    except OSError as exc:
        raise UserError(f"{option} {value}: {exc.strerror}") from None
