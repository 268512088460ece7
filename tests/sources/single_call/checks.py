"""The single-call format's screening and audit pieces, which its `Format` methods return (format.py): C7's naive
checks, C6's mutation operators and the deterministic auditor. Each reads the task's answer key through its source's
decision (`decide_call`), so any source of this format gets them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from verifierbench.core.proposals import Proposal
from verifierbench.core.schema import Category, Task, TestCase
from verifierbench.sources import registry

Call = dict[str, Any]
# The naive verifiers (screening/potency.py): what each makes of a call before the source's decision sees it.
NAIVE: dict[str, Callable[[Call, Call], Call]] = {
    "name_only": lambda call, expected: {"name": call["name"], "arguments": expected["arguments"]},
    "values_as_text": lambda call, expected: {"name": call["name"], "arguments": _numbers_read(call["arguments"])},
}


def _numbers_read(arguments: dict[str, Any]) -> dict[str, Any]:
    """String values that read as numbers, taken as those numbers (values compared as text)."""
    read: dict[str, Any] = {}
    for key, value in arguments.items():
        try:
            read[key] = float(value) if isinstance(value, str) else value
        except ValueError:
            read[key] = value
    return read


def _decides(reference: dict[str, Any], call: Call) -> bool:
    return registry.of(reference).decide(reference, {"call": call})[0]


def naive_checks_fooled(reference: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    """The naive checks whose view of `candidate` the source's decision accepts."""
    call = candidate.get("call")
    if not isinstance(call, dict) or not isinstance(call.get("arguments"), dict):
        return []
    return [name for name, view in NAIVE.items() if _decides(reference, view(call, reference["expected"]))]


@dataclass(frozen=True)
class Operator:
    """A C6 operator (screening/checks.py `c6_mutants`): the reference decision with one check loosened (a naive view)."""

    name: str

    def probe(self, task: Task, cases: list[TestCase]) -> Call:
        return dict(task.reference["expected"])

    def applicable(self, task: Task, expected: Call) -> bool:
        return bool(expected["arguments"])

    def detects(self, task: Task, case: TestCase, reference: bool, expected: Call) -> bool:
        call = case.candidate["call"]
        return _decides(task.reference, NAIVE[self.name](call, expected)) != reference


OPERATORS = tuple(Operator(name) for name in NAIVE)


def propose(task: Task, round_index: int, seed: int) -> list[Proposal]:
    """A round's proposals: valid variants of the expected call and wrong calls near it, seeded per task and round."""
    rng = random.Random(f"{seed}:audit:{task.id}:{round_index}")
    expected = task.reference["expected"]
    name, arguments = expected["name"], expected["arguments"]
    numbers = [k for k, v in arguments.items() if isinstance(v, int)]
    changed = rng.choice(numbers)
    drafts = [
        (Category.cosmetic, {k: float(v) if k in numbers else v for k, v in arguments.items()}, "every number as a float"),
        (Category.near_miss, {**arguments, changed: arguments[changed] + rng.randint(2, 9)}, f"`{changed}` is the requested value"),
        (Category.base, {}, "the call has the arguments the request gives"),
    ]
    defaults = task.reference.get("defaults", {})
    drafts += [(Category.overstrict_trap, {k: v for k, v in arguments.items() if k != key}, f"`{key}` may be left to its default")
               for key in defaults if arguments.get(key) == defaults[key]]
    return [Proposal({"call": {"name": name, "arguments": args}}, category.label, requirement, "deterministic",
                     f"single_call_{category.value}", category) for category, args, requirement in drafts]
