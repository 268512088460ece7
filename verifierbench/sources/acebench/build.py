"""Builds ACEBench tool-call tasks and their cases: seeded selection, case generation, C1 replay."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

from verifierbench.construction.replay import Replayed, replay
from verifierbench.construction.selection import Selection, select
from verifierbench.core.schema import Task
from verifierbench.sources.formats.tool_calls import TOOL_CALLS
from verifierbench.sources.acebench import data
from verifierbench.sources.acebench.spec import spec_for, spec_for_reference
from verifierbench.sources.base import SourcePaths
from verifierbench.sources.toolcall import keycheck
from verifierbench.sources.toolcall import task as toolcall_task
from verifierbench.sources.toolcall.cases import family_record, generate
from verifierbench.sources.toolcall.naive_checks import naive_checks_fooled
from verifierbench.sources.toolcall.reference import decide

QUOTAS = {"single": 10, "parallel": 10, "similar_api": 8, "preference": 8, "atom_bool": 2, "atom_enum": 2,
          "atom_list": 2, "atom_number": 3, "atom_object_deep": 3, "atom_object_short": 2}
# Named in the paper: the preference task of App. I and a booking-cancellation task (five cancelBooking calls).
FORCED = ["normal_preference_17", "normal_atom_object_deep_38"]

# Per-task caps on interchangeable case groups (cases.GROUPS), a seeded choice per task: with the families every
# task samples (cases.FAMILIES) they keep cases and positives per task near the paper's Table 1.
CAPS = {"json_renderings": 1, "python_renderings": 1, "text_replies_without_calls": 1, "verifier_directed_text": 1}

def make_task(record: data.Record) -> Task:
    request = record.question.strip()
    return Task.create(
        source="acebench",
        source_id=record.id,
        instruction=toolcall_task.instruction(request, record.functions, record.context),
        environment=toolcall_task.environment(record.functions, record.context),
        format=TOOL_CALLS,
        reference={"checker": "acebench", "functions": record.functions, "ground_truth": record.ground_truth},
        metadata={"upstream_category": data.CATEGORIES[record.category]},
    )


def construct(record: data.Record, seed: int) -> Replayed:
    task = make_task(record)
    spec = spec_for(record)
    drafts = generate(spec, random.Random(f"{seed}:acebench:{record.id}"), CAPS)
    return replay(task, drafts, decide, key_defects=keycheck.defects(spec), fooled=naive_checks_fooled)


def build(seed: int, directory: Path, quotas: dict[str, int] | None = None, forced: list[str] | None = None) -> Selection:
    quotas = quotas or QUOTAS
    # A list ground truth holds alternatives upstream; we keep to single-answer tasks so labels stay unambiguous.
    records = {cat: {i: r for i, r in data.load(directory, cat).items() if isinstance(r.ground_truth, dict)} for cat in quotas}
    result = select(
        {cat: list(recs) for cat, recs in records.items()}, quotas, FORCED if forced is None else forced, seed, "acebench",
        lambda cat, upstream_id: construct(records[cat][upstream_id], seed),
    )
    result.record["data_commit"] = data.source_commit(directory)
    result.record["families"] = family_record([(f"acebench/{r.task.source_id}", spec_for_reference(r.task.reference),
                                                 [c.provenance for c in r.cases]) for r in result.retained])
    return result


def select_tasks(seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """The source hook (`Source.select`): ACEBench's data from `--acebench-dir`, else its default place."""
    return build(seed, data.resolve_dir(paths.get("acebench_dir")))
