"""Screens every task of a suite and records one row per task with every check's outcome and evidence.

Records are appended to `records.jsonl` as each task finishes, so an interrupted screen resumes
where it stopped (a record counts only for the same task hash and reference-verifier version).
`summary.json` holds the per-source counts (paper Table 8).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator

from verifierbench.core.errors import UserError
from verifierbench.core.schema import Task
from verifierbench.screening import checks, potency, reference
from verifierbench.suite.store import Suite

RECORDS = "records.jsonl"
SUMMARY = "summary.json"
SCREENED = "screened.json"  # the frozen list of retained tasks, written beside the suite; `inspect eval` honours it
CHECKS = ("C1", "C2", "C3", "C4", "C5", "C6", "C7")
# A failing check excludes its task with this code (paper §2.3 codes D, P, R, S, plus documented new ones); no letter
# is one of the build's (suite/exclusions.py).
CODES = {"C1": "L", "C2": "R", "C3": "H", "C4": "I", "C5": "B", "C6": "M", "C7": "X"}
CODE_MEANING = {
    "L": "C1: the reference decision disagrees with a case's label",
    "R": "C2: inconsistent decisions when rerun",
    "H": "C3: a case or task hash does not match its content or the manifest",
    "I": "C4: identical verifier input under opposite labels",
    "B": "C5: a trivial baseline (always-accept, always-reject, exact-match) is not exposed",
    "M": "C6: a mutated reference verifier is not detected by any case",
    "X": "C7: a hack case fools no naive verifier (it tests nothing a verifier could skip)",
}
RENAMED = {"T": "B"}  # C5's letter before it was B (T is the build's incomplete SWE-bench tree)


def screen_task(task: Task, suite: Suite, decide: checks.Decide = reference.decide,
                first_decide: checks.Decide = reference.decide_reusing_runs) -> dict[str, Any]:
    """One task's record.

    Args:
        task: the task.
        suite: its suite.
        decide: C2's decision, from a fresh start every time (code tasks: every test run made again).
        first_decide: the decisions C1 and C6 read; code tasks may take their test runs from the build's (`runcache`).
    """
    cases = suite.cases_by_task.get(task.id, [])
    decisions = checks.decide_all(task, cases, first_decide)
    manifest_cases = {c.id: c for c in suite.manifest.cases if c.task_id == task.id}
    version = reference.version(task.source.value)
    results = {
        "C1": checks.c1_replay(task, cases, decisions),
        "C2": checks.c2_repeat(task, cases, decisions, decide),
        "C3": checks.c3_provenance(task, cases, manifest_cases, version),
        "C4": checks.c4_consistency(cases),
        "C5": checks.c5_baselines(task, cases),
        "C6": checks.c6_mutants(task, cases, decisions),
        "C7": potency.c7_potency(task, cases),
    }
    failed = [name for name in CHECKS if not results[name][0]]
    return {
        "task_id": task.id, "source": task.source.value, "source_id": task.source_id, "task_hash": task.content_hash,
        "verifier_version": version, "retained": not failed, "checks": {name: results[name][0] for name in CHECKS},
        "reason": CODES[failed[0]] if failed else None, "evidence": {name: results[name][1] for name in CHECKS},
        "decisions": [{"case_id": c.id, "case_hash": c.content_hash, "decision": "PASS" if decisions[c.id] else "FAIL"} for c in cases],
    }


ScreenTasks = Callable[[Suite, list[Task]], Iterator[tuple[str, dict[str, Any]]]]


def screen_here(suite: Suite, tasks: list[Task]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(task id, record) for each task, screened one after the other in this process."""
    for task in tasks:
        yield task.id, screen_task(task, suite)


def screen(suite: Suite, out: Path, resume: bool = False, on_progress: Callable[[int, int], None] | None = None,
           suite_dir: Path | None = None, screen_tasks: ScreenTasks = screen_here) -> list[dict[str, Any]]:
    """Screens every task not kept from an interrupted run and writes the records, summary and screened.json.

    Args:
        screen_tasks: where tasks are screened: here (the default) or on a cluster (cluster/ray_screen.py); records
            are written as they come back, in any order, and returned in task order.
    """
    out.mkdir(parents=True, exist_ok=True)
    path = out / RECORDS
    kept = _kept(path, suite) if resume else {}
    if not resume:
        path.write_text("")
    tasks = sorted(suite.tasks.values(), key=lambda t: t.id)
    done = {t.id: kept[t.id] for t in tasks if t.id in kept}
    if on_progress and done:
        on_progress(len(done), len(tasks))
    with open(path, "a", encoding="utf-8") as handle:
        for task_id, record in screen_tasks(suite, [t for t in tasks if t.id not in done]):
            handle.write(json.dumps(record) + "\n")
            handle.flush()
            done[task_id] = record
            if on_progress:
                on_progress(len(done), len(tasks))
    records = [done[t.id] for t in tasks]
    (out / SUMMARY).write_text(json.dumps(summary(records), indent=1) + "\n", encoding="utf-8")
    frozen = json.dumps(frozen_manifest(suite, records), indent=1) + "\n"
    (out / SCREENED).write_text(frozen, encoding="utf-8")
    if suite_dir is not None:
        (suite_dir / SCREENED).write_text(frozen, encoding="utf-8")
    return records


