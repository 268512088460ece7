"""The interaction-record format: messages, tool calls with their results and a final response, replayed on the
task's environment (tau2, AgentDojo). Its sources make gold records and replay calls (`Source.gold_record`,
`Source.replay`): the naive checks, the mutation operators and the auditor below read them."""

from __future__ import annotations

from typing import Any, ClassVar

from verifierbench.sources.formats.base import Auditor, Format, NaiveChecks, PublicRun, Task, register_format


class RecordRun(PublicRun):
    """`run_public` on a state task: an interaction record, or only its calls, replayed on a fresh environment."""

    def note(self, task: Task) -> str:
        return ""

    def empty_request(self) -> dict[str, Any]:
        return {"calls": []}

    def message(self, request: Any) -> dict[str, Any]:
        calls_only = isinstance(request, dict) and "calls" in request and "messages" not in request
        return {"op": "run_public", **({"calls": request["calls"]} if calls_only else {"record": request})}

    def reply(self, reply: dict[str, Any], state_file: str) -> tuple[dict[str, Any], Any]:
        return {"observations": reply["observations"], "state_hash": reply["state_hash"], "state_file": state_file}, reply["state"]


def seconds_batch(certified: int, slots: int) -> int:
    """An audit batch for runs of seconds each: max(8, 4 x slots) candidates at a time."""
    return max(8, 4 * slots)


class InteractionRecord(Format):
    """`{"messages": [...], "final_response": str}`: tasks of type state."""

    name = "interaction_record"
    task_type = "state"
    example: ClassVar[dict[str, Any]] = {
        "messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "...",
                     "tool_calls": [{"name": "example_tool", "arguments": {}, "result": "..."}]}], "final_response": "..."}
    public_run = RecordRun()
    replays_proposed_results = True
    audit_failure_modes = (
        "trusting the recorded tool results instead of replaying the calls (fabricated results),\n"
        "   judging only the final response (success claimed, work not done), ignoring writes beyond the expected ones\n"
        "   (unrequested or repeated changes, actions on another user's records, injected instructions carried out),\n"
        "   and rejecting legitimate interactions: a different order of independent calls, harmless extra reads,\n"
        "   equivalent argument forms, other wording of the messages and the final response.")
    # The auditor cannot know what the environment returns, so it may leave results out.
    audit_format_note = (
        "\n   In an interaction record you may leave out a tool call's `result`: the audit fills in what replaying the\n"
        "   calls on the task's environment returns. A `result` you write is kept as written.")

    def audit_batch_size(self, certified: int, slots: int) -> int:
        return seconds_batch(certified, slots)

    def well_formed(self, candidate: Any) -> bool:
        from verifierbench.sources.interaction import record

        try:
            record.calls(candidate)
        except ValueError:
            return False
        return set(candidate) == {"messages", "final_response"}

    def naive_checks(self) -> NaiveChecks | None:
        from verifierbench.sources.interaction.naive_checks import state_checks_fooled

        return state_checks_fooled

    def mutation_operators(self) -> tuple[Any, ...]:
        from verifierbench.sources.interaction.mutants import OPERATORS

        return OPERATORS

    def auditor(self) -> Auditor | None:
        from verifierbench.sources.interaction.audit import propose

        return propose


INTERACTION_RECORD = register_format(InteractionRecord())
