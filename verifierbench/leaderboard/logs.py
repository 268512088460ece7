"""Reads VerifierBench Inspect logs (through Inspect's API) into one record set per configuration.

A configuration is the model with its arguments, the harness and the task options that change
scores (not the task selection): a configuration run task by task, or resumed over several logs,
merges into one. Each task keeps its latest scored sample. Per-case decisions come from the
hidden-case scorer's metadata, so the leaderboard recomputes everything from the evidence.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from verifierbench.errors import UserError
from verifierbench.metrics import DecisionRecord, TaskInfo, compute
from verifierbench.protocol import Decision
from verifierbench.schema import Category, Label

SCORER = "hidden_cases"
SELECTION_ARGS = {"source", "type", "task_ids", "suite"}  # choose tasks; do not change how they are scored


@dataclass
class ConfigurationRun:
    name: str
    key: str
    samples: dict[str, dict[str, Any]] = field(default_factory=dict)  # task id -> score metadata
    created: dict[str, str] = field(default_factory=dict)  # task id -> log creation time of the kept sample
    logs: set[str] = field(default_factory=set)


def read_runs(log_dir: str | Path) -> dict[str, ConfigurationRun]:
    infos = list_eval_logs(str(log_dir), recursive=True)
    if not infos:
        raise UserError(f"{log_dir}: no Inspect logs here")
    runs: dict[str, ConfigurationRun] = {}
    for info in infos:
        log = read_eval_log(info)
        if not _is_verifierbench(log):
            continue
        key, name = configuration_of(log)
        run = runs.setdefault(key, ConfigurationRun(name, key))
        run.logs.add(info.name)
        for sample in log.samples or []:
            score = (sample.scores or {}).get(SCORER)
            if score is None or not score.metadata or "cases" not in score.metadata:
                continue  # errored or cancelled sample: a retry's log holds it
            task_id = str(sample.id)
            if task_id not in run.created or log.eval.created >= run.created[task_id]:
                run.samples[task_id], run.created[task_id] = score.metadata, log.eval.created
    if not runs:
        raise UserError(f"{log_dir}: no VerifierBench samples in these logs")
    return runs


def _is_verifierbench(log: EvalLog) -> bool:
    return log.results is not None and any(s.scorer == SCORER or s.name == SCORER for s in log.results.scores)


def configuration_of(log: EvalLog) -> tuple[str, str]:
    meta = log.eval.metadata or {}
    args = {k: v for k, v in (log.eval.task_args or {}).items() if k not in SELECTION_ARGS}
    harness = meta.get("harness", args.get("harness", "default"))
    key = json.dumps({"model": log.eval.model, "model_args": log.eval.model_args, "harness": harness, "args": args}, sort_keys=True, default=str)
    name = meta.get("configuration") or (f"{log.eval.model}" + (f" [{harness}]" if harness != "default" else "")
                                         + "".join(f" {k}={v}" for k, v in sorted((log.eval.model_args or {}).items())))
    return key, name


def inventory(runs: dict[str, ConfigurationRun]) -> list[TaskInfo]:
    """Every task any configuration ran: a configuration without it counts as a missing verifier there."""
    tasks: dict[str, TaskInfo] = {}
    for run in runs.values():
        for task_id, meta in run.samples.items():
            tasks.setdefault(task_id, TaskInfo(task_id, meta["task_type"], meta["source"]))
    return sorted(tasks.values(), key=lambda t: t.task_id)


def records(run: ConfigurationRun, k: int) -> list[DecisionRecord]:
    """Round k's decisions; a task judged fewer times keeps its last round (tool-call tasks: the one)."""
    out = []
    for task_id, meta in run.samples.items():
        submitted = meta.get("verifier_hash") is not None
        for case in meta["cases"]:
            decisions = case["decisions"]
            out.append(DecisionRecord(task_id, case["case_id"], Category(case["category"]), Label(case["label"]),
                                      Decision(decisions[min(k, len(decisions) - 1)]), meta["task_type"], meta["source"], submitted))
    return out


def score_run(run: ConfigurationRun, tasks: list[TaskInfo]) -> dict[str, Any]:
    """Metrics of the round with the median aggregate BA_norm (architecture §5)."""
    rounds = max((len(c["decisions"]) for m in run.samples.values() for c in m["cases"]), default=1)
    by_round = [compute(records(run, k), tasks) for k in range(rounds)]
    order = sorted(range(rounds), key=lambda k: (by_round[k]["ba_norm"], k))
    chosen = order[(rounds - 1) // 2]
    return {**by_round[chosen], "round": chosen + 1, "rounds": rounds, "logs": sorted(run.logs)}


def leaderboard(log_dir: str | Path) -> list[tuple[str, dict[str, Any]]]:
    runs = read_runs(log_dir)
    tasks = inventory(runs)
    rows = [(run.name, score_run(run, tasks)) for run in runs.values()]
    return sorted(rows, key=lambda row: -row[1]["ba_norm"])  # rank on unrounded BA_norm
