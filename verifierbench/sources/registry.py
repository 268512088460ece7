"""Every source: the built-in sources' modules, in build order, plus out-of-tree ones named in $VERIFIERBENCH_SOURCES.

The rest of the harness asks here for a source, by name (`--source`) or by the `checker` a task's reference record
names, and calls its typed methods (sources/base.py). Importing a source module registers its `Source` subclass
(`@register_source`); source modules import only sources/base.py at their top, so this module stays standard
library only (an exported reference verifier imports it inside the sandbox).
"""

from __future__ import annotations

import hashlib
import importlib
import os
from functools import cache
from importlib import metadata

from verifierbench.core.errors import UserError
from verifierbench.sources.base import Reference, Source, registered

# The built-in sources' modules; their order is the build's order (and the suite's task order).
BUILT_IN = (
    "verifierbench.sources.bfcl.source",
    "verifierbench.sources.acebench.source",
    "verifierbench.sources.tau2.source",
    "verifierbench.sources.agentdojo.source",
    "verifierbench.sources.swebench.source",
    "verifierbench.sources.appworld.source",
)
# Out-of-tree sources: comma-separated importable modules, each registering one or more `Source` subclasses;
# built after the built-in ones, in the order named (docs/adding-a-source.md).
EXTRA_SOURCES_ENV = "VERIFIERBENCH_SOURCES"


def _load() -> dict[str, Source]:
    """Imports every source module and returns their sources by name, in module order."""
    extra = [m.strip() for m in os.environ.get(EXTRA_SOURCES_ENV, "").split(",") if m.strip()]
    for module in BUILT_IN:
        importlib.import_module(module)
    for module in extra:
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - whatever the module raises, the user hears it in one line
            _refuse(f"cannot import source module {module!r} ({type(exc).__name__}: {exc})")
    found = registered()
    order = {module: index for index, module in enumerate((*BUILT_IN, *extra))}
    listed = [s for s in found.values() if type(s).__module__ in order]
    for module in set(extra) - {type(s).__module__ for s in listed}:
        _refuse(f"source module {module!r} registers no source (a Source subclass with @register_source)")
    return {s.name: s for s in sorted(listed, key=lambda s: order[type(s).__module__])}


def _refuse(problem: str) -> None:
    """A bad $VERIFIERBENCH_SOURCES, in one line. It is read when the package is imported (by the `verifierbench`
    command, or by Inspect looking for the task), before any caller could turn an exception into one line, so this
    ends the process with the message (SystemExit: no traceback; Inspect's import of its plugins does not swallow
    it and then report an unrelated "model not recognized")."""
    raise SystemExit(f"verifierbench: error: ${EXTRA_SOURCES_ENV}: {problem}")


SOURCES = _load()
NAMES = tuple(SOURCES)


def source(name: str) -> Source:
    """The source `name`.

    Args:
        name: a source name (`--source`); a source registered after startup (`@register_source`) is found too.

    Raises:
        UserError: no source has that name.
    """
    found = SOURCES.get(name) or registered().get(name)
    if found is None:
        raise UserError(f"unknown source {name!r} (choose from {', '.join(NAMES)})")
    return found


def of(reference: Reference) -> Source:
    """The source of a task, by the checker its reference record names.

    Args:
        reference: a task's reference record.

    Raises:
        ValueError: the record names no known source.
    """
    checker = reference.get("checker")
    found = registered().get(checker) if isinstance(checker, str) else None
    if found is None:
        raise ValueError(f"unknown checker {checker!r}")
    return found


def known(reference: Reference) -> bool:
    """Whether the record's checker names a source (records of hand-made test suites may have none)."""
    return isinstance(reference.get("checker"), str) and reference["checker"] in registered()


def built_by_default() -> list[str]:
    """The sources `build` makes when none is named, in build order."""
    return [name for name, declared in SOURCES.items() if declared.built_by_default]


@cache
def code_version(name: str) -> str:
    """sha256 over a source's reference code (its shared folder's too) and its upstream release: what decides.

    Args:
        name: a source name.
    """
    declared = source(name)
    digest = hashlib.sha256()
    for folder in declared.code_folders():
        for path in sorted(folder.rglob("*.py")):  # subfolders too: the code runner of code tasks lives in one
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    if declared.upstream:
        try:
            digest.update(f"{declared.upstream}=={metadata.version(declared.upstream)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{declared.upstream} missing".encode())
    return f"{name}-ref:" + digest.hexdigest()[:16]
