"""What each task type means to the core: one `TaskKind` per type (tool-call, state, code), registered by the
type's value. Core code asks a task's kind (`kind_of(task)`) instead of branching on the type: how often a verifier
is judged and screened, how its runs are scheduled, what the generating agent is told and given, and what the
auditors write.

Standard library only at module level: the sandboxed and exported paths may import it. A kind says what applies to
its tasks; values that differ between sources (a code task's time limit) stay with the source (sources/registry.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import Any, ClassVar, Protocol, TypeVar

K = TypeVar("K", bound="type[TaskKind]")


class Task(Protocol):
    """What a kind reads of a suite task (schema.Task; a protocol, so this module imports nothing of the package)."""

    @property
    def type(self) -> Enum: ...

    @property
    def environment(self) -> dict[str, Any]: ...

KINDS: dict[str, TaskKind] = {}  # type value ("tool-call", "state", "code") -> its kind


def task_kind(cls: K) -> K:
    """Class decorator: registers one instance of a `TaskKind` subclass under its `name`.

    Args:
        cls: the subclass; its `name` is a `TaskType` value not registered yet.

    Returns:
        The class, unchanged.

    Raises:
        ValueError: a kind of that name is registered already.
    """
    if cls.name in KINDS:
        raise ValueError(f"task kind {cls.name!r} is registered twice")
    KINDS[cls.name] = cls()
    return cls


def kind_named(type_value: str) -> TaskKind:
    """The kind of a task type.

    Args:
        type_value: a `TaskType` member or its value (`task.type`, a sample's `task_type` metadata).

    Returns:
        The registered kind.

    Raises:
        KeyError: no kind has that name.
    """
    name = type_value.value if isinstance(type_value, Enum) else type_value
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"no task kind {name!r} (known: {', '.join(KINDS)})") from None


def kind_of(task: Task) -> TaskKind:
    """The kind of `task` (by its type).

    Args:
        task: a suite task.

    Returns:
        Its registered kind.

    Raises:
        KeyError: the task's type has no registered kind.
    """
    return kind_named(task.type.value)


def sample_kind(task_type: object) -> TaskKind:
    """The kind a sample's `task_type` metadata names; a sample that names none (made outside a suite, or before
    its task type was recorded) is treated as a tool-call task: no public environment.

    Args:
        task_type: the metadata value (a type value, "" or None).

    Returns:
        The kind.

    Raises:
        KeyError: the value names no registered kind.
    """
    return kind_named(str(task_type)) if task_type else KINDS[ToolCallKind.name]


class TaskKind(ABC):
    """What one task type means to judging, screening, generation and the audit.

    Subclasses set the class attributes and implement the abstract methods; `@task_kind` registers them."""

    name: ClassVar[str]
    """The `TaskType` value this kind belongs to."""

    has_public_environment: ClassVar[bool] = True
    """Whether its tasks have a public environment the agent may run (`run_public`/`reset`)."""

    repeat_runs: ClassVar[int] = 3
    """How many times screening's C2 decides every case in all (the first run included)."""

    runs_tests: ClassVar[bool] = False
    """Whether a decision runs the repository's tests: seconds to minutes in a sandbox each. Reference decisions then
    run a few at a time, a cluster schedules each case on its own, a verifier run gets a loopback interface, and its
    time limit is the task's own (its source's `case_timeout`), which the generating agent is told."""

    replays_proposed_results: ClassVar[bool] = False
    """Whether an auditor's proposed candidate may leave tool results out, the audit filling in a replay's."""

    naive_probe: ClassVar[str | None] = None
    """The name of screening's naive-verifier probe for its hack cases (screening/potency.py `PROBES`); None: none yet."""

    audit_failure_modes: ClassVar[str]
    """The verifier failure modes the LLM auditors are told to look for (a prompt paragraph)."""

    audit_format_note: ClassVar[str] = ""
    """What the LLM auditors are told about writing candidates beyond the format (a prompt sentence, or "")."""

    def judge_rounds(self, requested: int) -> int:
        """How many times a generated verifier is judged on the hidden cases.

        Args:
            requested: the rounds the run asks for (at least 1).

        Returns:
            The rounds for a task of this kind.
        """
        return requested

    def audit_batch_size(self, certified: int, slots: int) -> int:
        """How many certified candidates an audit round runs at a time (a round stops after the first batch that refutes).

        Args:
            certified: the round's certified candidates.
            slots: the executor's parallel slots.

        Returns:
            The batch size (at least 1).
        """
        return max(1, certified)

    @abstractmethod
    def well_formed(self, candidate: Any) -> bool:
        """Whether `candidate` has the shape this kind's candidate format promises (an auditor may write anything).

        Args:
            candidate: a proposed candidate, any JSON value.

        Returns:
            True when it is well-formed.
        """

    @abstractmethod
    def environment_note(self, task: Task, budget: int) -> str:
        """What the generating agent is told about the task's public environment.

        Args:
            task: a task of this kind.
            budget: the agent's `run_public` executions in all.

        Returns:
            The prompt paragraph.
        """

    @abstractmethod
    def empty_public_request(self) -> dict[str, Any] | None:
        """The `run_public` request that only looks at the initial environment (the model-free policies' first look).

        Returns:
            The request, or None when the kind has no public environment.
        """

    @abstractmethod
    def public_message(self, request: Any) -> dict[str, Any]:
        """The message to the public service for a `run_public` request the agent wrote.

        Args:
            request: the agent's request, parsed from JSON.

        Returns:
            The service message (`op` run_public).

        Raises:
            ValueError: the request cannot be read (the message says what is expected).
        """

    @abstractmethod
    def public_reply(self, reply: dict[str, Any], state_file: str) -> tuple[dict[str, Any], Any]:
        """What the `run_public` tool answers for the service's reply, and the state it writes to `state_file`.

        Args:
            reply: the public service's reply (no `error`).
            state_file: where the tool writes the resulting state in the sandbox.

        Returns:
            (the tool's answer, the state to write or None).
        """


