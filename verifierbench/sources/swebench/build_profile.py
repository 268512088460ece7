"""Where one instance's build time goes (wall seconds per stage, and each case run's), said in one line."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, Iterator, TypeVar

from verifierbench.sources.swebench import runcache

T = TypeVar("T")


class BuildProfile:
    """The stages' and case runs' wall times of one instance's build, and the run cache's use meanwhile."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.runs: list[float] = []
        self._lock = threading.Lock()
        self._cache_before = dict(runcache.stats)  # instances build one at a time: the difference is this one's

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Times the block under `name`.

        Args:
            name: the stage (checkout, environment, gold, empty, cases, case_runs, C1).
        """
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - started

    def timed(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """`fn(*args, **kwargs)`, its wall time kept as one case run (called from several threads).

        Args:
            fn: the call timed (a reference decision).

        Returns:
            What `fn` returns.
        """
        started = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            with self._lock:
                self.runs.append(time.monotonic() - started)

    def line(self) -> str:
        """The profile in one line: the stages, the case runs' sum, median and maximum, the run cache's use."""
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())
        runs = sorted(self.runs)
        hits, misses = (runcache.stats[k] - self._cache_before[k] for k in ("hits", "misses"))
        cache = f"; run cache: {hits} reused, {misses} run" if hits or misses else ""
        if not runs:
            return stages + cache
        return (f"{stages}; {len(runs)} case runs: sum {sum(runs):.0f} s, median {runs[len(runs) // 2]:.1f} s, "
                f"max {runs[-1]:.1f} s{cache}")