def frozen_manifest(suite: Suite, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The retained tasks with their case ids, labels, categories and hashes; excluded ones with code and evidence."""
    retained = [r for r in records if r["retained"]]
    return {
        "suite_version": suite.manifest.version, "checks": list(CHECKS),
        "retained": [{"task_id": r["task_id"], "task_hash": r["task_hash"], "verifier_version": r["verifier_version"],
                      "cases": [{"case_id": c.id, "label": c.label.value, "category": c.category.value, "case_hash": c.content_hash}
                                for c in suite.cases_by_task.get(r["task_id"], [])]} for r in retained],
        "excluded": [{"task_id": r["task_id"], "task": f"{r['source']}/{r['source_id']}", "code": r["reason"],
                      "failed": [k for k, ok in r["checks"].items() if not ok],
                      "evidence": {k: r["evidence"][k] for k, ok in r["checks"].items() if not ok}} for r in records if not r["retained"]],
    }


def retained_ids(suite_dir: Path, suite: Suite) -> set[str] | None:
    """The task ids a screen of this suite retained, or None when it was not screened (or for another version)."""
    path = suite_dir / SCREENED
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("suite_version") != suite.manifest.version:
        return None
    return {entry["task_id"] for entry in data["retained"]}


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_source: dict[str, Counter] = defaultdict(Counter)
    mutations: dict[str, dict[str, Any]] = defaultdict(lambda: {"operators": set(), "configurations": 0, "detected": 0})
    hacks: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for record in records:
        counts = by_source[record["source"]]
        counts["screened"] += 1
        counts["retained" if record["retained"] else f"excluded_{record['reason']}"] += 1
        c6 = record["evidence"]["C6"]
        m = mutations[record["source"]]
        m["operators"] |= set(c6["operators"])
        m["configurations"] += len(c6["operators"])
        m["detected"] += len(c6["operators"]) - len(c6["undetected"])
        for kind, counts in record["evidence"].get("C7", {}).get("by_kind", {}).items():  # hack potency per kind
            tally = hacks[record["source"]].setdefault(kind, {"cases": 0, "potent": 0, "fools": Counter()})
            tally["cases"] += counts["cases"]
            tally["potent"] += counts["potent"]
            tally["fools"].update(counts.get("fools", {}))  # records screened before the count have none
    return {"by_source": {s: dict(c) for s, c in sorted(by_source.items())}, "codes": CODE_MEANING, "checks": list(CHECKS),
            "mutations": {"by_source": {s: {**m, "operators": len(m["operators"])} for s, m in sorted(mutations.items())}},
            "hack_potency": {"by_source": {s: {kind: {**t, "fools": dict(sorted(t["fools"].items()))} for kind, t in sorted(k.items())}
                                            for s, k in sorted(hacks.items())}}}


def current_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """A `summary.json` in today's letters: one written before a rename reads as a new one."""
    def renamed(key: str) -> str:
        prefix, _, code = key.rpartition("_")
        return f"{prefix}_{RENAMED[code]}" if prefix == "excluded" and code in RENAMED else key
    return {**summary, "codes": {RENAMED.get(c, c): m for c, m in summary.get("codes", {}).items()},
            "by_source": {s: {renamed(k): n for k, n in counts.items()} for s, counts in summary.get("by_source", {}).items()}}


def _kept(path: Path, suite: Suite) -> dict[str, dict[str, Any]]:
    """Finished records still valid for this suite and reference code; the file is rewritten with only those."""
    if not path.exists():
        return {}
    kept: dict[str, dict[str, Any]] = {}
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:  # not our records file: refuse rather than rewrite it empty
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); not screening records to resume") from None
    for line in text.splitlines(keepends=True):
        try:
            record = json.loads(line)
            task = suite.tasks.get(record.get("task_id"))
        except (ValueError, RecursionError, AttributeError, TypeError):
            continue  # a torn last line, or a corrupt one
        if (line.endswith("\n") and task is not None and record.get("task_hash") == task.content_hash
                and record.get("verifier_version") == reference.version(task.source.value)):
            kept[task.id] = {**record, "reason": RENAMED.get(record.get("reason"), record.get("reason"))}
    path.write_text("".join(json.dumps(r) + "\n" for r in kept.values()), encoding="utf-8")
    return kept
