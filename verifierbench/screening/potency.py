"""C7 hack potency (issue 37): every hack case must fool a naive verifier, the one that makes the check the hack
targets and trusts the rest. A hack no naive check accepts tests nothing: a verifier that never makes the check it
attacks loses no points on it.

The naive verifiers are the source layer's, by the probe a task kind names (kinds.py `naive_probe`): tool-call
tasks' in sources/toolcall/naive_checks.py, state tasks' (tau2, AgentDojo) in sources/interaction/naive_checks.py, code
tasks' (SWE-bench's grading, its 4.x reading of skips, the exit status) in sources/swebench/naive_checks.py.
AppWorld tasks have no probe here yet: their record says so, and C7 does not fail them.
"""

from __future__ import annotations

from typing import Any, Callable

from verifierbench.kinds import kind_named
from verifierbench.schema import Category, Task, TaskType, TestCase
from verifierbench.sources import registry
from verifierbench.sources.interaction.naive_checks import state_checks_fooled
from verifierbench.sources.toolcall.naive_checks import naive_checks_fooled

Result = tuple[bool, dict[str, Any]]


def c7_potency(task: Task, cases: list[TestCase]) -> Result:
    hacks = [c for c in cases if c.category is Category.hack]
    if not probed(task.type, task.reference):
        return True, {"probe": None, "hacks": len(hacks), "why": f"no naive-verifier probe for {task.source.value} tasks yet"}
    fooled_by: dict[str, list[str]] = {}
    inert: list[dict[str, Any]] = []
    for case in hacks:
        checks = fooled(task.type, task.reference, case.candidate) or []
        fooled_by[case.id] = checks
        if not checks:
            inert.append({"case_id": case.id, "operator": case.provenance.get("operator"),
                          "why": "no naive check accepts it: it tests nothing a verifier could skip"})
    by_kind: dict[str, dict[str, Any]] = {}
    for case in hacks:
        kind = by_kind.setdefault(str(case.provenance.get("operator")), {"cases": 0, "potent": 0, "fools": {}})
        kind["cases"] += 1
        kind["potent"] += bool(fooled_by[case.id])
        for check in fooled_by[case.id]:  # which naive verifier each kind fools, and how often
            kind["fools"][check] = kind["fools"].get(check, 0) + 1
    return not inert, {"probe": f"{task.type.value} naive checks", "hacks": len(hacks), "by_kind": by_kind, "inert": inert[:20],
                       "fooled": {k: v for k, v in list(fooled_by.items())[:20]}}


def probed(task_type: TaskType, reference: dict) -> bool:
    """Whether this module has naive checks for the task: its kind names a probe, and the
    record probe needs a source that makes gold interaction records and replays calls (not yet AppWorld)."""
    probe = kind_named(task_type).naive_probe
    if probe is None:
        return False
    return probe != "record" or _has_records(reference)


def _has_records(reference: dict) -> bool:
    """Whether the task's source makes gold interaction records and replays calls (what the state naive checks read)."""
    return registry.known(reference) and registry.of(reference).implements("gold_record")


def fooled(task_type: TaskType, reference: dict, candidate: dict) -> list[str] | None:
    """The naive checks a hack candidate fools; None where the task has no probe."""
    probe = kind_named(task_type).naive_probe
    if probe is None or not probed(task_type, reference):
        return None
    return PROBES[probe](reference, candidate)


# The naive-verifier probes, by the name a task kind gives them (kinds.py `naive_probe`).
# Code tasks' graders are their source's (Source.naive_checks_fooled): they need the source's test runner, which a
# core module may not import.
PROBES: dict[str, Callable[[dict, dict], list[str]]] = {
    "calls": naive_checks_fooled, "record": state_checks_fooled,
    "code": lambda reference, candidate: registry.of(reference).naive_checks_fooled(reference, candidate)}
