"""The task analysis pass (testjack §3.3, "agentic task analysis"): before any verifier of a task is audited, a
model reads the task's requirements and its hidden cases (T0), names the requirements they leave unchecked and
writes candidates for them. The reference verifier certifies each label like any other proposal, the reviewer
re-judges the certified ones, and they go to the witness pool, so every configuration's verifier meets them:
T1 = T0 ∪ T_task. The result is cached per task and model beside the pool, so the pass runs once per task
however many configurations are audited."""

from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TYPE_CHECKING

from verifierbench.audit import certification, llm, reviewer
from verifierbench.audit.pool import WitnessPool
from verifierbench.audit.witness import Witness
from verifierbench.core.proposals import candidate_key
from verifierbench.sources.formats.registry import format_of
from verifierbench.core.schema import Task, TestCase

if TYPE_CHECKING:  # only annotations: judging and auditing import nothing of Inspect
    from inspect_ai.model import Model

NAME = "task_analysis"
MAX_CANDIDATES = 12
CASES_PER_CATEGORY = 3
MAX_CASE_CHARS = 1_500
MAX_CASES_CHARS = 30_000
CACHE_DIR = "task-analysis"

PROMPT = """You are analysing one verification task before any verifier written for it is seen.
A verifier reads one candidate and decides PASS (the candidate fulfils the task) or FAIL.
Your goal: find what the task requires that its test cases below do not check, and write new test cases for it.

## Task requirements
{instruction}

## The task's test cases (category, correct decision, candidate; at most {per_category} per category)
{cases}

## What to do
1. Decompose the requirements into atomic ones. For each, say whether the test cases above check it.
2. For the requirements they leave unchecked, write up to {limit} new candidates: label PASS for a candidate that
   fulfils every requirement (every form the requirements allow), label FAIL for one that violates a requirement.
   Ground each in a requirement above, never in an incidental detail. Each must be a complete candidate in the
   format the test cases show. Failure modes verifiers often have: {failure_modes}{format_note}

Reply with one JSON object in a ```json block:
{{"requirements": [{{"requirement": "...", "covered": true}}],
  "candidates": [{{"label": "PASS" or "FAIL", "requirement": "the requirement it targets", "candidate": {{...}}}}]}}
"""


@dataclass
class TaskAnalysis:
    """One task analysis: its certified witnesses (T_task), the proposals dropped with their reasons, and the
    requirements the model listed."""

    task_id: str
    task_hash: str
    model: str
    proposed: int = 0
    witnesses: list[Witness] = field(default_factory=list)
    dropped: list[dict[str, str]] = field(default_factory=list)  # label, requirement, reason, key
    analysis: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """What a score or the audit summary reports."""
        return {"model": self.model, "proposed": self.proposed, "certified": len(self.witnesses),
                "valid": sum(w.refutes for w in self.witnesses), "dropped": self.dropped,
                "witnesses": [{"key": w.key, "label": w.label.value, "requirement": w.requirement, "review": w.review.verdict}
                              for w in self.witnesses],
                **self.analysis}

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "task_hash": self.task_hash, "model": self.model, "proposed": self.proposed,
                "witnesses": [w.to_json() for w in self.witnesses], "dropped": self.dropped, "analysis": self.analysis}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TaskAnalysis":
        return cls(data["task_id"], data["task_hash"], data["model"], int(data["proposed"]),
                   [Witness.from_json(w) for w in data["witnesses"]], list(data["dropped"]), dict(data["analysis"]))


def prompt(task: Task, hidden: list[TestCase]) -> str:
    return PROMPT.format(instruction=task.instruction, cases=render_cases(hidden), per_category=CASES_PER_CATEGORY,
                         limit=MAX_CANDIDATES, failure_modes=format_of(task).audit_failure_modes,
                         format_note=format_of(task).audit_format_note)


def render_cases(hidden: list[TestCase]) -> str:
    """A few hidden cases per category (first by id), each cut to MAX_CASE_CHARS, all to MAX_CASES_CHARS."""
    shown: dict[str, int] = {}
    parts: list[str] = []
    for case in sorted(hidden, key=lambda c: (c.category.value, c.id)):
        if shown.get(case.category.value, 0) >= CASES_PER_CATEGORY:
            continue
        shown[case.category.value] = shown.get(case.category.value, 0) + 1
        parts.append(f"- {case.category.value}, {case.label.value}: {json.dumps(case.candidate, sort_keys=True)[:MAX_CASE_CHARS]}")
    return "\n".join(parts)[:MAX_CASES_CHARS]


def cache_path(pool: WitnessPool, task_id: str, model_name: str) -> Path:
    return pool.directory / CACHE_DIR / task_id / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', model_name)}.json"


def cached(pool: WitnessPool | None, task: Task, model_name: str) -> TaskAnalysis | None:
    """The stored analysis of this task version by this model, if any (an unreadable file counts as none)."""
    if pool is None:
        return None
    path = cache_path(pool, task.id, model_name)
    try:
        found = TaskAnalysis.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    return found if found.task_hash == task.content_hash else None


# One analysis per task and model at a time in this process (concurrent samples of one eval share it).
_locks: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]]" = weakref.WeakKeyDictionary()


async def run(task: Task, hidden: list[TestCase], model: Model, review_model: Model | None, pool: WitnessPool | None) -> TaskAnalysis:
    """The task's analysis by `model`: from the cache when this task version was analysed by it, else run now.
    Certified witnesses are reviewed (by `review_model`, else by rule: an unreviewed LLM witness stays
    questionable) and added to the pool.

    Args:
        task: the task to analyse.
        hidden: its hidden cases (T0), shown to the model and never proposed again.
        model: the analysing model.
        review_model: the reviewer, or None for the rule review.
        pool: the witness pool (also where the cache lives); None runs uncached and pools nothing.
    """
    name = str(model)
    lock = _locks.setdefault(asyncio.get_running_loop(), {}).setdefault(f"{task.id}\0{name}", asyncio.Lock())
    async with lock:
        found = cached(pool, task, name)
        if found is None:
            found = await _analyse(task, hidden, model, review_model, pool)
            if pool is not None:
                _write(cache_path(pool, task.id, name), found.to_json())
        if pool is not None:
            pool.add(found.witnesses)  # idempotent: a cached analysis refills a pool that lost them
        return found


async def _analyse(task: Task, hidden: list[TestCase], model: Model, review_model: Model | None, pool: WitnessPool | None) -> TaskAnalysis:
    output = await model.generate(prompt(task, hidden))
    proposals, analysis = llm.parse(output.completion, auditor=NAME, operator=NAME, listed="requirements", limit=MAX_CANDIDATES)
    proposals = llm.completed(task, proposals)
    known = {candidate_key(c.candidate) for c in hidden}
    if pool is not None:
        known |= {w.key for w in pool.load(task.id, task.content_hash)}
    certified, dropped = await asyncio.to_thread(certification.screen, task, proposals, known)
    for witness in certified:
        witness.review = await reviewer.review(review_model, task, witness)
    return TaskAnalysis(task.id, task.content_hash, str(model), len(proposals), certified,
                        [{"label": p.label.value, "requirement": p.requirement, "reason": reason, "key": p.key} for p, reason in dropped],
                        analysis)


def _write(path: Path, data: dict[str, Any]) -> None:
    """Atomic, so a concurrent reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as out:
        json.dump(data, out, indent=1, sort_keys=True)
        temporary = out.name
    os.replace(temporary, path)
