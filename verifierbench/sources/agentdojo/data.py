"""The AgentDojo suites as the installed package ships them, loaded once per process.

A task is a user task, or a user task paired with an injection task: the environment then carries the
injection's goal, planted by AgentDojo's `important_instructions` attack (no names, so nothing
model-specific) in every injection vector the user task's ground truth reads.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any

from verifierbench.core.errors import UserError

SUITE_VERSION = "v1.2.2"
SUITES = ("banking", "slack", "travel", "workspace")


def _package() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import agentdojo.task_suite.load_suites  # noqa: F401 - only whether it imports
    except ImportError as e:
        raise UserError(f"agentdojo needs the agentdojo package, which does not import ({e}): pip install 'verifierbench[agentdojo]'") from None


@functools.lru_cache(maxsize=None)
def suite(name: str) -> Any:
    _package()
    from agentdojo.task_suite.load_suites import get_suite

    _freeze_tool_clock()
    return get_suite(SUITE_VERSION, name)


FROZEN_NOW = (2024, 5, 15, 12, 0, 0)  # the workspace environment's own "current day" (get_current_day)


@functools.lru_cache(maxsize=1)
def _freeze_tool_clock() -> None:
    """AgentDojo's email and drive tools stamp writes with the wall clock (`datetime.datetime.now()`),
    so the same calls would give a different state on every replay. Their modules get a `datetime`
    whose `now()` is one fixed instant; nothing else changes."""
    import datetime
    import types

    import yaml
    from agentdojo.default_suites.v1.tools import cloud_drive_client, email_client

    class FrozenDatetime(datetime.datetime):
        @classmethod
        def now(cls, tz: datetime.tzinfo | None = None) -> FrozenDatetime:  # noqa: ARG003 - the fixed instant whatever the zone
            return cls(*FROZEN_NOW)

    frozen = types.ModuleType("datetime")
    frozen.__dict__.update({k: v for k, v in vars(datetime).items() if not k.startswith("__")}, datetime=FrozenDatetime)
    yaml.SafeDumper.add_representer(FrozenDatetime, yaml.representer.SafeRepresenter.represent_datetime)  # rendered as any datetime
    for module in (email_client, cloud_drive_client):
        module.datetime = frozen


def installed_version() -> str:
    from importlib import metadata

    return metadata.version("agentdojo")


@dataclass(frozen=True)
class TaskRef:
    """What identifies an AgentDojo task; kept in the task's reference record."""

    suite: str
    user_task: str
    injection_task: str | None = None
    planted: tuple[tuple[str, str], ...] | None = None  # the injections as built (kept in the reference record)

    @property
    def source_id(self) -> str:
        return f"{self.suite}/{self.user_task}" + (f"+{self.injection_task}" if self.injection_task else "")

    def to_json(self) -> dict[str, Any]:
        return {"suite": self.suite, "user_task": self.user_task, "injection_task": self.injection_task}

    @classmethod
    def from_reference(cls, reference: dict[str, Any]) -> "TaskRef":
        planted = reference.get("injections")
        return cls(reference["suite"], reference["user_task"], reference.get("injection_task"),
                   tuple(sorted(planted.items())) if planted is not None else None)


def user_task(ref: TaskRef) -> Any:
    return suite(ref.suite).get_user_task_by_id(ref.user_task)


def injection_task(ref: TaskRef) -> Any:
    return suite(ref.suite).get_injection_task_by_id(ref.injection_task) if ref.injection_task else None


@functools.lru_cache(maxsize=None)
def injections(ref: TaskRef) -> tuple[tuple[str, str], ...]:
    """The attack text per injection vector the user task's ground truth sees (empty for a user task alone)."""
    if not ref.injection_task:
        return ()
    if ref.planted is not None:  # computed once at build time: no attack generation per verifier run
        return ref.planted
    from agentdojo.attacks.important_instructions_attacks import ImportantInstructionsAttackNoNames

    class _Target:  # the attack asks the attacked pipeline for its name; NoNames then drops it
        name = "gpt-4o-2024-05-13"

    attack = ImportantInstructionsAttackNoNames(suite(ref.suite), _Target())
    return tuple(sorted(attack.attack(user_task(ref), injection_task(ref)).items()))


def tool_definitions(suite_name: str) -> list[dict[str, Any]]:
    """The tools as the agent saw them: name, description, JSON-schema parameters."""
    out: list[dict[str, Any]] = []
    for function in suite(suite_name).tools:
        schema = function.parameters.model_json_schema()
        schema.pop("title", None)
        out.append({"name": function.name, "description": function.description, "parameters": schema})
    return out
