"""The screening checks of one task (paper §2.3, App. B.1-B.3). Each returns (passed, evidence).

- C1 replay: the reference decision equals the construction label on every case.
- C2 repeatability: rerunning every reference decision from a fresh start gives the same decision
  (tool-call tasks twice in all, state and code tasks three times).
- C3 provenance: every decision is linked to its case hash (recomputed from the case content, and
  equal to the manifest's) and to the reference-verifier version.
- C4 input-label consistency: no two cases with the same verifier-visible input carry opposite labels.
- C5 trivial baselines: always-accept is exposed by a negative, always-reject by a positive, and
  exact-match of the gold text by a valid variant whose text differs.
- C6 mutation testing: every applicable mutation operator the task's source declares (sources/toolcall/mutants.py,
  sources/interaction/mutants.py, sources/swebench/mutants.py) is detected by some case: both versions give valid decisions and they differ.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from verifierbench.core.hashing import canonical_json
from verifierbench.sources.formats.registry import format_of
from verifierbench.core.schema import Category, Label, ManifestCase, Task, TestCase
from verifierbench.sources import registry
from verifierbench.sources.base import NoProbe

Decide = Callable[[Task, dict], bool]
Result = tuple[bool, dict[str, Any]]


def decide_all(task: Task, cases: list[TestCase], decide: Decide) -> dict[str, bool]:
    """Every case's reference decision; code tasks run their tests a few at a time (each is a sandboxed test run)."""
    return dict(zip([c.id for c in cases], format_of(task).run_each(lambda c: decide(task, c.candidate), cases)))


def c1_replay(task: Task, cases: list[TestCase], decisions: dict[str, bool]) -> Result:
    wrong = [{"case_id": c.id, "category": c.category.value, "label": c.label.value,
              "reference": "PASS" if decisions[c.id] else "FAIL"}
             for c in cases if decisions[c.id] != (c.label is Label.PASS)]
    return not wrong, {"cases": len(cases), "disagreements": wrong[:20], "n_disagreements": len(wrong)}


def c2_repeat(task: Task, cases: list[TestCase], decisions: dict[str, bool], decide: Decide) -> Result:
    runs = format_of(task).repeat_runs
    changed = []
    for _ in range(runs - 1):
        again = decide_all(task, cases, decide)
        changed += [case.id for case in cases if again[case.id] != decisions[case.id]]
    return not changed, {"runs": runs, "changed": sorted(set(changed))[:20]}


def c3_provenance(task: Task, cases: list[TestCase], manifest_cases: dict[str, ManifestCase], verifier_version: str) -> Result:
    problems = []
    if task.computed_hash() != task.content_hash:
        problems.append({"task": "content hash does not match the task"})
    for case in cases:
        listed = manifest_cases.get(case.id)
        if case.computed_hash() != case.content_hash:
            problems.append({"case_id": case.id, "problem": "content hash does not match the case"})
        elif listed is None or listed.content_hash != case.content_hash or listed.label != case.label:
            problems.append({"case_id": case.id, "problem": "not in the manifest with this hash and label"})
    return not problems, {"verifier_version": verifier_version, "problems": problems[:20]}


def c4_consistency(cases: list[TestCase]) -> Result:
    labels: dict[str, set[Label]] = defaultdict(set)
    ids: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        key = canonical_json(case.candidate)
        labels[key].add(case.label)
        ids[key].append(case.id)
    conflicts = [ids[key] for key, seen in labels.items() if len(seen) > 1]
    return not conflicts, {"conflicting_case_groups": conflicts[:10]}


def c5_baselines(task: Task, cases: list[TestCase]) -> Result:
    """The trivial verifiers each fail some case: always-accept a FAIL, always-reject a PASS, exact match (what the
    task's format compares, `Format.exact_match_text`) a PASS that is not the gold's text."""
    text = format_of(task).exact_match_text
    gold = next((c for c in cases if c.category is Category.gold), None)
    gold_text = text(gold.candidate) if gold else None
    exposed = {
        "always_accept": any(c.label is Label.FAIL for c in cases),
        "always_reject": any(c.label is Label.PASS for c in cases),
        "exact_match": any(c.label is Label.PASS and text(c.candidate) != gold_text for c in cases),
    }
    return all(exposed.values()), {"exposed": exposed}


def c6_mutants(task: Task, cases: list[TestCase], decisions: dict[str, bool]) -> Result:
    """The source's mutation operators (its `mutation_operators`), whatever the task type: each operator says what it
    is probed with (`probe(task, cases)`: tool calls' expected calls, a state task's gold record; NoProbe when the
    task lacks it), whether it applies (`applicable(task, probe)`) and whether a case detects it (`detects(task,
    case, reference decision, probe)`: the mutated verifier decides that case differently).

    Args:
        task: the task screened.
        cases: its hidden cases.
        decisions: case id -> the reference's decision (PASS?).
    """
    applied, undetected, witnesses = [], [], {}
    for operator in registry.of(task.reference).mutation_operators():
        try:
            probe = operator.probe(task, cases)
        except NoProbe as exc:
            return False, {"operators": [], "undetected": [], "problem": str(exc)}
        if not operator.applicable(task, probe):
            continue
        applied.append(operator.name)
        witness = next((c.id for c in cases if operator.detects(task, c, decisions[c.id], probe)), None)
        if witness is None:
            undetected.append(operator.name)
        else:
            witnesses[operator.name] = witness
    return not undetected, {"operators": applied, "undetected": undetected, "detected_by": witnesses}
