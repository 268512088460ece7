"""The leaderboard's per-task view: each configuration's task with its round-1 P/F/U and why it has U.

Not a paper table: it is for debugging a configuration. The reasons come from the hidden-case
scorer's metadata (`undelivered`, `failures`); logs written before they existed show '-'.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from verifierbench.leaderboard.logs import ScoredRun, TaskSet
from verifierbench.leaderboard.tables import Cell, Table

COLUMNS = ["Configuration", "Task", "Source", "Source id", "Type", "In ranking", "Delivered", "P/F/U (round 1)", "Why U",
           "Stderr tail (first failure)"]
PADDED = "no sample in these logs: counted as a failure (--pad-missing)"


def table_tasks(scored: list[ScoredRun], task_set: TaskSet | None = None) -> Table:
    """Each configuration's scored tasks, whether the ranking counts them, and (--pad-missing) the tasks it is
    ranked on without a sample."""
    rows: list[list[Cell]] = []
    padded = {t.task_id: t for t in task_set.tasks} if task_set is not None and task_set.padded else {}
    for s in scored:
        for task_id in sorted(set(s.run.samples) | set(padded)):
            meta = s.run.samples.get(task_id)
            if meta is None:  # ranked without a sample (--pad-missing): a row of its own, so the table shows what was counted
                info, name = padded[task_id], task_set.name(task_id) if task_set else task_id
                rows.append([s.run.name, task_id, info.source, name.split("/", 1)[1] if "/" in name else None, info.task_type,
                             "yes (padded)", "no", None, PADDED, None])
                continue
            first = Counter(case["decisions"][0] for case in meta["cases"])
            delivered = meta.get("verifier_hash") is not None
            ranked = "yes" if s.tasks is None or task_id in s.tasks else "no: not scored by every configuration"
            rows.append([s.run.name, task_id, meta["source"], meta.get("source_id"), meta["task_type"], ranked,
                         "yes" if delivered else "no", f"{first['P']}/{first['F']}/{first['U']}", why_u(meta, delivered),
                         first_stderr(meta)])
    return Table("tasks", "Per-task view: delivery and the causes of U", COLUMNS, rows,
                 "In ranking: whether the ranking counts the task (the leaderboard ranks on the tasks every configuration "
                 "scored; --pad-missing on all, a missing one as a failure). Why U: why no verifier was delivered, or a "
                 "delivered verifier's distinct failures (cases x problem: last stderr line).")


def why_u(meta: dict[str, Any], delivered: bool) -> str | None:
    if not delivered:
        return meta.get("undelivered")
    failures = meta.get("failures")
    if failures is None:
        return None
    return "; ".join(f"{f['cases']} x {f['problem']}" + (f": {_last_line(f['stderr_tail'])}" if _last_line(f["stderr_tail"]) else "")
                     for f in failures) or ""


def first_stderr(meta: dict[str, Any]) -> str | None:
    failures = meta.get("failures") or []
    return failures[0]["stderr_tail"].strip() if failures and failures[0].get("stderr_tail") else None


def _last_line(text: str) -> str:
    lines = (text or "").strip().splitlines()
    return lines[-1].strip() if lines else ""
