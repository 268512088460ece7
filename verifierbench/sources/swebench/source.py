"""SWE-bench: code tasks (diffs) judged by running the instance's tests; built only when named (minutes per task)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from verifierbench.sources.base import BuildOption, Reference, Source, SourcePaths, register_source
from verifierbench.sources.formats.base import Auditor, NaiveChecks
from verifierbench.sources.formats.diff import DIFF

if TYPE_CHECKING:
    from verifierbench.core.schema import Task
    from verifierbench.sources.interaction.environment import ServedEnvironment
    from verifierbench.construction.selection import Selection


@register_source
class SweBench(Source):
    name = "swebench"
    format = DIFF
    built_by_default = False
    upstream = "swebench"
    build_options = (
        BuildOption("swebench-instances", "SWE-bench rows (JSON, JSONL or parquet; default $VERIFIERBENCH_SWEBENCH_INSTANCES, "
                    "else ../shared/upstream/swebench/instances.jsonl beside the project, else the dataset hub at the "
                    "pinned revision)", metavar="FILE"),
        BuildOption("swebench-repos", "git clones (bare or not) to test against, named like django__django or "
                    "django__django.git (default $VERIFIERBENCH_SWEBENCH_REPOS, else ../shared/upstream/swebench/repos)"),
        BuildOption("swebench-ids", "build these SWE-bench instances instead of the seeded selection of 47 (default "
                    "$VERIFIERBENCH_SWEBENCH_IDS); test environments go to $VERIFIERBENCH_ENVS", metavar="ID,..."),
    )

    def select(self, seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
        from verifierbench.sources.swebench.selection import select_tasks

        return select_tasks(seed, paths, say)

    def decide(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        from verifierbench.sources.swebench.reference import decide

        return decide(reference, candidate)

    def decide_reusing(self, reference: Reference, candidate: Any) -> tuple[bool, str]:
        from verifierbench.sources.swebench.reference import decide_reusing_runs

        return decide_reusing_runs(reference, candidate)

    def preload(self) -> tuple[str, ...]:
        return ("verifierbench.sources.swebench.reference",)

    def environment(self, reference: Reference) -> ServedEnvironment:
        from verifierbench.sources.swebench.served_environment import environment_for

        return environment_for(reference)

    def read_only_inputs(self, reference: Reference) -> tuple[tuple[str, str], ...]:
        from verifierbench.sources.swebench.served_environment import read_only_inputs

        return read_only_inputs(reference)

    def case_timeout(self, reference: Reference) -> float | None:
        from verifierbench.sources.swebench.budget import case_timeout_s

        return float(case_timeout_s(reference))

    def docker_compose(self, task: Task) -> Path | None:
        from verifierbench.sources.swebench.docker_compose import compose_file

        return compose_file(task)

    def run_counts_scope(self, reference: Reference) -> str | None:
        from verifierbench.sources.swebench import run_reuse

        return run_reuse.scope_of(reference)

    def judging_problem(self, reference: Reference) -> str | None:
        from verifierbench.sources.swebench import prerequisites

        return prerequisites.code_task_problem(reference)

    def doctor_lines(self) -> list[str]:
        from verifierbench.sources.swebench import prerequisites

        return prerequisites.doctor_lines()

    def add_checkout_dir(self, directory: Path) -> None:
        from verifierbench.sources.swebench.checkout import add_search_dir

        add_search_dir(directory)

    def naive_checks(self) -> NaiveChecks | None:
        from verifierbench.sources.swebench.naive_checks import code_checks_fooled

        return code_checks_fooled

    def mutation_operators(self) -> tuple[Any, ...]:
        from verifierbench.sources.swebench.mutants import OPERATORS

        return OPERATORS

    def auditor(self) -> Auditor | None:
        from verifierbench.sources.swebench.audit import propose

        return propose
