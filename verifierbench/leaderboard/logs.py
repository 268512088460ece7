"""Reads VerifierBench Inspect logs (through Inspect's API) into one record set per configuration.

A configuration is the model with its arguments and reasoning effort, the harness and the task
options that change scores (not the task selection): a configuration run task by task, or resumed
over several logs, merges into one. Each task keeps its latest scored sample. Per-case decisions
come from the hidden-case scorer's metadata, so every table is recomputed from the evidence.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from verifierbench.errors import UserError
from verifierbench.leaderboard import audited
from verifierbench.leaderboard.interval import bootstrap_interval
from verifierbench.metrics import DecisionRecord, TaskInfo, compute, median_round, tally
from verifierbench.protocol import Decision
from verifierbench.schema import Category, Label, TaskType
from verifierbench.sources import registry
from verifierbench import verifier_files

SCORER = "hidden_cases"
# Choose tasks (a shard of them too) or add scorers beside hidden_cases: they do not change how verifiers are generated or scored.
SELECTION_ARGS = {"source", "type", "task_ids", "suite", "audit", "audit_rounds", "shard"}
SKIPPED_FIELDS = {"messages", "events", "store", "attachments", "output"}  # the leaderboard needs scores only


@dataclass
class ConfigurationRun:
    name: str
    key: str
    model: str
    harness: str
    effort: str | None = None
    model_label: str | None = None  # the paper's name of the model, for configurations from configurations.py
    harness_label: str | None = None
    harness_version: str | None = None  # the CLI's pinned version (task metadata), None in logs from before it
    samples: dict[str, dict[str, Any]] = field(default_factory=dict)  # task id -> score metadata
    created: dict[str, str] = field(default_factory=dict)  # task id -> creation time of the log it came from
    logs: set[str] = field(default_factory=set)
    audits: dict[str, audited.AuditedTask] = field(default_factory=dict)  # task id -> its audit, when the sample was audited


@dataclass
class ScoredRun:
    run: ConfigurationRun
    result: dict[str, Any]  # metrics.compute of the selected round, plus round, rounds, logs


def read_runs(log_dir: str | Path) -> dict[str, ConfigurationRun]:
    infos = list_eval_logs(str(log_dir), recursive=True)
    if not infos:
        raise UserError(f"{log_dir}: no Inspect logs here")
    runs: dict[str, ConfigurationRun] = {}
    unreadable: list[str] = []
    for info in infos:
        log = _read_log(info, unreadable)
        if log is None or not _is_verifierbench(log):
            continue
        run = configuration_of(log)
        run = runs.setdefault(run.key, run)
        run.logs.add(Path(info.name).name)
        for sample in log.samples or []:
            score = (sample.scores or {}).get(SCORER)
            if score is None or not score.metadata or "cases" not in score.metadata:
                continue  # errored or cancelled sample: a retry's log holds it
            task_id = str(sample.id)
            _check_sample(score.metadata, f"{_name(info)} sample {task_id}")
            if task_id not in run.created or log.eval.created >= run.created[task_id]:
                # The task's id in its source (sample metadata) beside the scorer's record, for the per-task view.
                source_id = (sample.metadata or {}).get("source_id")
                run.samples[task_id] = {**score.metadata, **({"source_id": str(source_id)} if source_id is not None else {})}
                run.created[task_id] = log.eval.created
                run.audits.pop(task_id, None)  # an audit belongs to the sample (and verifier) it was scored on
                audit = (sample.scores or {}).get(audited.AUDIT_SCORER)
                if audit is not None and isinstance(audit.value, dict):
                    run.audits[task_id] = _audited_task(audit.value, score.metadata, f"{_name(info)} sample {task_id}")
    runs = {key: run for key, run in runs.items() if run.samples}
    if not runs:
        raise UserError(f"{log_dir}: no VerifierBench samples in these logs"
                        + (f" ({len(unreadable)} unreadable: {unreadable[0]})" if unreadable else ""))
    for problem in unreadable:  # a run killed mid-write leaves a truncated .eval: the other logs still count
        print(f"warning: skipping {problem}", file=sys.stderr)
    return runs


def _name(info) -> str:
    return info.name.removeprefix("file://")


def _read_log(info, unreadable: list[str]) -> EvalLog | None:
    """The log, or None when it cannot be read, its name and the reason added to `unreadable`."""
    try:
        return read_eval_log(info, exclude_fields=SKIPPED_FIELDS)
    except Exception as exc:  # noqa: BLE001 - Inspect's reader raises many kinds (zip, JSON, validation) on a corrupt file
        unreadable.append(f"{_name(info)}: not a readable Inspect log ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''})")
        return None


def _check_sample(meta: dict[str, Any], where: str) -> None:
    """The hidden-case scorer's metadata, as the tables read it: a hand-edited or corrupt log names its sample."""
    try:
        TaskType(meta["task_type"])
        if meta["source"] not in registry.NAMES:
            raise ValueError(f"{meta['source']!r} is not a valid Source")
        for case in meta["cases"]:
            str(case["case_id"]), Category(case["category"]), Label(case["label"])
            if not isinstance(case["decisions"], list) or not case["decisions"]:
                raise ValueError("a case without decisions")
            for decision in case["decisions"]:
                Decision(decision)
        for relative, entry in (meta.get("verifier_files") or {}).items():  # audit writes these files to disk
            if not verifier_files.safe_relative(relative):
                raise ValueError(f"verifier file path {relative!r} leaves the verifier directory")
            verifier_files.decode(entry)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # binascii.Error is a ValueError
        raise UserError(f"{where}: malformed hidden_cases score metadata ({type(exc).__name__}: {exc})") from None