@task_kind
class ToolCallKind(TaskKind):
    """Tool-call tasks: the candidate is a reply and its parsed calls; nothing to execute."""

    name = "tool-call"
    has_public_environment = False
    repeat_runs = 2
    naive_probe = "calls"
    audit_failure_modes = (
        "rejecting permitted tools or calls the requirements allow, mishandling default\n"
        "   arguments (an omitted argument with a documented default, or the default passed explicitly), restricting\n"
        "   representations (number forms, argument or call order, text layout), over-broad restrictions, and\n"
        "   accepting violations (wrong values, missing or extra calls, text that disagrees with the calls).")

    def judge_rounds(self, requested: int) -> int:
        return 1  # a decision on parsed calls is deterministic: more rounds would repeat it

    def well_formed(self, candidate: Any) -> bool:
        return (isinstance(candidate, dict) and set(candidate) == {"raw", "parsed"} and isinstance(candidate["raw"], str)
                and isinstance(candidate["parsed"], list))

    def environment_note(self, task: Task, budget: int) -> str:
        return "This is a tool-call task: there is no public environment to execute, so `run_public` and `reset` are unavailable."

    def empty_public_request(self) -> dict[str, Any] | None:
        return None

    def public_message(self, request: Any) -> dict[str, Any]:
        raise ValueError("run_public: a tool-call task has no public environment")

    def public_reply(self, reply: dict[str, Any], state_file: str) -> tuple[dict[str, Any], Any]:
        raise ValueError("run_public: a tool-call task has no public environment")


def _run_note(budget: int) -> str:
    return (f"`run_public` executes in the task's public environment and `reset` restores its initial state. "
            f"During generation you have {budget} `run_public` executions in all (tool calls and calls through `vgb_env`); "
            f"past that it answers `BudgetExceeded: run_public`.")


@task_kind
class StateKind(TaskKind):
    """State tasks: the candidate is an interaction record, replayed on the task's environment."""

    name = "state"
    replays_proposed_results = True
    naive_probe = "record"
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
    # A state-task run takes seconds: a round runs max(BATCH_MIN, BATCH_PER_SLOT x slots) candidates at a time.
    BATCH_MIN: ClassVar[int] = 8
    BATCH_PER_SLOT: ClassVar[int] = 4

    def audit_batch_size(self, certified: int, slots: int) -> int:
        return max(self.BATCH_MIN, self.BATCH_PER_SLOT * slots)

    def well_formed(self, candidate: Any) -> bool:
        from verifierbench.sources.interaction import record

        try:
            record.calls(candidate)
        except ValueError:
            return False
        return set(candidate) == {"messages", "final_response"}

    def environment_note(self, task: Task, budget: int) -> str:
        return _run_note(budget)

    def empty_public_request(self) -> dict[str, Any] | None:
        return {"calls": []}

    def public_message(self, request: Any) -> dict[str, Any]:
        calls_only = isinstance(request, dict) and "calls" in request and "messages" not in request
        return {"op": "run_public", **({"calls": request["calls"]} if calls_only else {"record": request})}

    def public_reply(self, reply: dict[str, Any], state_file: str) -> tuple[dict[str, Any], Any]:
        return {"observations": reply["observations"], "state_hash": reply["state_hash"], "state_file": state_file}, reply["state"]


@task_kind
class CodeKind(TaskKind):
    """Code tasks: the candidate is a diff, judged by running the repository's tests on a checkout."""

    name = "code"
    runs_tests = True
    naive_probe = "code"
    audit_failure_modes = (
        "rejecting legitimate changes outside the files the reference fix touches (other modules,\n"
        "   new modules, documentation), restricting how the diff is rendered, and accepting fixes that are incomplete,\n"
        "   break existing behaviour, or edit the tests.")

    def well_formed(self, candidate: Any) -> bool:
        return isinstance(candidate, dict) and set(candidate) == {"diff"} and isinstance(candidate["diff"], str)

    def environment_note(self, task: Task, budget: int) -> str:
        checkout = ("The repository checkout is mounted read-only at /repo, here and in every run of your verifier; "
                    "`run_public` copies it, applies a diff and runs the named tests. "
                    + ("The repository's test environment (its Python and test requirements) is mounted read-only at /env. "
                       if task.environment.get("test_environment") else ""))
        return checkout + _run_note(budget)

    def empty_public_request(self) -> dict[str, Any] | None:
        return {"diff": "", "tests": []}

    def public_message(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            raise ValueError('run_public: a code task takes {"diff": "...", "tests": [...]}')
        return {"op": "run_public", "diff": request.get("diff", ""), "tests": request.get("tests", [])}

    def public_reply(self, reply: dict[str, Any], state_file: str) -> tuple[dict[str, Any], Any]:
        answer = {k: reply.get(k) for k in ("applied", "apply_error", "exit_code", "outcomes")}
        return answer | {"log_tail": str(reply.get("log", ""))[-4000:]}, None  # nothing persists between runs
