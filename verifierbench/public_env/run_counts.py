"""What run_public requests ran in worker processes (a code task's test runs made and reused), added up here in the
harness by scope (a source's name for one task's counts: `Source.run_counts_scope`): the hidden-case scorer reads a
sample's share as the difference around its judging."""

from __future__ import annotations

import threading
from collections import Counter

_lock = threading.Lock()
_tallies: dict[str, Counter[str]] = {}


def add(reported: dict[str, dict[str, int]]) -> None:
    """Counts a worker made (by scope), added to this process's."""
    with _lock:
        for scope, counts in reported.items():
            tally = _tallies.setdefault(scope, Counter())
            for what, count in counts.items():
                tally[what] += int(count)  # a zero too: the name is then known to tally()


def tally(scope: str) -> dict[str, int]:
    """This process's counts for `scope` so far (a copy; every name a worker reported, zeros included)."""
    with _lock:
        return dict(_tallies.get(scope, Counter()))
