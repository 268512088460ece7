"""`inspect eval verifierbench/verifierbench`: one sample per VerifierBench task.

Task options (`-T`): source, type, task_ids (comma-separated vgb-t- ids or source/source_id),
harness, rounds, suite, sandbox, time_limit, max_tokens, run_public_budget, message_limit.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from verifierbench.harness.agents import HARNESSES, SWE_HARNESSES, harness_solver
from verifierbench.harness.dataset import suite_dataset
from verifierbench.harness.suite_source import open_suite
from verifierbench.judge import select_tasks
from verifierbench.screening.run import retained_ids
from verifierbench.schema import TaskType
from verifierbench.audit.engine import DEFAULT_ROUNDS as AUDIT_ROUNDS
from verifierbench.scorers.hidden_cases import DEFAULT_ROUNDS, hidden_cases
from verifierbench.scorers.testjack_audit import testjack_audit

# Bumped whenever scores stop being comparable with earlier logs.
TASK_VERSION = 1
SANDBOXES_DIR = Path(str(files("verifierbench") / "sandboxes"))  # package data: found in a wheel install too
TIME_LIMIT_S = 5400  # paper App. E
MAX_TOKENS = 32768  # per reply, paper App. E
RUN_PUBLIC_BUDGET = 20  # generation executions per task, paper App. E
# Messages per sample for the default harness. Not a paper budget: the paper caps time, tokens per
# reply and run_public only (App. E), but without a cap a model that never calls submit is urged on
# until the time limit. 400 messages is about 200 model turns, far above what a submitting agent uses.
MESSAGE_LIMIT = 400


@task(name="verifierbench")
def verifierbench(
    source: str | None = None,
    type: str | None = None,
    task_ids: str | list[str] | None = None,
    harness: str = "default",
    rounds: int = DEFAULT_ROUNDS,
    suite: str | None = None,
    sandbox: str = "vgb",
    time_limit: int = TIME_LIMIT_S,
    max_tokens: int = MAX_TOKENS,
    run_public_budget: int = RUN_PUBLIC_BUDGET,
    message_limit: int | None = None,
    audit: bool = False,
    audit_rounds: int = AUDIT_ROUNDS,
) -> Task:
    """`audit=true` adds the TestJack audit scorer after hidden_cases (model roles `auditor`/`reviewer` when bound).

    `message_limit`: messages per sample; unset, MESSAGE_LIMIT for the default harness and none for the
    others (single_reply makes one call; the CLI agents keep their own loops); 0 turns the limit off.
    Inspect's `--message-limit` overrides it."""
    if harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r} (choose from {', '.join(HARNESSES)})")
    if harness in SWE_HARNESSES and sandbox == "vgb":
        raise ValueError(f"harness {harness} runs its CLI inside the sandbox, which the no-Docker vgb sandbox cannot host: "
                         "use -T sandbox=docker (see verifierbench/sandboxes/README.md)")
    directory, loaded = open_suite(suite)
    ids = [i.strip() for i in task_ids.split(",")] if isinstance(task_ids, str) else task_ids
    tasks = select_tasks(loaded, ids, source=source, task_type=type)
    retained = retained_ids(directory, loaded)
    if retained is not None:  # a screened suite: only the tasks that passed V4V screening
        tasks = [t for t in tasks if t.id in retained]
        if not tasks:
            raise ValueError("every selected task was excluded by screening (see screened.json beside the suite)")
    return Task(
        dataset=suite_dataset(loaded, tasks, run_public_budget, has_tools=harness != "single_reply", suite_dir=directory,
                              sandbox=sandbox),
        solver=harness_solver(harness, run_public_budget),
        # Rounds beyond the first exist only when some selected task is judged more than once.
        scorer=[hidden_cases(suite=str(directory), rounds=rounds if any(t.type is not TaskType.tool_call for t in tasks) else 1),
                *([testjack_audit(suite=str(directory), rounds=audit_rounds)] if audit else [])],
        sandbox=sandbox_spec(sandbox, harness),
        cleanup=prune_replaced_images if sandbox == "docker" else None,
        config=GenerateConfig(max_tokens=max_tokens),
        time_limit=time_limit,
        message_limit=resolve_message_limit(message_limit, harness),
        version=TASK_VERSION,
        metadata={"suite_version": loaded.manifest.version, "harness": harness, "rounds": rounds,
                  "run_public_budget": run_public_budget},
    )


def resolve_message_limit(message_limit: int | None, harness: str) -> int | None:
    """The task's message limit: the option when given (0 = none), else the harness's default."""
    if message_limit is None:
        return MESSAGE_LIMIT if harness == "default" else None
    if int(message_limit) < 0:
        raise ValueError(f"message_limit must be 0 (no limit) or positive, not {message_limit}")
    return int(message_limit) or None


SANDBOX_IMAGE_LABEL = "org.verifierbench.sandbox=docker"


async def prune_replaced_images(state: object) -> None:
    """Removes the untagged sandbox images earlier builds left (after each sample: this run's image is built by then).
    Only images with the sandbox's label, and never one a container still uses (Docker keeps those).

    Args:
      state: The sample's TaskState (unused).
    """
    from inspect_ai.util import subprocess

    await subprocess(["docker", "image", "prune", "--force", "--filter", f"label={SANDBOX_IMAGE_LABEL}"], timeout=60)


def sandbox_spec(name: str, harness: str = "default") -> str | tuple[str, str]:
    """`vgb` (no Docker), or `docker`/`k8s` with the configs shipped in verifierbench/sandboxes/.

    Args:
      name: The `sandbox` task option.
      harness: The `harness` task option: the CLI harnesses run in Docker on the image with their CLIs
        (sandboxes/docker/harness.compose.yaml, built by scripts/harness-clis.sh).
    """
    if name == "vgb":
        return "vgb"
    docker = "harness.compose.yaml" if harness in SWE_HARNESSES else "compose.yaml"
    configs = {"docker": SANDBOXES_DIR / "docker" / docker, "k8s": SANDBOXES_DIR / "k8s" / "values.yaml"}
    if name not in configs:
        raise ValueError(f"unknown sandbox {name!r} (choose vgb, docker or k8s)")
    return (name, str(configs[name]))
