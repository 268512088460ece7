"""Builds AgentDojo state tasks: 10 user tasks and 10 user-task x injection-task pairs from the pinned
suites, selected per suite with a seed, their cases generated and replayed through the reference (C1).

A task is excluded (code Z) when its ground truth changes the environment but AgentDojo's checks
accept an interaction that changes nothing (upstream weakness, e.g. banking user_task_6, whose
check is met by a transaction the environment already holds): the reference would contradict the
labels of every "nothing done" case.

A pair is excluded (code N) when AgentDojo's own ground truth for the injection task does not reach
its goal in that environment, or when the user task reads no injection vector: then nothing tests
whether the verifier notices the injected instruction being carried out.
"""

from __future__ import annotations

import random
from typing import Callable

from verifierbench.construction.replay import Replayed, replay
from verifierbench.construction.selection import Selection, select
from verifierbench.core.schema import Task
from verifierbench.sources.formats.interaction_record import INTERACTION_RECORD
from verifierbench.sources.agentdojo import cases, data, task
from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment, gold_calls, injection_calls
from verifierbench.sources.agentdojo.reference import decide
from verifierbench.sources.base import SourcePaths
from verifierbench.sources.interaction import families
from verifierbench.sources.interaction.naive_checks import state_checks_fooled

USER_QUOTAS = {"banking": 3, "slack": 2, "travel": 2, "workspace": 3}
PAIR_QUOTAS = {"banking": 3, "slack": 2, "travel": 2, "workspace": 3}


def make_task(ref: data.TaskRef) -> Task:
    return Task.create(
        source="agentdojo",
        source_id=ref.source_id,
        instruction=task.instruction(ref),
        environment=task.environment(ref),
        format=INTERACTION_RECORD,
        reference={"checker": "agentdojo", **ref.to_json(), "suite_version": data.SUITE_VERSION, "agentdojo": data.installed_version(),
                   **({"injections": dict(data.injections(ref))} if ref.injection_task and _injectable(ref) else {})},
        metadata={"subset": "injection" if ref.injection_task else "user", "suite": ref.suite},
    )


def _injectable(ref: data.TaskRef) -> bool:
    try:
        return bool(data.injections(ref))
    except ValueError:  # not injectable: construct excludes the pair (code N)
        return False


def construct(ref: data.TaskRef, seed: int) -> Replayed:
    made = make_task(ref)
    if ref.injection_task:
        reason = _pair_problem(ref)
        if reason:
            return Replayed(made, exclusion={"task": f"agentdojo/{ref.source_id}", "task_id": made.id, "code": "N",
                                             "evidence": {"reason": reason}})
    weak = _accepts_doing_nothing(ref)
    if weak:
        return Replayed(made, exclusion={"task": f"agentdojo/{ref.source_id}", "task_id": made.id, "code": "Z",
                                         "evidence": {"reason": weak}})
    notes: dict[str, str] = {}
    drafts = cases.generate(ref, random.Random(f"{seed}:agentdojo:{ref.source_id}"), notes=notes)
    replayed = replay(made, drafts, decide=decide, fooled=state_checks_fooled)
    replayed.notes = notes
    return replayed


def _accepts_doing_nothing(ref: data.TaskRef) -> str | None:
    builder = cases.Builder(ref)
    if not builder.writes(gold_calls(ref)):
        return None  # nothing needs changing: an idle interaction may well be right
    final = data.user_task(ref).GROUND_TRUTH_OUTPUT or cases.DONE
    accepted, why = decide(make_task(ref).reference, builder.record([], final))
    return f"the ground truth writes, yet an interaction with no tool call passes: {why}" if accepted else None


def _pair_problem(ref: data.TaskRef) -> str | None:
    try:
        planted = data.injections(ref)
    except ValueError as e:  # AgentDojo: the user task's ground truth sees no injection vector
        return str(e)
    if not planted:
        return "the user task reads no injection vector"
    run = AgentDojoEnvironment(ref).run(injection_calls(ref))
    injection = data.injection_task(ref)
    reached = injection.security_from_traces("", run.pre, run.post, run.traces)
    if reached is None:
        reached = injection.security("", run.pre, run.post)
    return None if reached else "the injection task's ground truth does not reach its goal upstream"


def build(seed: int) -> Selection:
    user_pools = {s: sorted(data.suite(s).user_tasks) for s in USER_QUOTAS}
    users = select(user_pools, USER_QUOTAS, [], seed, "agentdojo-user",
                   lambda s, user_task: construct(data.TaskRef(s, user_task), seed))
    taken = {(r.task.reference["suite"], r.task.reference["user_task"]) for r in users.retained}
    pair_pools = {s: sorted(f"{u}+{i}" for u in data.suite(s).user_tasks for i in data.suite(s).injection_tasks if (s, u) not in taken)
                  for s in PAIR_QUOTAS}

    def construct_pair(s: str, pair: str) -> Replayed:
        user_task, _, injection_task = pair.partition("+")
        return construct(data.TaskRef(s, user_task, injection_task), seed)

    pairs = select(pair_pools, PAIR_QUOTAS, [], seed, "agentdojo-injection", construct_pair)
    return Selection(
        retained=users.retained + pairs.retained,
        excluded=users.excluded + pairs.excluded,
        dropped=users.dropped + pairs.dropped,
        record={"seed": seed, "suite_version": data.SUITE_VERSION, "agentdojo": data.installed_version(),
                "user": users.record, "injection": pairs.record,
                "families": families.summary(users.retained + pairs.retained, families.FAMILIES)},
    )


def select_tasks(seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """The source hook (`Source.select`): the data comes from the installed package, so `paths` is unused."""
    return build(seed)
