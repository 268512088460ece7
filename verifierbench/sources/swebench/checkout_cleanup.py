"""Checkouts a build exported for instances it then excluded: they leave the suite, which carries its tasks' only."""

from __future__ import annotations

import shutil
from pathlib import Path


def checkouts_in(store: Path | None) -> set[str]:
    """The checkouts already in a build's own store.

    Args:
        store: the build's checkout store (None: the shared default store, never pruned).

    Returns:
        Their names (digests); empty when there is no such store yet.
    """
    if store is None or not store.is_dir():
        return set()
    return {p.name for p in store.iterdir() if not p.name.startswith(".")}


def drop_unused_checkouts(store: Path | None, before: set[str], used: set[str]) -> None:
    """A checkout this build exported for an instance it then excluded (an environment that cannot be made, a gold
    that does not resolve) is no task's: it leaves the suite, which carries its tasks' checkouts only.

    Args:
        store: the build's own checkout store (`<suite>/checkouts`); None leaves the shared store alone.
        before: the checkouts the store held before this build (kept: another build's).
        used: the checkouts of the retained tasks.
    """
    if store is None:
        return
    for name in checkouts_in(store) - before - used:
        shutil.rmtree(store / name, ignore_errors=True)
