"""What the interaction-record sources (tau2, AgentDojo) share as sources: a public environment that replays tool
calls, the gold interaction record the build makes, and the build's case generators with the audit's wider caps,
which the interaction record's naive checks, mutation operators and auditor read (sources/formats/
interaction_record.py). Such a source subclasses `InteractionSource` and declares `format = INTERACTION_RECORD`.

The base finds the source's code by one layout of its folder (the folder of its source.py), so a source declares
only what differs (its name, upstream, the modules its decision imports lazily, the audit's caps):

| module of the folder | function | the method it gives |
|---|---|---|
| `build.py` | `select_tasks(seed, paths, say)` | `select` |
| `reference.py` | `decide(reference, candidate)`, `warm_up(reference)` | `decide`, `warm_up`; `preload` names it first |
| `environment.py` | `environment_for(reference)`, a `PublicEnvironment` | `environment`, `replay` (through its `replay`) |
| `cases.py` | `gold_record(task)`, `generate(task, rng, caps)` | `gold_record`, `audit_drafts` (`task`: `case_task`) |

Each function is imported when its method is first called (a method body's import, as every source module's), so
this module stays standard library only at the top (sources/base.py)."""

from __future__ import annotations

import importlib
import random
from typing import TYPE_CHECKING, Any, Callable, ClassVar, cast

from verifierbench.sources.base import MissingPart, Reference, Source, SourcePaths

if TYPE_CHECKING:
    from verifierbench.construction.drafts import Draft
    from verifierbench.construction.selection import Selection
    from verifierbench.sources.interaction.environment import PublicEnvironment


class InteractionSource(Source):
    """A source of state tasks whose candidates are interaction records, replayed on the task's environment.

    Class attributes (beside `Source`'s):
        upstream_modules: the upstream modules its decision imports lazily (`preload`, after the decision's module).
        audit_caps: the case generators' caps for the state auditor, wider than the build's.
    """

    shares = "interaction"
    upstream_modules: ClassVar[tuple[str, ...]] = ()
    audit_caps: ClassVar[dict[str, int]] = {}

    def _own(self, module: str, function: str) -> Callable[..., Any]:
        """`function` of `module` in the source's own folder (the module doc's table), imported now."""
        package = type(self).__module__.rpartition(".")[0]
        found: Callable[..., Any] = getattr(importlib.import_module(f"{package}.{module}"), function)
        return found

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        return cast("Selection", self._own("build", "select_tasks")(seed, paths, say))

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        return cast("tuple[bool, str]", self._own("reference", "decide")(reference, candidate))

    def preload(self) -> tuple[str, ...]:
        return (f"{type(self).__module__.rpartition('.')[0]}.reference", *self.upstream_modules)

    def warm_up(self, reference: Reference) -> None:
        self._own("reference", "warm_up")(reference)

    def environment(self, reference: Reference) -> PublicEnvironment:
        """The host-side public environment `run_public` serves for this task (sources/base.py `Source.environment`)."""
        return cast("PublicEnvironment", self._own("environment", "environment_for")(reference))

    def case_task(self, reference: Reference) -> Any:
        """What the folder's case generators (`cases.gold_record`, `cases.generate`) take for a task. Default: its
        reference record.

        Args:
            reference: the task's reference record.
        """
        return reference

    def gold_record(self, reference: Reference) -> dict[str, Any]:
        """A state task's gold interaction record, as the build makes it (C7's naive views, the state auditor).

        Args:
            reference: the task's reference record.
        """
        return cast("dict[str, Any]", self._own("cases", "gold_record")(self.case_task(reference)))

    def replay(self, reference: Reference, calls: list[dict[str, Any]]) -> tuple[list[Any], str]:
        """The calls replayed on a fresh copy of the task's environment.

        Args:
            reference: the task's reference record.
            calls: [{"name", "arguments", "role"}] in order.

        Returns:
            (the result a record shows for each call, the public state's hash after them).
        """
        from verifierbench.sources.interaction.environment import observed_result

        replayed = self.environment(reference).replay(calls)
        return [observed_result(o) for o in replayed.observations], replayed.state_hash

    def replay_results(self, reference: Reference, calls: list[dict[str, Any]]) -> list[Any]:
        """What the environment returns for each call, replayed from the initial state (C7's "recorded results
        trusted" view). Default: the results of `replay`.

        Args:
            reference: the task's reference record.
            calls: [{"name", "arguments", "role"}] in order.
        """
        return self.replay(reference, calls)[0]

    def audit_drafts(self, reference: Reference, rng: random.Random) -> list[Draft]:
        """The build's case generators with the audit's wider caps (the state auditor's fresh cases).

        Args:
            reference: the task's reference record.
            rng: the round's random source.
        """
        return cast("list[Draft]", self._own("cases", "generate")(self.case_task(reference), rng, self.audit_caps))


def interaction_source(reference: Reference) -> InteractionSource:
    """The source of an interaction-record task, by its reference record.

    Args:
        reference: a task's reference record.

    Raises:
        ValueError: the record names no known source.
        MissingPart: its source makes no interaction records.
    """
    # Imported here: the registry imports every source module, whose class subclasses this module's base.
    from verifierbench.sources import registry

    found = registry.of(reference)
    if not isinstance(found, InteractionSource):
        raise MissingPart(f"source {found.name} has no interaction records")
    return found
