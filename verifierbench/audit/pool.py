"""The witness pool on disk: one JSONL file per task, shared by every audit of that task (testjack §3.3,
cross-trial witness sharing). Appends are locked, so concurrent samples and processes can share a pool;
a torn last line (a crash mid-write) is skipped on read; witnesses of an older task version are ignored."""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from verifierbench.core import safe_fs
from verifierbench.audit.witness import Witness
from verifierbench.core.errors import UserError

ENV = "VERIFIERBENCH_WITNESS_POOL"


def default_root() -> Path:
    return Path(os.environ.get(ENV) or Path.home() / ".cache" / "verifierbench" / "witnesses")


class WitnessPool:
    def __init__(self, root: str | Path | None, suite_version: str) -> None:
        self.directory = Path(root or default_root()).expanduser() / suite_version

    def path(self, task_id: str) -> Path:
        return self.directory / f"{task_id}.jsonl"

    def _trusted(self, create: bool) -> None:
        """The pool must be ours (or root's) and writable by no one else along its whole path, and each file ours
        (safe_fs.trusted_store): witnesses planted by another user would steer every audit that reads them."""
        try:
            safe_fs.trusted_store(self.directory, create=create)
        except safe_fs.UntrustedStore as exc:
            raise UserError(f"witness pool: {exc}; set ${ENV} or --pool to a directory of yours") from None

    def _entry(self, name: str) -> bool:
        try:
            return safe_fs.trusted_entry(self.directory, name) is not None
        except safe_fs.UntrustedStore as exc:
            raise UserError(f"witness pool: {exc}") from None

    def load(self, task_id: str, task_hash: str) -> list[Witness]:
        path = self.path(task_id)
        try:
            self._trusted(create=False)
        except FileNotFoundError:
            return []
        if not self._entry(path.name):
            return []
        with _locked(path, fcntl.LOCK_SH):
            return _read(path, task_hash)

    def add(self, witnesses: list[Witness]) -> int:
        """Append witnesses not already pooled for their task; returns how many were new."""
        added = 0
        by_task: dict[str, list[Witness]] = {}
        for w in witnesses:
            by_task.setdefault(w.task_id, []).append(w)
        for task_id, items in by_task.items():
            path = self.path(task_id)
            self._trusted(create=True)
            with _locked(path, fcntl.LOCK_EX):
                self._entry(path.name)
                known = {w.key for w in _read(path, items[0].task_hash)}
                fresh = []
                for w in items:
                    if w.key not in known:
                        known.add(w.key)
                        fresh.append(w)
                if fresh:
                    with path.open("a", encoding="utf-8") as out:
                        out.write("".join(json.dumps(w.to_json(), sort_keys=True) + "\n" for w in fresh))
                        out.flush()
                        os.fsync(out.fileno())
                added += len(fresh)
        return added


def _read(path: Path, task_hash: str) -> list[Witness]:
    witnesses: list[Witness] = []
    seen: set[str] = set()
    if not path.exists():
        return witnesses
    for line in path.read_bytes().splitlines():
        try:
            witness = Witness.from_json(json.loads(line))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            continue  # a torn last line or a foreign record (not UTF-8, too deeply nested, not a witness)
        if witness.task_hash == task_hash and witness.key not in seen:
            seen.add(witness.key)
            witnesses.append(witness)
    return witnesses


@contextmanager
def _locked(path: Path, mode: int) -> Iterator[None]:
    lock = path.with_suffix(".lock")
    with os.fdopen(safe_fs.open_store_file(lock.parent, lock.name), "a") as handle:  # never through a link
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
