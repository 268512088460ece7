"""The leaderboard's per-task view: each configuration's task with its round-1 P/F/U and why it has U.

Not a paper table: it is for debugging a configuration. The reasons come from the hidden-case
scorer's metadata (`undelivered`, `failures`); logs written before they existed show '-'.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from verifierbench.leaderboard.logs import ScoredRun
from verifierbench.leaderboard.tables import Table

COLUMNS = ["Configuration", "Task", "Source", "Source id", "Type", "Delivered", "P/F/U (round 1)", "Why U", "Stderr tail (first failure)"]


def table_tasks(scored: list[ScoredRun]) -> Table:
    rows = []
    for s in scored:
        for task_id in sorted(s.run.samples):
            meta = s.run.samples[task_id]
            first = Counter(case["decisions"][0] for case in meta["cases"])
            delivered = meta.get("verifier_hash") is not None
            rows.append([s.run.name, task_id, meta["source"], meta.get("source_id"), meta["task_type"], "yes" if delivered else "no",
                         f"{first['P']}/{first['F']}/{first['U']}", why_u(meta, delivered), first_stderr(meta)])
    return Table("tasks", "Per-task view: delivery and the causes of U", COLUMNS, rows,
                 "Why U: why no verifier was delivered, or a delivered verifier's distinct failures (cases x problem: last stderr line).")


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
