"""What the interaction-record sources (tau2, AgentDojo) share as sources: a public environment that replays tool
calls, the gold interaction record the build makes, and the build's case generators with the audit's wider caps,
which the interaction record's naive checks, mutation operators and auditor read (sources/formats/
interaction_record.py). Such a source subclasses `InteractionSource` and declares `format = INTERACTION_RECORD`.
Standard library only at the top, like every source module (sources/base.py)."""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from verifierbench.sources import registry
from verifierbench.sources.base import MissingPart, Reference, Source

if TYPE_CHECKING:
    from verifierbench.construction.drafts import Draft
    from verifierbench.sources.interaction.environment import ServedEnvironment


class InteractionSource(Source):
    """A source of state tasks whose candidates are interaction records, replayed on the task's environment."""

    shares = "interaction"

    @abstractmethod
    def environment(self, reference: Reference) -> ServedEnvironment:
        """The host-side public environment `run_public` serves for this task (sources/base.py `Source.environment`)."""

    @abstractmethod
    def gold_record(self, reference: Reference) -> dict[str, Any]:
        """A state task's gold interaction record, as the build makes it (C7's naive views, the state auditor).

        Args:
            reference: the task's reference record.
        """

    @abstractmethod
    def replay(self, reference: Reference, calls: list[dict[str, Any]]) -> tuple[list[Any], str]:
        """The calls replayed on a fresh copy of the task's environment.

        Args:
            reference: the task's reference record.
            calls: [{"name", "arguments", "role"}] in order.

        Returns:
            (the result a record shows for each call, the public state's hash after them).
        """

    def replay_results(self, reference: Reference, calls: list[dict[str, Any]]) -> list[Any]:
        """What the environment returns for each call, replayed from the initial state (C7's "recorded results
        trusted" view). Default: the results of `replay`.

        Args:
            reference: the task's reference record.
            calls: [{"name", "arguments", "role"}] in order.
        """
        return self.replay(reference, calls)[0]

    @abstractmethod
    def audit_drafts(self, reference: Reference, rng: random.Random) -> list[Draft]:
        """The build's case generators with the audit's wider caps (the state auditor's fresh cases).

        Args:
            reference: the task's reference record.
            rng: the round's random source.
        """


def interaction_source(reference: Reference) -> InteractionSource:
    """The source of an interaction-record task, by its reference record.

    Args:
        reference: a task's reference record.

    Raises:
        ValueError: the record names no known source.
        MissingPart: its source makes no interaction records.
    """
    found = registry.of(reference)
    if not isinstance(found, InteractionSource):
        raise MissingPart(f"source {found.name} has no interaction records")
    return found
