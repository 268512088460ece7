"""C6 mutation operators for SWE-bench reference verifiers (its `mutation_operators`; screening/checks.py runs them) (paper Table 9: newly passing and
previously passing tests, missing tests, expected failures, empty reports).

Each operator switches off one check of the hardened grading (`swebench.grading`); the mutant
decides `reference or mutant` on every case, and a case detects it when the decisions differ.
Test runs are shared with the reference's own decisions (the checks differ, the run does not).
The test-list operators are paired with the exit-code check (paper App. B.3, paired mutations):
a failing named test also makes pytest exit non-zero, which would otherwise hide the mutation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from verifierbench.core.schema import Task, TestCase
from verifierbench.sources.swebench.reference import decide


@dataclass(frozen=True)
class CodeOperator:
    name: str
    disabled: frozenset[str]
    applies: Callable[[Task], bool]

    def decide(self, task: Task, candidate: dict[str, Any]) -> bool:
        return decide(task.reference, candidate, disabled=self.disabled, cached=True)[0]

    # The C6 protocol every kind of operator follows (screening/checks.py: c6_mutants).
    def probe(self, task: Task, cases: list[TestCase]) -> None:
        """Nothing to probe: the checks switched off are named."""
        return None

    def applicable(self, task: Task, probe: None) -> bool:
        return self.applies(task)

    def detects(self, task: Task, case: TestCase, reference: bool, probe: None) -> bool:
        """Loosening: the mutant accepts a case the reference rejects."""
        return not reference and self.decide(task, case.candidate)


OPERATORS = (
    CodeOperator("fail_to_pass_unchecked", frozenset({"fail_to_pass", "exit_code"}), lambda t: bool(t.reference["FAIL_TO_PASS"])),
    CodeOperator("pass_to_pass_unchecked", frozenset({"pass_to_pass", "exit_code"}), lambda t: bool(t.reference["PASS_TO_PASS"])),
    CodeOperator("skips_count_as_passes", frozenset({"strict_outcomes"}), lambda t: True),
    CodeOperator("missing_tests_pass", frozenset({"complete_report"}), lambda t: True),
    CodeOperator("diff_not_inspected", frozenset({"static"}), lambda t: True),
)
