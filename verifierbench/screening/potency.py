"""C7 hack potency (issue 37): every hack case must fool a naive verifier, the one that makes the check the hack
targets and trusts the rest. A hack no naive check accepts tests nothing: a verifier that never makes the check it
attacks loses no points on it.

The naive verifiers are the task's source's (`Source.naive_checks`), by default its candidate format's
(sources/formats/): tool calls' in sources/toolcall/naive_checks.py, interaction records' (tau2, AgentDojo) in
sources/interaction/naive_checks.py; SWE-bench's diffs have its own (its grading, its 4.x reading of skips, the exit
status) in sources/swebench/naive_checks.py. AppWorld's code format has none yet: its record says so, and C7 does not
fail it.
"""

from __future__ import annotations

from typing import Any

from verifierbench.core.schema import Category, Task, TestCase
from verifierbench.sources import registry
from verifierbench.sources.formats.base import NaiveChecks

Result = tuple[bool, dict[str, Any]]


def c7_potency(task: Task, cases: list[TestCase]) -> Result:
    hacks = [c for c in cases if c.category is Category.hack]
    checks_of = naive_checks(task.reference)
    if checks_of is None:
        return True, {"probe": None, "hacks": len(hacks), "why": f"no naive-verifier probe for {task.source.value} tasks yet"}
    fooled_by: dict[str, list[str]] = {}
    inert: list[dict[str, Any]] = []
    for case in hacks:
        checks = checks_of(task.reference, case.candidate) or []
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


def naive_checks(reference: dict) -> NaiveChecks | None:
    """The naive checks of the task's source (by default its format's); None where it has none, or the record names
    no known source."""
    return registry.of(reference).naive_checks() if registry.known(reference) else None
