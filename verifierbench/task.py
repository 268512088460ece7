"""`inspect eval verifierbench/verifierbench`: one sample per VerifierBench task.

The task options (`-T`) are the parameters of `verifierbench` below; their `Args:` docstring is the option
table of README.md and docs/inspect.md (`python scripts/task_options_table.py` writes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast, get_args

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from verifierbench.core.errors import UserError
from verifierbench.inspect_api.user_errors import for_inspect
from verifierbench.harness.agents import MESSAGE_LIMIT  # noqa: F401 - the default harness's, named here too
from verifierbench.harness import registry as harnesses
from verifierbench.harness import prerequisites
from verifierbench.harness.dataset import suite_dataset
from verifierbench.harness.sample_store import record_sample
from verifierbench.harness.shards import shard_of
from verifierbench.sandboxes.spec import SandboxName, sandbox_spec
from verifierbench.suite.resolver import open_suite
from verifierbench.judging.judge import select_tasks
from verifierbench.harness.freeze import freeze_verifier
from verifierbench.screening.run import retained_ids
from verifierbench.sources import registry
from verifierbench.sources.formats import registry as formats
from verifierbench.audit.engine import DEFAULT_ROUNDS as AUDIT_ROUNDS
from verifierbench.scorers.hidden_cases import DEFAULT_ROUNDS, hidden_cases
from verifierbench.scorers.testjack_audit import testjack_audit

# `N-X` (CHANGELOG.md, inspect_evals' task versioning): N changes when scores stop being comparable with earlier logs,
# X for other changes. The task's version is N (an integer, as Inspect compares them); the log's metadata has all three.
TASK_VERSION = "1-C"
TASK_COMPARABILITY_VERSION = int(TASK_VERSION.split("-")[0])
TASK_VERSION_METADATA = {"full_task_version": TASK_VERSION, "task_interface_version": TASK_VERSION.split("-")[1],
                         "task_comparability_version": TASK_COMPARABILITY_VERSION}
TIME_LIMIT_S = 5400  # paper App. E
MAX_TOKENS = 32768  # per reply, paper App. E
RUN_PUBLIC_BUDGET = 20  # generation executions per task, paper App. E
# MESSAGE_LIMIT (harness/agents.py): the default harness's message limit, its record's (harness/built_in.py).


# The values of the options with a fixed set of choices (the registered sources and harnesses, the candidate formats'
# task types; SandboxName is sandboxes/spec.py's). These Literals are made from their registries, so a new source,
# harness or format needs no edit here; mypy, which cannot read a computed Literal, sees a str.
if TYPE_CHECKING:
    SourceName = str
    TaskTypeName = str
    HarnessName = str
else:
    SourceName = Literal[registry.NAMES]
    TaskTypeName = Literal[formats.TASK_TYPES]
    HarnessName = Literal[harnesses.NAMES]


@task(name="verifierbench")
def verifierbench(
    source: SourceName | None = None,
    type: TaskTypeName | None = None,
    task_ids: str | list[str] | None = None,
    harness: HarnessName = "default",
    rounds: int = DEFAULT_ROUNDS,
    suite: str | None = None,
    sandbox: SandboxName = "vgb",
    transport: str | None = None,
    time_limit: int = TIME_LIMIT_S,
    max_tokens: int = MAX_TOKENS,
    run_public_budget: int = RUN_PUBLIC_BUDGET,
    message_limit: int | None = None,
    audit: bool = False,
    audit_rounds: int = AUDIT_ROUNDS,
    shard: str | None = None,
) -> Task:
    """One sample per selected VerifierBench task: the agent writes a verifier, the hidden cases score it.

    Args:
        source: only the tasks of this source; unset, every source.
        type: only the tasks of this type; unset, every type.
        task_ids: comma-separated `vgb-t-...` ids or `source/source_id` (e.g. `bfcl/parallel_114`); unset, every task.
        harness: the generation harness; the paper's is `pi` (its main comparison; it runs in `vgb` too, no Docker) and `default` a stand-in; the other CLI agents need `-T sandbox=docker` (verifierbench/sandboxes/README.md).
        rounds: judgment rounds of state and code tasks (tool-call tasks are judged once).
        suite: the suite directory; unset, `$VERIFIERBENCH_SUITE`, else `./tasks/suite` when it exists, else one
            built from the installed packages into `~/.cache/verifierbench/` on first use.
        sandbox: `vgb` (bubblewrap, no Docker), or `docker`/`k8s` with the configs in `verifierbench/sandboxes/`.
        transport: how a CLI harness reaches the model: `unix-socket` (the project's endpoint) or
            `inspect-sandbox-bridge` (Inspect's, polled) where the harness offers both; unset, the harness's default
            in the sandbox (README.md's harness table).
        time_limit: seconds per task (paper App. E).
        max_tokens: output tokens per reply (paper App. E).
        run_public_budget: `run_public` executions during generation, for tasks with a public environment.
        message_limit: messages per sample; unset, 400 for the default harness and none for the others (single_reply
            makes one call, the CLI agents keep their own loops); `0` turns it off; Inspect's `--message-limit` overrides it.
            Not a paper budget: a bound on a model that never submits.
        audit: also score with the TestJack audit scorer `testjack_audit` after hidden_cases (model roles
            `auditor`/`reviewer` when bound).
        audit_rounds: audit rounds per sample when `audit` is on.
        shard: `i/N`: only the i-th of N equal shares of the selected tasks, to split a run over N hosts; the
            leaderboard merges the N logs into one run (docs/cluster.md).
    """
    try:
        return _task(source, type, task_ids, harness, rounds, suite, sandbox, transport, time_limit, max_tokens,
                     run_public_budget, message_limit, audit, audit_rounds, shard)
    except UserError as exc:  # one line from `inspect eval`, not a traceback
        raise for_inspect(exc) from None


def _task(source: SourceName | None, type: TaskTypeName | None, task_ids: str | list[str] | None, harness: HarnessName,
          rounds: int, suite: str | None, sandbox: SandboxName, transport: str | None, time_limit: int, max_tokens: int,
          run_public_budget: int,
          message_limit: int | None, audit: bool, audit_rounds: int, shard: str | None) -> Task:
    _check_choice("source", source, SourceName)
    _check_choice("type", type, TaskTypeName)
    _check_choice("sandbox", sandbox, SandboxName)
    for option, value, least in (("rounds", rounds, 1), ("time_limit", time_limit, 1), ("max_tokens", max_tokens, 1),
                                 ("run_public_budget", run_public_budget, 0), ("audit_rounds", audit_rounds, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise UserError(f"-T {option}={value!r}: expected a whole number of at least {least}")
    # Inspect passes -T values as YAML reads them: `audit=maybe` arrives as the string 'maybe', which is truthy.
    if not isinstance(audit, bool):
        raise UserError(f"-T audit={audit!r}: expected true or false")
    if message_limit is not None and (not isinstance(message_limit, int) or isinstance(message_limit, bool)):
        raise UserError(f"-T message_limit={message_limit!r}: expected a whole number (0: no limit)")
    for option, text in (("suite", suite), ("shard", shard)):
        if text is not None and not isinstance(text, str):
            raise UserError(f"-T {option}={text!r}: expected a {'directory' if option == 'suite' else 'share i/N'}")
    if task_ids is not None and not (isinstance(task_ids, str) or (isinstance(task_ids, list) and all(isinstance(i, str) for i in task_ids))):
        raise UserError(f"-T task_ids={task_ids!r}: expected comma-separated task ids")
    chosen = harnesses.get(harness)
    if sandbox not in chosen.sandboxes:
        raise UserError(unhosted(chosen, sandbox))
    transport = transport_of(chosen, sandbox, transport)
    directory, loaded = open_suite(suite)
    ids = [i.strip() for i in task_ids.split(",")] if isinstance(task_ids, str) else task_ids
    tasks = select_tasks(loaded, ids, source=source, task_type=type)
    retained = retained_ids(directory, loaded)
    if retained is not None:  # a screened suite: only the tasks that passed V4V screening
        tasks = [t for t in tasks if t.id in retained]
        if not tasks:
            raise UserError("every selected task was excluded by screening (see screened.json beside the suite)")
    if shard is not None:
        tasks = shard_of(tasks, shard)
    prerequisites.check(harness, sandbox, tasks)  # one line now, not a traceback at the first sample
    return Task(
        dataset=suite_dataset(loaded, tasks, run_public_budget, has_tools=chosen.has_tools, suite_dir=directory,
                              sandbox=sandbox, cli_image=chosen.runs_cli),
        solver=[record_sample(transport), freeze_verifier(chosen.solver(run_public_budget))],
        # Rounds beyond the first exist only when some selected task is judged more than once.
        scorer=[hidden_cases(suite=str(directory), rounds=max((formats.format_of(t).judge_rounds(rounds) for t in tasks), default=1)),
                *([testjack_audit(suite=str(directory), rounds=audit_rounds)] if audit else [])],
        sandbox=sandbox_spec(sandbox, cli_image=chosen.runs_cli),
        cleanup=prune_replaced_images if sandbox == "docker" else None,
        config=GenerateConfig(max_tokens=max_tokens),
        time_limit=time_limit,
        message_limit=resolve_message_limit(message_limit, harness),
        version=TASK_COMPARABILITY_VERSION,
        # harness_version: the pinned CLI's (the paper's, App. E); the project's own harnesses have the task's version.
        # harness_transport: how its model calls reach the eval's model in this sandbox (harness/registry.py).
        metadata={"suite_version": loaded.manifest.version, "suite_dir": str(directory), "suite_hash": loaded.content_hash(),
                  "harness": harness, "harness_version": chosen.logged_version(TASK_VERSION),
                  "harness_transport": transport,
                  "rounds": rounds,
                  "run_public_budget": run_public_budget, **TASK_VERSION_METADATA},
    )


def unhosted(chosen: harnesses.Harness, sandbox: str) -> str:
    """Why the harness cannot run in the sandbox it was given, and where it can."""
    if sandbox == "vgb":
        hosted = [h.name for h in harnesses.HARNESSES.values() if h.runs_cli and "vgb" in h.sandboxes]
        return (f"harness {chosen.name} runs its CLI inside the sandbox, which the no-Docker vgb sandbox cannot host "
                f"(only {', '.join(hosted) or 'none'} can: harness/model_endpoint.py): use -T sandbox=docker "
                "(see verifierbench/sandboxes/README.md)")
    return f"harness {chosen.name} does not run in the {sandbox} sandbox: use -T sandbox={' or '.join(chosen.sandboxes)}"


def transport_of(chosen: harnesses.Harness, sandbox: str, transport: object) -> str:
    """The `-T transport` value, checked against what the harness offers in the sandbox; unset, its default there."""
    choices = chosen.transport_choices(sandbox)
    if transport is None:
        return choices[0]
    if transport not in choices:
        raise UserError(f"-T transport={transport!r}: harness {chosen.name} in the {sandbox} sandbox reaches its model "
                        f"through {' or '.join(choices)}")
    return str(transport)


def as_harness(name: str) -> HarnessName:
    """A harness name from untyped data (configurations.py), checked against the choices.

    Args:
        name: the harness's name.
    """
    _check_choice("harness", name, HarnessName)
    return cast(HarnessName, name)


def _check_choice(option: str, value: object, choices: object) -> None:
    """A one-line error for a `-T` value outside its Literal (Inspect passes -T values unchecked).

    Args:
        option: the option's name.
        value: the value given (None: unset, always accepted).
        choices: the option's Literal type.
    """
    allowed = get_args(choices)
    if value is not None and value not in allowed:
        raise UserError(f"unknown {option} {value!r} (choose from {', '.join(allowed)})")


def resolve_message_limit(message_limit: int | None, harness: str) -> int | None:
    """The task's message limit: the option when given (0 = none), else the harness's default."""
    if message_limit is None:
        return harnesses.get(harness).message_limit
    if int(message_limit) < 0:
        raise UserError(f"message_limit must be 0 (no limit) or positive, not {message_limit}")
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