def _audited_task(value: dict[str, Any], hidden_meta: dict[str, Any], where: str) -> audited.AuditedTask:
    try:
        return audited.from_score(value, hidden_meta)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise UserError(f"{where}: malformed {audited.AUDIT_SCORER} score ({type(exc).__name__}: {exc})") from None


def _is_verifierbench(log: EvalLog) -> bool:
    return log.results is not None and any(s.scorer == SCORER or s.name == SCORER for s in log.results.scores)


def configuration_of(log: EvalLog) -> ConfigurationRun:
    meta = log.eval.metadata or {}
    args = {k: v for k, v in (log.eval.task_args or {}).items() if k not in SELECTION_ARGS}
    harness = meta.get("harness", args.get("harness", "default"))
    effort = meta.get("effort") or log.eval.model_generate_config.reasoning_effort
    key = json.dumps({"model": log.eval.model, "model_args": log.eval.model_args, "harness": harness, "effort": effort,
                      "args": args}, sort_keys=True, default=str)
    name = meta.get("configuration") or (log.eval.model + (f" [{harness}]" if harness != "default" else "")
                                         + (f" effort={effort}" if effort else "")
                                         + "".join(f" {k}={v}" for k, v in sorted((log.eval.model_args or {}).items())))
    return ConfigurationRun(name, key, log.eval.model, harness, effort, meta.get("model_label"), meta.get("harness_label"),
                            meta.get("harness_version"))


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
    """Metrics of the round with the median aggregate BA_norm (paper §2.4); every grouped
    result (by type, source, category) comes from that same round."""
    rounds = max((len(c["decisions"]) for m in run.samples.values() for c in m["cases"]), default=1)
    by_round = [compute(records(run, k), tasks) for k in range(rounds)]
    chosen = median_round([result["BA_norm"] for result in by_round])
    per_task = [100 * (t.r_pos() + t.r_neg()) - 100 for t in tally(records(run, chosen), tasks).values()]
    return {**by_round[chosen], "round": chosen + 1, "rounds": rounds, "logs": sorted(run.logs),
            "BA_norm_ci": list(bootstrap_interval(per_task)) if per_task else None,  # 95%, tasks resampled, the same round
            "audited": audited.audited_result(run.audits)}


def scored_runs(log_dir: str | Path, audit_summary: str | Path | None = None) -> list[ScoredRun]:
    """Every configuration under log_dir, ranked by unrounded BA_norm. Audited scores come from the logs'
    testjack_audit scores, or, with `audit_summary`, from that `verifierbench audit` summary instead."""
    runs = read_runs(log_dir)
    if audit_summary is not None:
        from_summary = audited.from_summary(audit_summary, {run.name: run.samples for run in runs.values()})
        for run in runs.values():
            run.audits = from_summary.get(run.name, {})
    tasks = inventory(runs)
    scored = [ScoredRun(run, score_run(run, tasks)) for run in runs.values()]
    return sorted(scored, key=lambda s: (-s.result["BA_norm"], s.run.name))

