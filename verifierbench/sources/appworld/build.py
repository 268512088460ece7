"""Builds AppWorld state tasks: 28 tasks with ground truth (train and dev splits) selected with a seed,
cases from their solutions, C1 replay through AppWorld's own evaluation, run in the sandbox."""

from __future__ import annotations

import random
from typing import Any, Callable

from verifierbench.construction.replay import replay
from verifierbench.construction.selection import Selection
from verifierbench.core.errors import UserError
from verifierbench.core.schema import Task
from verifierbench.sources.formats.code import CODE
from verifierbench.sources.appworld import cases, runtime
from verifierbench.sources.appworld.reference import decide
from verifierbench.sources.base import SourcePaths

QUOTA = 28
SPLITS = ("train", "dev")  # the splits whose ground truth is released

INSTRUCTION = """\
AppWorld task for the supervisor {name} ({email}), at {datetime}:

{instruction}

A candidate solution is Python code run in the AppWorld environment: {{"code": "<python>"}}. The code reaches
the apps through `apis.<app>.<api>(...)`; it may define `solution(apis, requester)`, which is then called.
A valid solution does what the supervisor asked (and nothing else that changes their data) and ends with
`apis.supervisor.complete_task(...)` (with `answer=` when the task asks a question)."""


def make_task(entry: dict[str, Any], version: str) -> Task:
    supervisor = entry.get("supervisor") or {}
    name = " ".join(str(supervisor.get(k, "")) for k in ("first_name", "last_name")).strip() or "the supervisor"
    return Task.create(
        source="appworld", source_id=entry["task_id"],
        instruction=INSTRUCTION.format(name=name, email=supervisor.get("email", "?"), datetime=entry.get("datetime", "?"),
                                       instruction=entry["instruction"]),
        environment={"allowed_apps": entry.get("allowed_apps", []), "supervisor": supervisor},
        format=CODE,
        reference={"checker": "appworld", "task_id": entry["task_id"], "appworld": version},
        metadata={"split": entry.get("split")},
    )


def build(seed: int) -> Selection:
    try:
        probe = runtime.call({"op": "probe"})
        entries = [{**e, "split": split} for split in SPLITS for e in runtime.call({"op": "tasks", "split": split})["tasks"]]
    except RuntimeError as e:
        raise UserError(f"AppWorld's data under $APPWORLD_ROOT cannot be read: {e}") from None
    if not entries:
        raise UserError(f"AppWorld {probe['version']} finds no tasks in its {' and '.join(SPLITS)} splits under $APPWORLD_ROOT")
    entries.sort(key=lambda e: e["task_id"])
    random.Random(f"{seed}:appworld").shuffle(entries)
    result = Selection(record={"seed": seed, "quota": QUOTA, "appworld": probe["version"], "splits": probe["splits"], "walked": []})
    for entry in entries:
        if len(result.retained) >= QUOTA:
            break
        result.record["walked"].append(entry["task_id"])
        task = make_task(entry, probe["version"])
        drafts = cases.generate(entry["solution_code"], random.Random(f"{seed}:appworld:{entry['task_id']}"))
        replayed = replay(task, drafts, decide=decide)
        result.dropped += replayed.dropped
        if replayed.exclusion:
            result.excluded.append(replayed.exclusion)
        else:
            result.retained.append(replayed)
    return result


def select_tasks(seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """The source hook (`Source.select`): the data comes from the installed package, so `paths` is unused."""
    return build(seed)
