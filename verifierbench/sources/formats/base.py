"""The candidate format interface: what one candidate format means to the rest of the harness.

A format is what a verifier receives as its candidate (schema.CandidateFormat; docs/protocol.md). Its object owns
what follows from that shape: the example the generating agent is shown, whether a candidate is well-formed, the
`run_public` messages of a format whose tasks may have a public environment (`PublicRun`), how often its verifiers
are judged and screened, what the LLM auditors are told, and the format's naive checks, mutation operators and
deterministic auditor. A source declares its format (`Source.format`); a task's type is its format's `task_type`.

Standard library only at module level, like every source module (sources/base.py): an exported reference verifier
imports the source declarations inside the sandbox. The pieces that need more (the mutation operators, the auditor,
the naive checks) are imported inside the methods that return them.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Mapping, Protocol, TypeVar

if TYPE_CHECKING:
    from verifierbench.core.proposals import Proposal
    from verifierbench.core.schema import Task as SuiteTask

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")
TEST_RUNS_IN_FLIGHT = 4  # a format that runs tests: its runs at once (the executor caps them at its slots)
# (reference record, hack candidate) -> the naive checks it fools (screening's C7)
NaiveChecks = Callable[[dict[str, Any], Any], list[str]]
# (task, round index, seed) -> the deterministic auditor's proposals for that round
Auditor = Callable[["SuiteTask", int, int], list["Proposal"]]


class Task(Protocol):
    """What a format reads of a suite task (schema.Task; a protocol, so this module imports nothing of the package)."""

    @property
    def environment(self) -> dict[str, Any]: ...


class PublicRun(ABC):
    """The `run_public` messages of a format whose tasks may have a public environment (a source serving one)."""

    @abstractmethod
    def note(self, task: Task) -> str:
        """What the generating agent is told about the environment beyond the budget (a prompt sentence, or "").

        Args:
            task: a task of this format whose source serves a public environment.

        Returns:
            The sentence, with a trailing space when not empty.
        """

    @abstractmethod
    def empty_request(self) -> dict[str, Any]:
        """The request that only looks at the initial environment (the model-free policies' first look).

        Returns:
            The request, as the agent would write it.
        """

    @abstractmethod
    def message(self, request: Any) -> dict[str, Any]:
        """The message to the public service for a request the agent wrote.

        Args:
            request: the agent's request, parsed from JSON.

        Returns:
            The service message (`op` run_public).

        Raises:
            ValueError: the request cannot be read (the message says what is expected).
        """

    @abstractmethod
    def reply(self, reply: dict[str, Any], state_file: str) -> tuple[dict[str, Any], Any]:
        """What the `run_public` tool answers for the service's reply, and the state it writes to `state_file`.

        Args:
            reply: the public service's reply (no `error`).
            state_file: where the tool writes the resulting state in the sandbox.

        Returns:
            (the tool's answer, the state to write or None).
        """


class Format(ABC):
    """One candidate format. Subclasses set the class attributes and implement `well_formed`; `register_format`
    registers one instance under its `name`.

    Class attributes:
        name: the `CandidateFormat` value (a task's `candidate_format`).
        task_type: the `TaskType` value of its tasks: derived from the format, declared nowhere else.
        example: a candidate on a made-up tool, shown to the generating agent (shape only, never a hidden case).
        public_run: its `run_public` messages; None: its tasks never have a public environment.
        repeat_runs: how many times screening's C2 decides every case in all (the first run included).
        runs_tests: whether a decision runs the repository's tests, seconds to minutes in a sandbox each: reference
            decisions then run a few at a time, a cluster schedules each case on its own, a verifier run gets a
            loopback interface, and its time limit is the task's own (its source's `case_timeout`), which the
            generating agent is told.
        replays_proposed_results: whether an auditor's proposed candidate may leave tool results out, the audit
            filling in a replay's.
        audit_failure_modes: the verifier failure modes the LLM auditors are told to look for (a prompt paragraph).
        audit_format_note: what the LLM auditors are told about writing candidates beyond the format ("" for none).
        exact_match_field: the candidate field an exact-match verifier compares with the gold's (screening's C5
            baseline and `export-verifiers exact-match`); None: the whole candidate, as canonical JSON.
    """

    name: ClassVar[str]
    task_type: ClassVar[str]
    example: ClassVar[dict[str, Any]]
    public_run: ClassVar[PublicRun | None] = None
    repeat_runs: ClassVar[int] = 3
    runs_tests: ClassVar[bool] = False
    replays_proposed_results: ClassVar[bool] = False
    audit_failure_modes: ClassVar[str]
    audit_format_note: ClassVar[str] = ""
    exact_match_field: ClassVar[str | None] = None

    @abstractmethod
    def well_formed(self, candidate: Any) -> bool:
        """Whether `candidate` has the shape this format promises (an auditor may write anything).

        Args:
            candidate: a proposed candidate, any JSON value.

        Returns:
            True when it is well-formed.
        """

    def exact_match_text(self, candidate: Any) -> str:
        """What an exact-match verifier compares: `exact_match_field`'s value as JSON, else the whole candidate as
        canonical JSON (the exported exact-match verifier computes the same in the sandbox).

        Args:
            candidate: a candidate of this format.

        Returns:
            The text two candidates must share to be an exact match.
        """
        field = self.exact_match_field
        if field is not None and isinstance(candidate, dict) and field in candidate:
            return json.dumps(candidate[field])
        return json.dumps(candidate, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

    def run_each(self, run: Callable[[_Item], _Result], items: Iterable[_Item]) -> list[_Result]:
        """`run` over `items`, in order: reference decisions (or test runs) of this format's candidates, a few at a
        time where each runs the tests (the build's case runs, screening's C1 and C2, the audit's certification).

        Args:
            run: one item's decision or run.
            items: the candidates, cases or proposals.

        Returns:
            `run`'s results, in the order of `items`.
        """
        if not self.runs_tests:
            return [run(item) for item in items]
        with ThreadPoolExecutor(TEST_RUNS_IN_FLIGHT) as pool:
            return list(pool.map(run, items))

    def judge_rounds(self, requested: int) -> int:
        """How many times a generated verifier is judged on the hidden cases.

        Args:
            requested: the rounds the run asks for (at least 1).

        Returns:
            The rounds for a task of this format.
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

    def naive_checks(self) -> NaiveChecks | None:
        """Screening's C7 naive verifiers for this format's hack cases (the check a hack targets made, the rest trusted).

        Returns:
            The function naming the naive checks a hack fools; None: the format has none (its source may).
        """
        return None

    def mutation_operators(self) -> tuple[Any, ...]:
        """Screening's C6 operators for this format's references (protocol: `probe`, `applicable`, `detects`;
        screening/checks.py).

        Returns:
            The operators; () when the format has none (its source may).
        """
        return ()

    def auditor(self) -> Auditor | None:
        """The deterministic auditor for this format's tasks.

        Returns:
            The function making a round's proposals; None: the format has none (its source may).
        """
        return None


_REGISTERED: dict[str, Format] = {}
FORMATS: Mapping[str, Format] = MappingProxyType(_REGISTERED)  # name -> format, read-only, kept current
F = TypeVar("F", bound=Format)


def register_format(format: F) -> F:
    """Registers a format under its `name`.

    Args:
        format: an instance of a `Format` subclass; its `name` is not registered yet.

    Returns:
        The format, unchanged.

    Raises:
        ValueError: another format of that name is registered (its module imported twice registers the same class).
    """
    known = _REGISTERED.get(format.name)
    if known is not None and type(known).__qualname__ != type(format).__qualname__:
        raise ValueError(f"candidate format {format.name!r} is registered twice")
    _REGISTERED[format.name] = format
    return format
