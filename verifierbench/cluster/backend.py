"""One option for every place hidden cases run (judge, screen, the hidden_cases scorer): which backend runs them.

`local` is the executor in this process (the default, unchanged). `ray` sends (verifier, task, round) chunks (one
case for code tasks) to one actor per node of a Ray cluster; see cluster/ray_judge.py. Callers hand over case runs,
not executor jobs, so a backend can rebuild each job where it runs (a state task's service, a code task's checkout).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol, Union, runtime_checkable

from verifierbench.core.errors import UserError
from verifierbench.executor import Executor, Limits, Outcome
from verifierbench.executor.staging import FrozenVerifier
from verifierbench.public_env.jobs import case_job
from verifierbench.core.schema import Task

BACKENDS = ("local", "ray")
BACKEND_ENV = "VERIFIERBENCH_BACKEND"  # local | ray, when no option says
RAY_ADDRESS_ENV = "VERIFIERBENCH_RAY_ADDRESS"  # the cluster's GCS address (host:port), when no option says


@dataclass(frozen=True)
class CaseRun:
    """One verifier run on one hidden case (or on a candidate judged like one)."""

    task: Task
    verifier: FrozenVerifier
    candidate: Any
    key: str  # the outcome's key: the case id


@runtime_checkable
class CaseRunner(Protocol):
    """A backend that takes case runs itself (the Ray backend); a plain Executor gets executor jobs."""

    slots: int

    def run_cases(self, runs: Iterable[CaseRun]) -> Iterator[Outcome]: ...

    def freeze(self, verifier: "str | Path | FrozenVerifier") -> FrozenVerifier: ...

    def freeze_copy(self, verifier: "str | Path") -> FrozenVerifier: ...

    def close(self) -> None: ...

    def __enter__(self) -> "CaseRunner": ...

    def __exit__(self, *exc: object) -> None: ...


Backend = Union[Executor, CaseRunner]  # what judging is handed: the local executor or a cluster


def run_cases(executor: Backend, runs: Iterable[CaseRun]) -> Iterator[Outcome]:
    """Outcomes of the runs in completion order, on whichever backend `executor` is."""
    if isinstance(executor, CaseRunner):
        return executor.run_cases(runs)
    return executor.run_batch(case_job(r.task, r.verifier, r.candidate, r.key) for r in runs)


@dataclass(frozen=True)
class ExecutorConfig:
    """How every node makes its executor: the caller's settings, so a case is judged the same wherever it runs.
    Paths (libraries, site-packages, interpreter) must exist on every node: the same install everywhere."""

    limits: dict = field(default_factory=lambda: asdict(Limits()))
    isolation: str = "auto"
    allow_unsandboxed: bool = False
    slots: int | None = None  # None: the node's CPU count
    libraries: tuple[tuple[str, str], ...] = ()
    site_packages: tuple[str, ...] = ()
    warm: bool | None = None
    trusted_preload: bool = False

    def make(self) -> Executor:
        return Executor(Limits(**self.limits), isolation=self.isolation, allow_unsandboxed=self.allow_unsandboxed,
                        slots=self.slots, libraries=tuple(tuple(lib) for lib in self.libraries),  # type: ignore[misc]
                        site_packages=tuple(self.site_packages), warm=self.warm, trusted_preload=self.trusted_preload)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "ExecutorConfig":
        return cls(**{**data, "libraries": tuple(tuple(lib) for lib in data["libraries"]),
                      "site_packages": tuple(data["site_packages"])})


def resolve_backend(backend: str | None, ray_address: str | None) -> tuple[str, str | None]:
    """The backend and Ray address from the option, else the environment, else `local`."""
    name = backend or os.environ.get(BACKEND_ENV) or "local"
    if name not in BACKENDS:
        raise UserError(f"unknown judging backend {name!r} (choose from {', '.join(BACKENDS)})")
    address = ray_address or os.environ.get(RAY_ADDRESS_ENV) or None
    if name == "ray" and not address:
        raise UserError(f"the ray backend needs a cluster address: --ray-address HOST:PORT (or {RAY_ADDRESS_ENV})")
    return name, address
