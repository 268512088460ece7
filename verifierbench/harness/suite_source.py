"""Which suite an eval uses: an explicit directory, `$VERIFIERBENCH_SUITE`, `./tasks/suite`, or
one built from the installed packages into the user cache (the embedded default)."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import logging
import os
from pathlib import Path

from verifierbench import __version__, safe_fs
from verifierbench.build import build_suite
from verifierbench.errors import UserError
from verifierbench.sources import registry
from verifierbench.suite import MANIFEST, Suite, load_suite

logger = logging.getLogger(__name__)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    # The source list is in the name: a default built before a source was added is not reused.
    sources = hashlib.sha256(",".join(registry.NAMES).encode()).hexdigest()[:8]
    return Path(base) / "verifierbench" / f"suite-{__version__}-{sources}"


def resolve_suite_dir(suite: str | None = None) -> Path:
    if suite:
        return Path(suite).expanduser()
    if os.environ.get("VERIFIERBENCH_SUITE"):
        return Path(os.environ["VERIFIERBENCH_SUITE"]).expanduser()
    local = Path("tasks/suite")
    return local if (local / MANIFEST).exists() else cache_dir()


@functools.lru_cache(maxsize=4)
def _load(directory: str, mtime_ns: int) -> Suite:
    return load_suite(directory)


def open_suite(suite: str | None = None) -> tuple[Path, Suite]:
    """Loads the suite (cached per process); builds the default one first when none exists yet."""
    directory = resolve_suite_dir(suite)
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


def _build_default(directory: Path) -> None:
    _trusted_cache(directory, create=True)
    # concurrent evals build it once; the lock is never opened through a link
    with os.fdopen(safe_fs.open_store_file(directory.parent, ".build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (directory / MANIFEST).exists():
            logger.warning("no suite found: building the default suite from the installed packages into %s", directory)
            # Code tasks take hours to build (each instance's tests run per case): build them explicitly.
            build_suite(directory, sources=registry.built_by_default(), say=logger.warning)
