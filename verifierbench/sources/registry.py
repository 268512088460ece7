"""Every source, one line each, and dispatch to their hooks (the only place that branches on a source).

The rest of the harness asks here, by source name or by the `checker` a task's reference record names, for a
source's selection, reference decision, public environment, read-only inputs and answer key. A hook is imported
on first use, so this module and the sources' declarations stay standard-library only.
"""

from __future__ import annotations

import hashlib
import importlib
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from verifierbench.errors import UserError
from verifierbench.sources.base import Source, SourcePaths

if TYPE_CHECKING:
    from verifierbench.schema import Task
    from verifierbench.sources.interaction.environment import ServedEnvironment
    from verifierbench.construction.selection import Selection
    from verifierbench.sources.toolcall.spec import ToolCallSpec

# name -> the module declaring its SOURCE; the order is the build's order (and the suite's task order).
REGISTRY = {
    "bfcl": "verifierbench.sources.bfcl.source",
    "acebench": "verifierbench.sources.acebench.source",
    "tau2": "verifierbench.sources.tau2.source",
    "agentdojo": "verifierbench.sources.agentdojo.source",
    "swebench": "verifierbench.sources.swebench.source",
    "appworld": "verifierbench.sources.appworld.source",
}
NAMES = tuple(REGISTRY)
SOURCES_DIR = Path(__file__).resolve().parent


@cache
def source(name: str) -> Source:
    """The declared source `name`.

    Args:
        name: a source name (`--source`).
    """
    if name not in REGISTRY:
        raise UserError(f"unknown source {name!r} (choose from {', '.join(NAMES)})")
    declared = importlib.import_module(REGISTRY[name]).SOURCE
    if declared.name != name:
        raise ValueError(f"{REGISTRY[name]} declares source {declared.name!r}, registered as {name!r}")
    return declared


def built_by_default() -> list[str]:
    """The sources `build` makes when none is named, in registry order."""
    return [name for name in NAMES if source(name).built_by_default]


def of(reference: dict) -> Source:
    """The source of a task, by the checker its reference record names.

    Args:
        reference: a task's reference record.
    """
    checker = reference.get("checker")
    if checker not in REGISTRY:
        raise ValueError(f"unknown checker {checker!r}")
    return source(checker)


@cache
def _resolve(target: str) -> Any:
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)


def hook(declared: Source, part: str) -> Any:
    """A source's hook `part` (a field of `Source`): the named function (or tuple), None when the source has none.

    Args:
        declared: the source.
        part: the hook's field name, such as "environment".
    """
    target = getattr(declared, part)
    return _resolve(target) if target else None


def _required(reference: dict, part: str) -> Any:
    declared = of(reference)
    function = hook(declared, part)
    if function is None:
        raise ValueError(f"source {declared.name} has no {part.replace('_', ' ')}")
    return function


def select(name: str, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """One source's seeded selection, cases and C1 replay (`build`); UserError when its data is missing."""
    function = hook(source(name), "select")
    assert function is not None  # every source declares select
    return function(seed, paths, say)


def decide(reference: dict, candidate: Any, reuse_runs: bool = False) -> tuple[bool, str]:
    """(PASS?, reason) for one candidate against one task's reference record.

    Args:
        reference: the task's reference record.
        candidate: the candidate.
        reuse_runs: the source's `decide_reusing` hook when it has one (code tasks: a recorded test run of identical
            inputs decides; screening's C1), else `decide`; False always decides afresh (C2's repeats).
    """
    if reuse_runs:
        reusing = hook(of(reference), "decide_reusing")
        if reusing is not None:
            return reusing(reference, candidate)
    return _required(reference, "decide")(reference, candidate)


def warm_up(reference: dict) -> None:
    """Loads a task's reference data into its source's caches (its `warm_up` hook); nothing when it has none."""
    function = hook(of(reference), "warm_up")
    if function is not None:
        function(reference)


def has_environment(reference: dict) -> bool:
    return reference.get("checker") in REGISTRY and of(reference).environment is not None


def environment_for(reference: dict) -> ServedEnvironment:
    return _required(reference, "environment")(reference)


def read_only_inputs(reference: dict) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) every run for this task sees read-only; () for most sources."""
    function = hook(of(reference), "read_only_inputs") if reference.get("checker") in REGISTRY else None
    return function(reference) if function else ()


def case_timeout(reference: dict) -> float | None:
    """Seconds one verifier run on a case of this task may take; None: the executor's own limit."""
    function = hook(of(reference), "case_timeout") if reference.get("checker") in REGISTRY else None
    return float(function(reference)) if function else None


def answer_key(reference: dict) -> ToolCallSpec:
    return _required(reference, "answer_key")(reference)


def check_calls(reference: dict, calls: list) -> tuple[bool, str]:
    return _required(reference, "check_calls")(reference, calls)


def expected_calls(reference: dict) -> list[dict]:
    return _required(reference, "expected_calls")(reference)


def mutation_operators(reference: dict) -> tuple:
    """The C6 operators screening applies to this task's reference; () when its source declares none."""
    declared = of(reference)
    return hook(declared, "mutation_operators") or ()


def audit_generators(reference: dict) -> Callable[..., list] | None:
    """`(task, round, seed) -> [Proposal]`: the deterministic auditor's generators for this task, None if none."""
    return hook(of(reference), "audit_generators") if reference.get("checker") in REGISTRY else None



def docker_compose(task: Task) -> Path | None:
    """The task's own Docker compose file (`-T sandbox=docker`), None when its source uses the default sandbox.

    Args:
        task: a suite task.
    """
    function = hook(source(task.source.value), "docker_compose")
    return function(task) if function else None


@cache
def code_version(name: str) -> str:
    """sha256 over a source's reference code (its shared folder's too) and its upstream release: what decides.

    Args:
        name: a source name.
    """
    declared = source(name)
    digest = hashlib.sha256()
    folders = [SOURCES_DIR / declared.shares, SOURCES_DIR / name] if declared.shares else [SOURCES_DIR / name]
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):  # subfolders too: the code runner of code tasks lives in one
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    if declared.upstream:
        try:
            digest.update(f"{declared.upstream}=={metadata.version(declared.upstream)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{declared.upstream} missing".encode())
    return f"{name}-ref:" + digest.hexdigest()[:16]
