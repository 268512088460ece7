"""Runs frozen verifiers on a suite's hidden cases and appends one decision line per case.

Lines are written and flushed as runs finish, so a crash loses at most the runs in flight;
`resume` skips cases already decided for the same case hash and verifier hash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from verifierbench.core.errors import UserError
from verifierbench.cluster.backend import Backend, CaseRun, run_cases
from verifierbench.executor.staging import FrozenVerifier, MissingVerifier
from verifierbench.core.protocol import ENTRYPOINT, Decision
from verifierbench.core.schema import Task, TestCase
from verifierbench.suite.store import Suite


@dataclass(frozen=True)
class Assignment:
    task: Task
    verifier: FrozenVerifier | None  # None: no verifier delivered for this task


def verifier_for(directory: Path, task: Task) -> Path | None:
    """`DIR/<task id>/verify.py`, or `DIR/<task id>.py`; None when the task has neither."""
    for candidate in (directory / task.id / ENTRYPOINT, directory / f"{task.id}.py"):
        if candidate.is_file():
            return candidate.parent if candidate.name == ENTRYPOINT else candidate
    return None


def decision_line(task: Task, case: TestCase, verifier_hash: str | None, decision: Decision, **details) -> dict:
    return {
        "task_id": task.id, "case_id": case.id, "category": case.category.value, "label": case.label.value,
        "decision": decision.value, "task_type": task.type.value, "source": task.source.value,
        "submitted": verifier_hash is not None, "case_hash": case.content_hash, "verifier_hash": verifier_hash, **details,
    }


def per_task_verifiers(directory: Path) -> Callable[[Task], Path | None]:
    return lambda task: verifier_for(directory, task)


def one_verifier(path: Path) -> Callable[[Task], Path | None]:
    """The same verifier (a file, or a directory holding verify.py) for every task."""
    return lambda task: path


def judge(
    suite: Suite,
    verifiers: Path | Callable[[Task], Path | None],
    executor: Backend,
    out_path: Path,
    task_ids: Iterable[str] | None = None,
    resume: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    tasks: list[Task] | None = None,
) -> int:
    """Decides every selected case; returns how many runs were made (resumed lines excluded).

    `verifiers` is a directory of per-task verifiers or a function from task to verifier path;
    `tasks` (or `task_ids`) selects the tasks, all by default.
    """
    if out_path.exists() and not resume:
        raise UserError(f"{out_path}: already exists; pass --resume to continue it, or remove it")
    locate = per_task_verifiers(verifiers) if isinstance(verifiers, Path) else verifiers
    tasks = tasks if tasks is not None else select_tasks(suite, task_ids)
    assignments = []
    for task in tasks:
        path = locate(task)
        try:
            assignments.append(Assignment(task, executor.freeze(path) if path else None))
        except MissingVerifier:
            assignments.append(Assignment(task, None))
    wanted = {
        (case.id, case.content_hash, a.verifier.sha256 if a.verifier else None): (a, case)
        for a in assignments for case in suite.cases_by_task.get(a.task.id, [])
    }
    done = _keep_decided(out_path, set(wanted)) if resume else set()
    pending = [pair for key, pair in wanted.items() if key not in done]
    total, finished = len(pending), 0
    try:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out = open(out_path, "a", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{out_path}: cannot write decisions ({exc.strerror})") from None
    with out:
        def write(line: dict) -> None:
            nonlocal finished
            out.write(json.dumps(line) + "\n")
            out.flush()
            finished += 1
            if on_progress:
                on_progress(finished, total)

        runnable = []
        for a, case in pending:
            if a.verifier is None:
                write(decision_line(a.task, case, None, Decision.U, problem="missing verifier"))
            else:
                runnable.append((a, a.verifier, case))
        by_key = {case.id: (a, verifier, case) for a, verifier, case in runnable}
        runs = (CaseRun(a.task, verifier, case.candidate, case.id) for a, verifier, case in runnable)  # state tasks: run_public per case
        # Locally: warm sandboxes (one per verifier and task, a forked process per case) unless the executor is cold.
        for outcome in run_cases(executor, runs):
            a, verifier, case = by_key[outcome.key]
            write(decision_line(a.task, case, verifier.sha256, outcome.decision, problem=outcome.problem,
                                isolation=outcome.isolation, wall_time_s=outcome.wall_time_s, exit_status=outcome.exit_status,
                                timed_out=outcome.timed_out, path=outcome.path,
                                # kept so a wrong decision can be diagnosed from the file (both bounded by the executor)
                                reason=outcome.reason, stderr_tail=outcome.stderr_tail))
    return total


def select_tasks(suite: Suite, task_ids: Iterable[str] | None = None, source: str | None = None,
                 task_type: str | None = None) -> list[Task]:
    """Tasks by id (vgb-t- id or source/source_id), by source or by type; all when nothing is given."""
    if source or task_type:
        chosen = [t for t in suite.tasks.values() if (not source or t.source.value == source) and (not task_type or t.type.value == task_type)]
        if not chosen:
            raise UserError(f"no task in suite {suite.manifest.version} has " + (f"source {source}" if source else f"type {task_type}"))
        return chosen
    if not task_ids:
        return list(suite.tasks.values())
    selected = []
    for wanted in task_ids:
        match = suite.tasks.get(wanted) or next((t for t in suite.tasks.values() if f"{t.source.value}/{t.source_id}" == wanted), None)
        if match is None:
            raise UserError(f"task '{wanted}' is not in suite {suite.manifest.version} (give a vgb-t- id or source/source_id)")
        selected.append(match)
    return selected


def _keep_decided(path: Path, wanted: set[tuple[str, str, str | None]]) -> set[tuple[str, str, str | None]]:
    """Keeps the lines still valid for this run (same case and verifier hashes) and drops the rest:
    torn last lines from a crash, and decisions of a verifier or case that has since changed."""
    if not path.exists():
        return set()
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        # Not a decisions file (ours are UTF-8 JSON): refuse rather than rewrite it without its lines.
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); not a decisions file to resume") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    kept, done = [], set()
    *whole, tail = text.split("\n")
    for line in [f"{line}\n" for line in whole] + ([tail] if tail else []):
        try:
            data = json.loads(line)
            key = (data["case_id"], data["case_hash"], data["verifier_hash"])
            hash(key)  # a list where an id belongs is a corrupt line like any other
        except (ValueError, RecursionError, KeyError, TypeError):
            continue
        if key in wanted and key not in done and line.endswith("\n"):
            kept.append(line)
            done.add(key)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text("".join(kept), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise UserError(f"{path}: cannot rewrite it to resume ({exc.strerror})") from None
    return done
