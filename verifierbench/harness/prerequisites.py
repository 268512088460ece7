"""What the chosen `-T` options need on this machine, checked when the task is created (`task.verifierbench`): a
missing one is one line from `inspect eval` before any sample starts, not a traceback after the first (issue 54).
`verifierbench doctor` prints the same checks, one line each (`doctor_lines`).

Checked: what the chosen harness's record names as missing in the chosen sandbox (`Harness.problem`: pi's toolchain
for `-T harness=pi` in the vgb sandbox, the `[harnesses]` extra (inspect-swe) for its CLI agents), a `docker`
executable for `-T sandbox=docker`, and what judging the selected code tasks needs here: each
task's checkout, and what its test environment is made from when it is not made yet (the Python 3.9 root file system,
matplotlib's Debian build packages). Not checked: the package index that making an environment downloads from.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from verifierbench.core.errors import UserError
from verifierbench.core.schema import Task
from verifierbench.sources import registry

if TYPE_CHECKING:
    from verifierbench.harness.registry import Harness

HARNESSES_EXTRA = "pip install 'verifierbench[harnesses]'"


def check(harness: str, sandbox: str, tasks: Sequence[Task]) -> None:
    """Raises UserError naming every missing prerequisite of these options, in one line.

    Args:
        harness: the `-T harness` value.
        sandbox: the `-T sandbox` value.
        tasks: the selected tasks.
    """
    from verifierbench.harness import registry as harnesses

    problems = [
        docker_problem() if sandbox == "docker" else None,
        harnesses.get(harness).problem(sandbox),
        code_tasks_problem(tasks),
    ]
    found = [p for p in problems if p]
    if found:
        raise UserError("; ".join(found))


def docker_problem() -> str | None:
    if shutil.which("docker"):
        return None
    return ("-T sandbox=docker: no `docker` executable on PATH (install Docker, see verifierbench/sandboxes/README.md; "
            "or use -T sandbox=vgb, which needs none)")


def harnesses_extra_problem(harness: str) -> str | None:
    try:
        import inspect_swe  # noqa: F401 - only whether it imports
    except ImportError:
        return f"harness {harness} needs inspect-swe, which is not installed: {HARNESSES_EXTRA}"
    return None


def toolchain_problem(toolchain: Callable[[], object]) -> str | None:
    """The problem of a CLI's checked toolchain for the vgb sandbox, in one line, or None.

    Args:
        toolchain: the CLI's check (`pi_vgb.toolchain`, `claude_vgb.toolchain`: cached per process, so the samples do
            not check it again), raising CliMissing.
    """
    from verifierbench.harness.bridged_clis import CliMissing

    try:
        toolchain()
    except CliMissing as exc:
        return str(exc)
    return None


def code_tasks_problem(tasks: Sequence[Task]) -> str | None:
    """The first problem of a selected task its source names (`Source.judging_problem`: a code task's checkout, and
    what its test environment is made from when it is not made yet)."""
    for task in tasks:
        if not registry.known(task.reference):
            continue
        problem = registry.of(task.reference).judging_problem(task.reference)
        if problem:
            return f"{task.type.value} task {task.id}: {problem}"
    return None


def sandbox_problem(sandbox: str) -> str | None:
    """What this machine lacks for the sandbox itself, whatever the harness, in a few words (the doctor's docker line
    says what to do; k8s: not checked here)."""
    return "no docker executable on PATH" if sandbox == "docker" and docker_problem() else None


def doctor_lines() -> list[str]:
    """`verifierbench doctor`'s lines for the harnesses and sandboxes (code tasks have their own, doctor_cmd): the
    shared ones, then one line per registered harness saying in which sandboxes this machine can run it."""
    from verifierbench.harness import pi_vgb
    from verifierbench.harness import registry as harnesses

    pi = toolchain_problem(pi_vgb.toolchain)
    docker = shutil.which("docker")
    extra = harnesses_extra_problem("claude_code")
    lines = [f"pi toolchain (-T harness=pi, vgb sandbox): {pi or f'checked in {pi_vgb.cache_root()}'}",
             f"CLI harnesses' extra (inspect-swe): {'missing: ' + HARNESSES_EXTRA if extra else 'installed'}",
             f"docker (-T sandbox=docker): {docker or 'no docker executable on PATH'}"]
    return lines + [harness_line(record) for record in harnesses.HARNESSES.values()]


def harness_line(record: "Harness") -> str:
    """`harness NAME (VERSION): runs here in vgb, docker` or `... cannot run here (vgb: why; docker: why)`. The
    Docker image's contents are not looked at (that needs the engine: scripts/harness-clis.sh status)."""
    runs, why = [], []
    for sandbox in (s for s in record.sandboxes if s != "k8s"):  # a k8s cluster is not checked from here
        problem = sandbox_problem(sandbox) or record.problem(sandbox)
        if problem:
            why.append(f"{sandbox}: {problem}")
        else:
            runs.append(sandbox)
    name = f"harness {record.name} ({record.display_name}{' ' + record.version if record.version else ''})"
    if not runs:
        return f"{name}: cannot run here ({'; '.join(why)})"
    return f"{name}: runs here in {', '.join(runs)}" + (f"; not in {'; '.join(why)}" if why else "")
