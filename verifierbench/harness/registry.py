"""Every generation harness (`-T harness=`): one typed `Harness` record each, registered by the module that declares it.

The built-in harnesses are declared in harness/built_in.py; out-of-tree ones in the importable modules named,
comma-separated, in $VERIFIERBENCH_HARNESSES (docs/adding-a-harness.md), registered after them in the order named.
The task's `-T harness` choices, its checks and log metadata, the paper's configurations, `verifierbench doctor` and
README.md's harness table (scripts/harnesses_table.py) all read the records here, as the sources' registry serves
`--source`. This module imports nothing heavy at its top: the records' solvers are built only when a task runs.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from verifierbench.core.errors import UserError
# The model transports, re-exported: the records name them (harness/transports.py, importable without the registry).
from verifierbench.harness.transports import IN_PROCESS as IN_PROCESS
from verifierbench.harness.transports import SANDBOX_BRIDGE as SANDBOX_BRIDGE
from verifierbench.harness.transports import TRANSPORT_KEY as TRANSPORT_KEY
from verifierbench.harness.transports import UNIX_SOCKET as UNIX_SOCKET

if TYPE_CHECKING:
    from inspect_ai.solver import Solver

BUILT_IN = ("verifierbench.harness.built_in",)
EXTRA_HARNESSES_ENV = "VERIFIERBENCH_HARNESSES"
SANDBOXES = ("vgb", "docker", "k8s")  # sandboxes/spec.py's SandboxName, in its order


@dataclass(frozen=True)
class Harness:
    """One harness: what it is, where it runs, how its model is reached and how its solver is made.

    `transports` maps each sandbox the harness runs in to its model transport there, so `sandboxes` is its keys;
    `other_transports` the transports `-T transport` may choose instead, per sandbox.
    `problem(sandbox)` names what this machine lacks to run it in that sandbox (None: nothing is missing); the sandbox's
    own prerequisites (a docker executable) are checked apart, for every harness.
    """

    name: str  # the `-T harness` value
    display_name: str  # the paper's name (configurations.py's labels), or a short description for ours
    solver: Callable[[int], Solver]  # run_public budget -> the harness's solver
    transports: Mapping[str, str]
    version: str | None = None  # the pinned CLI's, the paper's (App. E); None: the harness is the task's own code
    executable: str | None = None  # the CLI the harness starts in the sandbox; None: no CLI
    runtime: str | None = None  # what runs the executable when it is a script (node), as the connection check traces it
    package: str | None = None  # the exact spec scripts/harness-clis.sh fetches (npm or pip), pinning `version`
    install: str = "part of verifierbench"  # how the CLI gets into the sandbox, in words
    image_paths: tuple[str, ...] = ()  # what of the harness image the CLI needs (sandboxes/cli_overlay.py copies them)
    message_limit: int | None = None  # the task's message limit when `-T message_limit` is unset
    has_tools: bool = True  # whether the model works with tools (the prompt says how to reach the task's files)
    # Model labels (configurations.MODELS) to run this harness with, as configurations beyond the paper's tables (whose
    # labels name a harness by its display_name): an added harness's own.
    configurations: tuple[str, ...] = ()
    problem: Callable[[str], str | None] = field(default=lambda sandbox: None)
    other_transports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.transports) - set(SANDBOXES)
        if not self.transports or unknown:
            raise ValueError(f"harness {self.name}: transports must name sandboxes among {SANDBOXES}, not {sorted(unknown)}")
        if not set(self.other_transports) <= set(self.transports):
            raise ValueError(f"harness {self.name}: other_transports must name sandboxes it runs in ({self.sandboxes})")

    def transport_choices(self, sandbox: str) -> tuple[str, ...]:
        """The transports it can use in `sandbox`: its default there first."""
        return (self.transports[sandbox], *self.other_transports.get(sandbox, ()))

    @property
    def sandboxes(self) -> tuple[str, ...]:
        return tuple(s for s in SANDBOXES if s in self.transports)

    @property
    def runs_cli(self) -> bool:
        """Whether a CLI runs in the sandbox: under docker it needs the harness image (scripts/harness-clis.sh)."""
        return self.executable is not None

    @property
    def traced_executable(self) -> str | None:
        """The executable the connection check wraps (harness/connection_trace.py)."""
        return self.runtime or self.executable

    def logged_version(self, task_version: str) -> str:
        return self.version or f"verifierbench task {task_version}"


_REGISTERED: dict[str, Harness] = {}


def register_harness(record: Harness) -> Harness:
    """Registers a harness under its name; the same name twice from two modules is refused.

    Raises:
        ValueError: another harness has that name.
    """
    known = _REGISTERED.get(record.name)
    if known is not None and known.solver.__module__ != record.solver.__module__:
        raise ValueError(f"harness {record.name!r} is registered twice ({known.solver.__module__}, {record.solver.__module__})")
    _REGISTERED[record.name] = record
    return record


def harness(name: str, display_name: str, transports: Mapping[str, str], **fields: Any) -> Callable[[Callable[[int], Solver]], Callable[[int], Solver]]:
    """Decorator of a solver factory (run_public budget -> Solver), registering it as harness `name`, as Inspect's
    `@solver` registers a solver; `fields` are the other `Harness` fields.

    Args:
        name: the `-T harness` value.
        display_name: the harness's name in tables.
        transports: sandbox -> model transport.
    """
    def register(factory: Callable[[int], Solver]) -> Callable[[int], Solver]:
        register_harness(Harness(name=name, display_name=display_name, solver=factory, transports=transports, **fields))
        return factory

    return register


def registered() -> Mapping[str, Harness]:
    """Every harness registered so far, by name, in registration order (read-only, kept current)."""
    return MappingProxyType(_REGISTERED)


def _load() -> dict[str, Harness]:
    extra = [m.strip() for m in os.environ.get(EXTRA_HARNESSES_ENV, "").split(",") if m.strip()]
    for module in BUILT_IN:
        importlib.import_module(module)
    for module in extra:
        before = set(_REGISTERED)
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - whatever the module raises, the user hears it in one line
            _refuse(f"cannot import harness module {module!r} ({type(exc).__name__}: {exc})")
        if set(_REGISTERED) == before and not any(h.solver.__module__ == module for h in _REGISTERED.values()):
            _refuse(f"harness module {module!r} registers no harness (@harness or register_harness)")
    return dict(_REGISTERED)


def _refuse(problem: str) -> None:
    """A bad $VERIFIERBENCH_HARNESSES in one line, ending the process (as sources/registry.py's _refuse, for the same
    reason: it is read while Inspect imports the package)."""
    raise SystemExit(f"verifierbench: error: ${EXTRA_HARNESSES_ENV}: {problem}")


HARNESSES = _load()
NAMES = tuple(HARNESSES)


def get(name: str) -> Harness:
    """The harness `name`.

    Raises:
        UserError: no harness has that name.
    """
    found = HARNESSES.get(name) or _REGISTERED.get(name)
    if found is None:
        raise UserError(f"unknown harness {name!r} (choose from {', '.join(NAMES)})")
    return found
