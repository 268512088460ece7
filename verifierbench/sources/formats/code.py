"""The code format: a program run in the task's environment, judged by the environment's own evaluation of the
state it leaves (AppWorld). No naive checks, mutation operators or auditor yet, and no `run_public` messages:
a source of this format serves no public environment."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.formats.base import Format, register_format
from verifierbench.sources.formats.interaction_record import seconds_batch


class Code(Format):
    """`{"code": str}`: tasks of type state (the code acts on the environment's state)."""

    name = "code"
    task_type = "state"
    example = {"code": "print('example')"}
    audit_failure_modes = (
        "judging the code's text instead of what running it does to the environment, accepting code\n"
        "   that does not finish the task (a claimed answer without the work, a missing completion call) or that\n"
        "   changes data the request did not ask to change, and rejecting legitimate code: other APIs or call orders\n"
        "   that reach the same state, harmless extra reads, a different structure or style.")

    def audit_batch_size(self, certified: int, slots: int) -> int:
        return seconds_batch(certified, slots)  # one run takes seconds, as a state task's replay

    def well_formed(self, candidate: Any) -> bool:
        return isinstance(candidate, dict) and set(candidate) == {"code"} and isinstance(candidate["code"], str)


CODE = register_format(Code())
