"""The source interface: what one upstream benchmark gives the rest of the harness.

A source is a subclass of `Source` in its own folder (`sources/<name>/source.py`), registered with
`@register_source`; `sources/registry.py` lists the built-in sources' modules (and reads out-of-tree ones from
$VERIFIERBENCH_SOURCES). The rest of the harness calls a source's typed methods, never its modules.

A source module imports nothing but this module and its format (sources/formats/) at its top, and every method imports the source's own modules
inside its body: an exported reference verifier runs `decide` inside the sandbox with the standard library only,
so declaring a source must not import its build (pydantic, datasets) or its upstream packages.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, TypeVar

from verifierbench.sources.formats.base import Auditor, Format, NaiveChecks

if TYPE_CHECKING:
    from verifierbench.core.schema import Task
    from verifierbench.sources.interaction.environment import ServedEnvironment
    from verifierbench.construction.selection import Selection

# A task's reference record (JSON): what its source's reference verifier reads; its "checker" is the source's name.
Reference = dict[str, Any]
SOURCES_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BuildOption:
    """A `verifierbench build` option a source declares for where its data is (`Source.build_options`): the CLI adds
    `--<flag>`, and the source reads the value from its `SourcePaths` by `dest`."""

    flag: str  # without the dashes, e.g. "acebench-dir"
    help: str
    metavar: str = "DIR"

    @property
    def dest(self) -> str:
        return self.flag.replace("-", "_")


@dataclass(frozen=True)
class SourcePaths:
    """What a build was told about where the sources' data is: each source's declared options (`BuildOption`, by
    `dest`; a missing or None value means the source's default or environment variable), and where code tasks'
    checkouts go (build_suite: <suite>/checkouts)."""

    options: Mapping[str, str | None] = field(default_factory=dict)
    checkouts: Path | None = None

    def get(self, dest: str) -> str | None:
        return self.options.get(dest)


class MissingPart(ValueError):
    """A source was asked for a part it does not have (an answer key of a state source, say)."""


class NoProbe(Exception):
    """A task lacks what its mutation operators are probed with (`mutation_operators`; C6 then fails with this reason)."""


class Source(ABC):
    """One upstream benchmark: its construction, its reference decision, and what the rest of the harness reads.

    `select`, `decide` and `format` are required; every other part has a default meaning "this source has none" (an
    empty tuple, None, or `MissingPart` for a part a caller needs) or, for the screening and audit pieces, "its
    format's". What only one family of sources has is on its base class: `ToolCallSource` (sources/toolcall/base.py:
    the answer key) and `InteractionSource` (sources/interaction/base.py: gold records, replay, audit drafts).

    Class attributes:
        name: the source's name, as in `--source`, `Task.source` and its reference records' `checker`.
        format: its tasks' candidate format (sources/formats/), which gives their task type; its build makes every
            task with it (`Task.create(format=...)`, checked by the suite build).
        built_by_default: False for a source built only when named (`--source`), such as code tasks.
        build_options: its `verifierbench build` options saying where its data is (`select` reads them from `paths`).
        shares: a shared folder under sources/ whose code is part of this source's reference ("toolcall").
        upstream: the distribution whose release decides with our code (its version is in the reference version).
    """

    name: ClassVar[str]
    format: ClassVar[Format]
    built_by_default: ClassVar[bool] = True
    build_options: ClassVar[tuple[BuildOption, ...]] = ()
    shares: ClassVar[str | None] = None
    upstream: ClassVar[str | None] = None

    # ---- construction -------------------------------------------------------------------------------------------

    @abstractmethod
    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        """Seeded selection of this source's tasks, their cases and their C1 replay (`build`).

        Args:
            seed: the build's seed.
            paths: where data without an installable package lives.
            say: prints one progress line.

        Returns:
            The selected tasks with their cases, and the upstream items left out with their reason codes.

        Raises:
            UserError: the source's data is missing (the build reports the source unavailable in one line).
        """

    # ---- the reference decision -----------------------------------------------------------------------------------

    @abstractmethod
    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        """The reference verifier's decision on one candidate: our code around the source's own evaluator.

        Runs inside an exported verifier's sandbox: standard library plus the upstream package only.

        Args:
            reference: the task's reference record.
            candidate: the candidate, in the task's candidate format.

        Returns:
            (PASS?, reason).
        """

    def decide_reusing(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        """The same decision, allowed to reuse a recorded run of identical inputs (code tasks' test-run cache);
        screening's C1 calls it, C2 never. Default: `decide`.

        Args:
            reference: the task's reference record.
            candidate: the candidate.

        Returns:
            (PASS?, reason).
        """
        return self.decide(reference, candidate)

    def preload(self) -> tuple[str, ...]:
        """Modules the reference imports lazily, the decision's own module first: an exported reference's trusted
        warm sandbox imports them once before forking its cases (export.py, executor/warm.py).

        Returns:
            Importable module names; () imports nothing ahead.
        """
        return ()

    def reference_packages(self) -> tuple[str, ...]:
        """Upstream packages an exported reference imports, each mounted alone into the sandbox under
        `judge --reference-libs` (BFCL's checker, which needs none of its dependencies).

        Returns:
            Importable top-level package names; () for none.
        """
        return ()

    def reference_site_packages(self) -> tuple[str, ...]:
        """Upstream packages an exported reference imports with their dependencies: the site-packages holding each
        is mounted whole under `judge --reference-libs` (AgentDojo).

        Returns:
            Importable package names; () for none.
        """
        return ()

    def warm_up(self, reference: Reference) -> None:
        """Loads what deciding on this task reads (its data, environment, expected state) into the reference's own
        caches; a trusted warm sandbox calls it once before forking its cases. Default: nothing to load.

        Args:
            reference: the task's reference record.
        """
        return None

    def code_folders(self) -> tuple[Path, ...]:
        """The folders whose Python files make this source's reference version (with its upstream release):
        screening redoes a task's records when one changes.

        Returns:
            The shared folder (`shares`) if any, then the folder of the module defining this class.
        """
        module_file = sys.modules[type(self).__module__].__file__
        own = Path(str(module_file)).resolve().parent
        return (SOURCES_DIR / self.shares, own) if self.shares else (own,)

    # ---- what a run of a verifier sees ------------------------------------------------------------------------------

    def environment(self, reference: Reference) -> ServedEnvironment:
        """The host-side public environment `run_public` serves for this task (state and code sources).

        Args:
            reference: the task's reference record.

        Returns:
            A fresh environment (`sources/interaction/environment.py` has the base classes and the replay contract).

        Raises:
            MissingPart: the source has no environment (`public_environment` is False).
        """
        raise self._missing("environment")

    @property
    def public_environment(self) -> bool:
        """Whether its tasks have a public environment the agent may run (`run_public`/`reset`): the source serves
        one (`environment`) and its format has `run_public` messages."""
        serves = type(self).environment is not Source.environment  # the subclass overrides it
        return serves and self.format.public_run is not None

    def read_only_inputs(self, reference: Reference) -> tuple[tuple[str, str], ...]:
        """What every run of this task's verifiers sees read-only (SWE-bench: the checkout at /repo).

        Args:
            reference: the task's reference record.

        Returns:
            (host path, sandbox path) pairs; () for most sources.
        """
        return ()

    def case_timeout(self, reference: Reference) -> float | None:
        """The wall-clock limit of one verifier run on a case of this task.

        Args:
            reference: the task's reference record.

        Returns:
            Seconds; None: the executor's own limit.
        """
        return None

    def docker_compose(self, task: Task) -> Path | None:
        """The task's own Docker compose file (its environment image), used instead of the default sandbox under
        `-T sandbox=docker`.

        Args:
            task: a task of this source.

        Returns:
            The compose file; None: the default sandbox.
        """
        return None

    def add_checkout_dir(self, directory: Path) -> None:
        """A loaded suite's checkouts folder: where this source's tasks may find their repository checkouts.
        Default: the source has none.

        Args:
            directory: `<suite>/checkouts`.
        """
        return None

    def run_counts_scope(self, reference: Reference) -> str | None:
        """The name its environment's run counts for this task are kept under (`ServedEnvironment.run_counts`,
        public_env/run_counts.py); None: it counts nothing.

        Args:
            reference: the task's reference record.
        """
        return None

    def judging_problem(self, reference: Reference) -> str | None:
        """What this machine lacks to judge this task (and serve its run_public), in one line; checked when an eval
        starts (harness/prerequisites.py). Default: nothing beyond the package.

        Args:
            reference: the task's reference record.
        """
        return None

    def doctor_lines(self) -> list[str]:
        """`verifierbench doctor`'s lines for what this source's tasks need on this machine (one line each)."""
        return []

    # ---- screening and the audit ----------------------------------------------------------------------------------------

    def naive_checks(self) -> NaiveChecks | None:
        """Screening's C7 naive verifiers for this source's hack cases. Default: its format's.

        Returns:
            The function naming the naive checks a hack candidate fools (reference, candidate); None: none.
        """
        return self.format.naive_checks()

    def mutation_operators(self) -> tuple[Any, ...]:
        """The C6 operators screening applies to this source's reference, through their protocol (`probe`,
        `applicable`, `detects`; screening/checks.py); `probe` raises `NoProbe` when a task lacks what it reads.
        Default: its format's.

        Returns:
            The operators; () when there are none.
        """
        return self.format.mutation_operators()

    def auditor(self) -> Auditor | None:
        """The deterministic auditor's fresh candidates for a round: (task, round index, seed) -> labelled proposals
        for the reference to certify. Default: its format's.

        Returns:
            The auditor; None: the source's tasks have no deterministic auditor.
        """
        return self.format.auditor()

    # ---- helpers ------------------------------------------------------------------------------------------------------

    def _missing(self, part: str) -> MissingPart:
        return MissingPart(f"source {self.name} has no {part}")


_REGISTERED: dict[str, Source] = {}
_VIEW = MappingProxyType(_REGISTERED)
S = TypeVar("S", bound=type[Source])


def register_source(cls: S) -> S:
    """Class decorator: registers one instance of a `Source` subclass under its `name`.

    Args:
        cls: the subclass; it sets `name` and `format`.

    Returns:
        The class, unchanged.

    Raises:
        ValueError: another class is registered under the same name, or the class declares no `format`.
    """
    name = cls.name
    if not isinstance(getattr(cls, "format", None), Format):
        raise ValueError(f"source {name!r} declares no candidate format (`format = ...`, sources/formats/)")
    known = _REGISTERED.get(name)
    # the same class again (its module imported a second time, under another name) replaces the first
    if known is not None and type(known).__qualname__ != cls.__qualname__:
        raise ValueError(f"source {name!r} is registered twice ({type(known).__module__} and {cls.__module__})")
    _REGISTERED[name] = cls()
    return cls


def registered() -> Mapping[str, Source]:
    """Every source registered so far, by name, in registration order (a read-only view, kept current)."""
    return _VIEW
