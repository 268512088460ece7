"""Finished instance builds remembered on disk, so an interrupted or repeated build resumes where it stopped.

A memo holds an instance's task and hidden cases: it is keyed on everything the result depends on and read only from a
store this user owns (`safe_fs.trusted_store`), never through a link.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError
from verifierbench.core.schema import Task, TestCase
from verifierbench.sources import registry
from verifierbench.sources.swebench import checkout, instances, venv_store
from verifierbench.construction.replay import Replayed

MEMO_MAX_BYTES = 256 << 20


def memo_path(inst: instances.Instance, seed: int, with_environment: bool) -> Path:
    """Where the finished build of `inst` is remembered: keyed on everything the result depends on (the row, the seed,
    the builder's and upstream's code, the interpreter environments are made from).

    Args:
        inst: the instance.
        seed: the build's seed.
        with_environment: whether it is built with its SWE-bench test environment.

    Returns:
        The memo's path (it may not exist).
    """
    key = json.dumps({"row": inst.__dict__, "seed": seed, "code": registry.code_version("swebench"), "env": with_environment,
                      "python": venv_store.python_version() if with_environment else None}, sort_keys=True)
    return venv_store.root().parent / "builds" / f"{inst.instance_id}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def _memo_store(memo: Path, create: bool) -> str:
    """The memos' directory once it is safe to trust (safe_fs.trusted_store), or UserError naming the path and owner: a
    memo holds an instance's hidden cases, so one planted by another user would decide labels."""
    try:
        return safe_fs.trusted_store(memo.parent, create=create)
    except safe_fs.UntrustedStore as exc:
        raise UserError(f"build memos: {exc}; set ${venv_store.ROOT_ENV} to a directory of yours") from None


def remember(memo: Path, replayed: Replayed) -> None:
    """Keeps a finished build (best effort: a cache only).

    Args:
        memo: its `memo_path`.
        replayed: the instance's task, cases and exclusion.

    Raises:
        UserError: the memos' directory is not this user's to trust.
    """
    record = {"task": replayed.task.model_dump(mode="json"), "cases": [c.model_dump(mode="json") for c in replayed.cases],
              "dropped": replayed.dropped, "exclusion": replayed.exclusion, "memo": memo.name}
    store = _memo_store(memo, create=True)
    try:
        staging = f".{memo.stem}.{os.getpid()}.partial"
        safe_fs.write_below(store, [staging], json.dumps(record).encode())
        os.replace(os.path.join(store, staging), memo)
    except OSError:
        pass  # a cache only


def recall(memo: Path, inst: instances.Instance, clone: Path, store: Path | None) -> Replayed | None:
    """A remembered finished build, with its checkout materialized into `store` too (it travels with the suite).

    Args:
        memo: its `memo_path`.
        inst: the instance.
        clone: the repository's local clone.
        store: the build's checkout store (None: the shared default store).

    Returns:
        The remembered build; None when there is none, it is unreadable, or its checkout differs.

    Raises:
        UserError: the memos' directory, or the memo, was planted by another user.
    """
    try:
        memos = _memo_store(memo, create=False)  # not `store`: that is the suite's checkout store, used below
        info = safe_fs.trusted_entry(memos, memo.name)
        if info is None:
            return None
        record = json.loads(safe_fs.read_below(memos, [memo.name], MEMO_MAX_BYTES))  # never through a link
        if record.get("memo") != memo.name:  # not the memo its name (the key's digest) says
            return None
        task = Task.model_validate(record["task"])
        replayed = Replayed(task, [TestCase.model_validate(c) for c in record["cases"]], record["dropped"], record["exclusion"])
    except safe_fs.UntrustedStore as exc:  # planted by another user: refused, not read
        raise UserError(f"build memos: {exc}") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    # The checkout must be in this build's store too (it travels with the suite).
    if checkout.materialize(clone, inst.base_commit, store) != task.reference["checkout"]:
        return None
    return replayed
