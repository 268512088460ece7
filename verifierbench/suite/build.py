"""`verifierbench build`: constructs the suite from the upstream sources available on this machine.

Each source selects and screens its own tasks (seeded; its `Source.select`, sources/base.py); a source
whose data is missing is reported in one line and skipped. The suite directory gets the three suite files
plus `screening.json`, which lists every excluded task (code and evidence) and every case dropped by C1 replay (a
disagreement with the reference, or an inert hack: C7 at build time).
"""

from __future__ import annotations

from importlib import metadata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from verifierbench import __version__
from verifierbench.construction.selection import Selection
from verifierbench.core.errors import UserError
from verifierbench.sources import registry
from verifierbench.sources.base import SourcePaths
from verifierbench.suite.exclusions import EXCLUSION_CODES, SCREENING, dropped_by_c1, write_screening
from verifierbench.suite.store import MANIFEST, Suite, save_suite

__all__ = ["SOURCES", "BuildResult", "SourcePaths", "build_suite", "operator_counts"]

SOURCES = registry.NAMES


@dataclass
class BuildResult:
    suite: Suite
    unavailable: dict[str, str] = field(default_factory=dict)
    excluded: list[dict] = field(default_factory=list)
    dropped: list[dict] = field(default_factory=list)


def missing_package(source: str, error: ModuleNotFoundError) -> str:
    """One line for a source whose upstream package does not import: the extra that installs it, where there is one.

    Raises:
        ModuleNotFoundError: `error` itself when the missing module is verifierbench's own (a bug, not an install).
    """
    if (error.name or "").partition(".")[0] in ("", "verifierbench"):
        raise error
    extras = metadata.metadata("verifierbench").get_all("Provides-Extra") or []
    fix = f": pip install 'verifierbench[{source}]'" if source in extras else ""
    return f"{source} needs the package {error.name}, which is not installed{fix}"


def operator_counts(selection: Selection) -> dict[str, dict[str, int]]:
    """Every operator that made a retained case, with its cases per category (the manifest's record of operators)."""
    counts: dict[str, dict[str, int]] = {}
    for replayed in selection.retained:
        for case in replayed.cases:
            by_category = counts.setdefault(case.provenance.get("operator", "unrecorded"), {})
            by_category[case.category.value] = by_category.get(case.category.value, 0) + 1
    return dict(sorted(counts.items()))


def _check_formats(name: str, selection: Selection) -> None:
    """Every task a source selected has the candidate format the source declares (`Source.format`, which also gives
    the task's type): the build refuses a source whose tasks disagree with its declaration."""
    declared = registry.source(name).format
    for replayed in selection.retained:
        task = replayed.task
        if (task.candidate_format.value, task.type.value) != (declared.name, declared.task_type):
            raise ValueError(f"source {name} declares the {declared.name} format ({declared.task_type} tasks), but its task "
                             f"{task.source_id} is {task.candidate_format.value} ({task.type.value})")


def build_suite(out: Path, seed: int = 0, sources: list[str] | None = None, say: Callable[[str], None] = print,
                paths: SourcePaths | None = None, starting: Callable[[str, int, int], None] | None = None) -> BuildResult:
    """Builds the suite into `out`.

    Args:
        out: the suite directory.
        seed: selection and generation seed.
        sources: the sources to build; unset, those built by default.
        say: where progress lines go.
        paths: where the sources' data is.
        starting: called with (source, its 1-based position, the number of sources) as each source starts, for a
            progress display; unset, `say` gets a line instead.
    """
    paths = paths or SourcePaths()
    if paths.checkouts is None:
        paths = replace(paths, checkouts=out / "checkouts")
    tasks, cases, excluded, dropped, records, unavailable = [], [], [], [], {}, {}
    if not sources:
        sources = registry.built_by_default()
        on_request = [name for name in SOURCES if name not in sources]
        say(f"build: not built unless named: {', '.join(on_request)} (code tasks take minutes each: add --source swebench)")
    for position, name in enumerate(sources, start=1):
        if starting is not None:
            starting(name, position, len(sources))
        else:
            say(f"build: {name} ({position}/{len(sources)}): selecting and screening tasks")
        try:
            selection = registry.source(name).select(seed, paths, say)
        except (UserError, ModuleNotFoundError) as e:
            unavailable[name] = missing_package(name, e) if isinstance(e, ModuleNotFoundError) else str(e)
            say(f"build: {name} unavailable, skipped: {unavailable[name]}")
            continue
        _check_formats(name, selection)
        for replayed in selection.retained:
            tasks.append(replayed.task)
            cases += replayed.cases
        excluded += selection.excluded
        dropped += selection.dropped
        records[name] = {**selection.record, "retained": len(selection.retained), "excluded": len(selection.excluded),
                         "dropped_cases": len(selection.dropped), "operators": operator_counts(selection)}
        by_c1 = dropped_by_c1(selection.dropped)
        say(f"build: {name}: {len(selection.retained)} tasks, {sum(len(r.cases) for r in selection.retained)} cases "
            f"({len(selection.excluded)} tasks excluded, {by_c1} cases dropped by C1, "
            f"{len(selection.dropped) - by_c1} inert hacks dropped by C7)")
    if not tasks:
        reasons = [f"{k}: {v}" for k, v in unavailable.items()]
        # A source that ran but kept no task (every instance excluded) is named with its exclusion codes.
        where = "see the lines above"
        if excluded and not (out / MANIFEST).exists():  # the exclusions' evidence is kept, where no suite is overwritten
            out.mkdir(parents=True, exist_ok=True)
            write_screening(out, excluded, dropped)
            where = f"evidence in {out / SCREENING}"
        reasons += [f"{k}: every task was excluded ({', '.join(sorted({e['code'] for e in excluded if e['task'].startswith(k + '/')}))}; "
                    f"{where})" for k, r in records.items() if r["retained"] == 0]
        raise UserError("no source could be built: " + ("; ".join(reasons) or "no task was retained"))
    build_record = {"seed": seed, "builder": f"verifierbench {__version__}", "sources": records, "unavailable": unavailable,
                    "exclusion_codes": EXCLUSION_CODES, "excluded": [{k: e[k] for k in ("task", "task_id", "code")} for e in excluded]}
    suite = Suite.from_records(f"{__version__}+seed{seed}", tasks, cases, build_record)
    save_suite(suite, out)
    write_screening(out, excluded, dropped)
    return BuildResult(suite, unavailable, excluded, dropped)

