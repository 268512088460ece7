"""Which suite an eval and every CLI command use: the one resolver.

In order: an explicit directory, `$VERIFIERBENCH_SUITE`, the suite the logs were scored on (commands that read logs),
`./tasks/suite`, or one built from the installed packages into the user cache (the embedded default). Logs record the
suite's absolute path and content hash (task metadata `suite_dir`, `suite_hash`), so a command run later from another
directory finds the same suite, and a suite rebuilt with other content is named rather than silently used."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import logging
import os
import sys
from pathlib import Path

from verifierbench import __version__

from verifierbench.core import safe_fs
from verifierbench.suite.build import build_suite
from verifierbench.core.errors import UserError
from verifierbench.sources import registry
from verifierbench.suite.store import MANIFEST, Suite, load_suite

logger = logging.getLogger(__name__)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    # The source list is in the name: a default built before a source was added is not reused.
    sources = hashlib.sha256(",".join(registry.NAMES).encode()).hexdigest()[:8]
    return Path(base) / "verifierbench" / f"suite-{__version__}-{sources}"


def resolve_suite_dir(suite: str | Path | None = None, logged: Path | None = None) -> Path:
    """The suite directory, absolute.

    Args:
        suite: the directory the user gave (`-T suite=`, `--suite`); unset, the rest of the order applies.
        logged: the suite the logs at hand were scored on (`logged_suite`), when it still exists.
    """
    if suite:
        return Path(suite).expanduser().absolute()
    if os.environ.get("VERIFIERBENCH_SUITE"):
        return Path(os.environ["VERIFIERBENCH_SUITE"]).expanduser().absolute()
    if logged is not None and (logged / MANIFEST).exists():
        return logged
    local = Path("tasks/suite")
    return local.absolute() if (local / MANIFEST).exists() else cache_dir()


def logged_suite(log_dir: str | Path) -> tuple[Path | None, str | None]:
    """(directory, content hash) of the suite the logs under log_dir were scored on, from their headers; (None, None)
    for logs older than these fields or logs that disagree (then the user names the suite)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    seen: set[tuple[str, str]] = set()
    for info in list_eval_logs(str(log_dir), recursive=True):
        try:
            meta = read_eval_log(info, header_only=True).eval.metadata or {}
        except Exception:  # noqa: BLE001 - a corrupt log is reported by the command that reads it whole
            continue
        if isinstance(meta.get("suite_dir"), str) and os.path.isabs(meta["suite_dir"]):
            seen.add((meta["suite_dir"], str(meta.get("suite_hash") or "")))
    if len(seen) != 1:
        return None, None
    (directory, digest), = seen
    return Path(directory), digest or None


def open_logged_suite(suite: str | None, log_dir: str | Path) -> tuple[Path, Suite]:
    """The suite for a command reading logs: the given one, else the logs' own (checked against their content hash)."""
    from verifierbench.core.errors import UserError

    logged, digest = logged_suite(log_dir) if not suite else (None, None)
    directory, loaded = open_suite(suite, logged)
    if digest is not None and not suite and loaded.content_hash() != digest:
        raise UserError(f"{directory}: not the suite these logs were scored on (content hash {loaded.content_hash()[:19]}, "
                        f"logs {digest[:19]}); pass --suite")
    return directory, loaded


@functools.lru_cache(maxsize=4)
def _load(directory: str, mtime_ns: int) -> Suite:
    return load_suite(directory)


def open_suite(suite: str | Path | None = None, logged: Path | None = None) -> tuple[Path, Suite]:
    """Loads the suite (cached per process); builds the default one first when none exists yet."""
    directory = resolve_suite_dir(suite, logged)
    if directory == cache_dir():
        _trusted_cache(directory, create=False)
        if not (directory / MANIFEST).exists():
            _build_default(directory)
    manifest = directory / MANIFEST
    return directory, _load(str(directory.resolve()), manifest.stat().st_mtime_ns if manifest.exists() else 0)


def _trusted_cache(directory: Path, create: bool) -> None:
    """The default suite's cache must be ours (or root's) and writable by no one else along its whole path
    (safe_fs.trusted_store): a suite planted there would be judged as ours."""
    try:
        safe_fs.trusted_store(directory.parent, create=create)
    except FileNotFoundError:
        pass
    except safe_fs.UntrustedStore as exc:
        raise UserError(f"suite cache: {exc}; set VERIFIERBENCH_SUITE or XDG_CACHE_HOME to a directory of yours") from None


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _build_default(directory: Path) -> None:
    _trusted_cache(directory, create=True)
    # concurrent evals build it once; the lock is never opened through a link
    with os.fdopen(safe_fs.open_store_file(directory.parent, ".build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (directory / MANIFEST).exists():
            # Progress for the user, not a warning: plain lines on stderr (Inspect's display has not started yet).
            say(f"verifierbench: no suite found: building the default suite from the installed packages into {directory}")
            # Code tasks take hours to build (each instance's tests run per case): build them explicitly.
            build_suite(directory, sources=registry.built_by_default(), say=say)
            logger.info("built the default suite in %s", directory)
