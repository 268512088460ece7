"""Reads VerifierBench Inspect logs (through Inspect's API) into one record set per configuration.

A configuration is the model with its arguments and reasoning effort, the harness and the task
options that change scores (not the task selection): a configuration run task by task, or resumed
over several logs, merges into one. Each task keeps its latest scored sample. Per-case decisions
come from the hidden-case scorer's metadata, so every table is recomputed from the evidence.

Every log read is accounted for (`LogRecord`): an errored, cancelled, partial or unscored run keeps its
status and how many of its samples were scored, and gets one warning line; an unreadable log or another
task's log is named as skipped. Configurations are ranked on the tasks every one of them scored (`TaskSet`),
the excluded tasks named; `pad_missing` ranks on every task instead, a missing one counting as a failure.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalError, EvalLog, list_eval_logs, read_eval_log

from verifierbench.core.errors import UserError
from verifierbench.leaderboard import audited
from verifierbench.leaderboard.interval import bootstrap_interval
from verifierbench.core.metrics import DecisionRecord, TaskInfo, compute, median_round, tally
from verifierbench.core.protocol import Decision
from verifierbench.core.schema import Category, Label, TaskType
from verifierbench.sources import registry
from verifierbench.core import verifier_files

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
    log_records: list[LogRecord] = field(default_factory=list)  # every log of this configuration, scored or not

    @property
    def status(self) -> str:
        """`complete` when every log of it finished and had every sample it selected scored, else its logs' states."""
        states = sorted({record.state for record in self.log_records if not record.complete and not record.superseded})
        return ", ".join(states) if states else "complete"


@dataclass
class LogRecord:
    """One log read: what it held, or why it was skipped."""

    name: str  # its path
    status: str  # Inspect's (success, error, cancelled, started), or UNREADABLE / OTHER_TASK
    configuration: str | None = None  # None: skipped (not a VerifierBench log)
    selected: int | None = None  # samples its task selection held (Inspect's dataset size, before --limit)
    tasks: set[str] = field(default_factory=set)  # the tasks with a hidden_cases score in this log
    reason: str | None = None  # the run's error, or why nothing in it was scored or read
    planned: set[str] = field(default_factory=set)  # the samples it set out to run (after --limit)
    superseded: bool = False  # not complete, but every task it selected is scored in another log (a retry's)

    @property
    def state(self) -> str:
        """Inspect's status, `partial` for a finished run without a score on every sample it selected."""
        return "partial" if self.status == "success" and not self.complete else self.status

    @property
    def complete(self) -> bool:
        return self.status == "success" and self.selected is not None and len(self.tasks) >= self.selected

    def warning(self) -> str | None:
        """One line for a skipped log or a run that is not complete; None for a complete one."""
        if self.configuration is None:
            return f"warning: skipping {self.name}: {self.reason}"
        if self.complete:
            return None
        status = self.state + (" (status success)" if self.state == "partial" else "")
        return (f"warning: {self.name}: {status}, {len(self.tasks)}/{self.selected} samples scored ({self.configuration})"
                + (f": {self.reason}" if self.reason else "")
                + ("; every task it selected is scored in another log of this configuration" if self.superseded else ""))


UNREADABLE = "unreadable"
OTHER_TASK = "other task"


@dataclass
class LogSet:
    runs: dict[str, ConfigurationRun]  # key -> configuration, including those without any scored sample
    logs: list[LogRecord]  # every log under the directory, by name

    def warnings(self) -> list[str]:
        return [line for line in (record.warning() for record in self.logs) if line]


@dataclass
class ScoredRun:
    run: ConfigurationRun
    result: dict[str, Any]  # metrics.compute of the selected round, plus round, rounds, logs
    tasks: frozenset[str] | None = None  # the task ids it is ranked on (None: all of its samples)

    @property
    def samples(self) -> dict[str, dict[str, Any]]:
        """Its samples on the tasks it is ranked on."""
        return {t: m for t, m in self.run.samples.items() if self.tasks is None or t in self.tasks}


def read_logs(log_dir: str | Path) -> LogSet:
    """Every log under log_dir, each configuration's scored samples merged; UserError when none holds a scored sample."""
    infos = list_eval_logs(str(log_dir), recursive=True)
    if not infos:
        raise UserError(f"{log_dir}: no Inspect logs here")
    runs: dict[str, ConfigurationRun] = {}
    records: list[LogRecord] = []
    for info in infos:
        log, problem = _read_log(info)
        if log is None:  # a run killed mid-write leaves a truncated .eval: the other logs still count
            records.append(LogRecord(_name(info), UNREADABLE, reason=problem))
            continue
        if not _is_verifierbench(log):
            records.append(LogRecord(_name(info), OTHER_TASK, reason=f"not a VerifierBench log (task {log.eval.task})"))
            continue
        run = configuration_of(log)
        run = runs.setdefault(run.key, run)
        run.logs.add(Path(info.name).name)
        record = LogRecord(_name(info), log.status, run.name, log.eval.dataset.samples,
                           planned={str(i) for i in log.eval.dataset.sample_ids or []})
        for sample in log.samples or []:
            score = (sample.scores or {}).get(SCORER)
            if score is None or not score.metadata or "cases" not in score.metadata:
                continue  # errored or cancelled sample: counted as not scored in its log's record
            task_id = str(sample.id)
            record.tasks.add(task_id)
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
        record.reason = _why_not_scored(log, record)
        run.log_records.append(record)
        records.append(record)
    records.sort(key=lambda r: r.name)
    for run in runs.values():
        for record in run.log_records:
            # An interrupted run that a later one (`inspect eval-retry`) finished: named, but it leaves nothing missing.
            # Only a log listing every task it selected can tell (after --limit, the others are not listed).
            record.superseded = (not record.complete and len(record.planned) == record.selected
                                 and record.planned <= set(run.samples))
    if not any(run.samples for run in runs.values()):
        counts = Counter(r.state for r in records)
        raise UserError(f"{log_dir}: no VerifierBench samples with scores in these logs ({len(records)} read: "
                        + ", ".join(f"{n} {state}" for state, n in sorted(counts.items())) + ")"
                        + "".join(f"; {r.name}: {r.reason}" for r in records[:1] if r.reason))
    return LogSet(runs, records)


def read_runs(log_dir: str | Path) -> dict[str, ConfigurationRun]:
    """The configurations with scored samples; a warning line on stderr per skipped log or run that is not complete."""
    logset = read_logs(log_dir)
    for line in logset.warnings():
        print(line, file=sys.stderr)
    return {key: run for key, run in logset.runs.items() if run.samples}


# An exception line of a traceback (`openai.InternalServerError: Error code: 500 - ...`): its class name and message.
EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*(?:Error|Exception|Timeout)\w*): (.+)$", re.MULTILINE)
# An error message Inspect records as the exception's repr (`JSONDecodeError('Expecting value: ...')`).
REPR_MESSAGE = re.compile(r"^([A-Za-z_]\w*)\((['\"])(.*)\2\)$")
# Exceptions that only wrap the one that says why: tenacity's, when Inspect's retries of a model call run out.
WRAPPERS = {"RetryError": "the model call failed after Inspect's retries"}
# Exceptions whose name alone does not say they came from the model call, when raised inside it (a frame of Inspect's
# model layer in the traceback): a 200 reply whose body is not JSON, which neither Inspect nor the client retries.
IN_MODEL_CALL = {"JSONDecodeError": "the model server's reply was not JSON; not retried"}
MODEL_CALL_FRAME = re.compile(r"inspect_ai/model/_model\.py\", line \d+, in (?:_?generate)")


def error_reason(error: EvalError) -> str:
    """One line saying why a run or sample errored: its message, or, for a wrapper such as tenacity's RetryError
    (whose message names no cause), the first exception of its traceback's chain (Python prints the cause first);
    an exception that came from the model call without saying so has that said after it."""
    message = ((error.message or "").strip().splitlines() or [""])[0]
    if (as_repr := REPR_MESSAGE.match(message)) is not None:
        message = f"{as_repr.group(1)}: {as_repr.group(3)}"
    traceback = error.traceback or ""
    wrapper = next((name for name in WRAPPERS if message.startswith(name)), None)
    causes = [(name, text) for name, text in EXCEPTION_LINE.findall(traceback) if name not in WRAPPERS]
    if wrapper is not None and causes:
        name, text = causes[0]
        return f"{name}: {text.strip()} ({WRAPPERS[wrapper]})"[:300]
    name = message.split(":", 1)[0]
    if name in IN_MODEL_CALL and MODEL_CALL_FRAME.search(traceback):
        return f"{message[:240]} ({IN_MODEL_CALL[name]})"
    return message[:300]


def _why_not_scored(log: EvalLog, record: LogRecord) -> str | None:
    """The run's error, else its samples' errors, else why a finished run has no scores at all (first lines)."""
    if log.error is not None and (log.error.message or "").strip():
        return error_reason(log.error)
    errored = [error_reason(sample.error) for sample in log.samples or [] if sample.error is not None]
    if errored:
        return f"{len(errored)} sample(s) errored: " + errored[0]
    if log.eval.config.limit is not None and record.selected is not None and len(record.tasks) < record.selected:
        return f"run with --limit {log.eval.config.limit}"
    scored = log.results is not None and any(_scorer_name(s) == SCORER for s in log.results.scores)
    if log.status == "success" and not record.tasks and not scored:
        return "no hidden_cases scores (an `inspect eval --no-score` log: `verifierbench judge --logs DIR` scores it)"
    return None


def _name(info) -> str:
    return info.name.removeprefix("file://")


def _read_log(info) -> tuple[EvalLog | None, str | None]:
    """(the log, None), or (None, why it cannot be read)."""
    try:
        return read_eval_log(info, exclude_fields=SKIPPED_FIELDS), None
    except Exception as exc:  # noqa: BLE001 - Inspect's reader raises many kinds (zip, JSON, validation) on a corrupt file
        return None, f"not a readable Inspect log ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"


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


def _scorer_name(score: Any) -> str:
    return str(score.name).split("/")[-1]


def _is_verifierbench(log: EvalLog) -> bool:
    """This package's task (also when it errored before scoring), or a log scored by its hidden_cases scorer."""
    return (log.eval.task.split("/")[-1] == "verifierbench"
            or any(_scorer_name(s) == SCORER for s in log.eval.scorers or [])
            or (log.results is not None and any(s.scorer == SCORER or s.name == SCORER for s in log.results.scores)))


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
    """Every task any configuration scored."""
    tasks: dict[str, TaskInfo] = {}
    for run in runs.values():
        for task_id, meta in run.samples.items():
            tasks.setdefault(task_id, TaskInfo(task_id, meta["task_type"], meta["source"]))
    return sorted(tasks.values(), key=lambda t: t.task_id)


@dataclass
class TaskSet:
    """The tasks configurations are ranked on, and what that leaves out or pads."""

    tasks: list[TaskInfo]  # every ranked configuration is scored on exactly these
    every: list[TaskInfo]  # every task some configuration scored
    names: dict[str, str]  # task id -> `source/source_id`, as users name tasks
    missing: dict[str, list[str]]  # configuration name -> tasks of `every` it has no score for
    padded: bool  # tasks are `every`, a missing one counting as a failure

    @property
    def excluded(self) -> list[str]:
        """Tasks some configuration scored that the ranking leaves out (not scored by every configuration)."""
        ranked = {t.task_id for t in self.tasks}
        return [t.task_id for t in self.every if t.task_id not in ranked]

    def name(self, task_id: str) -> str:
        return self.names.get(task_id, task_id)

    def describe(self, most: int | None = None) -> str:
        """One line: N, what the tasks are, and what was excluded or padded (`most`: names listed at most)."""
        def listed(ids: list[str]) -> str:
            names = [self.name(t) for t in ids]
            shown = names if most is None else names[:most]
            return ", ".join(shown) + (f" and {len(names) - len(shown)} more" if len(shown) < len(names) else "")

        sources = Counter(t.source for t in self.tasks)
        what = f"{len(self.tasks)} tasks ({', '.join(f'{s} {n}' for s, n in sorted(sources.items()))})"
        if self.padded:
            padded = [f"{name} {len(ids)} ({listed(ids)})" for name, ids in sorted(self.missing.items()) if ids]
            return (f"ranked on all {what} the logs hold, a task a configuration did not score counted as a failure "
                    f"(--pad-missing)" + (": " + "; ".join(padded) if padded else ": none missing"))
        excluded = self.excluded
        return (f"ranked on the {what} every ranked configuration scored"
                + (f"; {len(excluded)} excluded, not scored by every configuration: {listed(excluded)} "
                   f"(--pad-missing ranks on all {len(self.every)}, a missing task counting as a failure)" if excluded else ""))


def task_set(runs: dict[str, ConfigurationRun], pad_missing: bool = False) -> TaskSet:
    """The tasks every configuration scored (all of them with `pad_missing`); UserError when no task is common."""
    every = inventory(runs)
    names = {task_id: f"{meta['source']}/{meta['source_id']}" if meta.get("source_id") else task_id
             for run in runs.values() for task_id, meta in run.samples.items()}
    missing = {run.name: [t.task_id for t in every if t.task_id not in run.samples] for run in runs.values()}
    if pad_missing:
        return TaskSet(every, every, names, missing, True)
    common = [t for t in every if all(t.task_id in run.samples for run in runs.values())]
    if not common:
        raise UserError(f"no task was scored by every configuration ({', '.join(f'{r.name}: {len(r.samples)}' for r in runs.values())} "
                        f"tasks); --pad-missing ranks on all {len(every)}, a missing task counting as a failure")
    return TaskSet(common, every, names, missing, False)


def records(run: ConfigurationRun, k: int, tasks: frozenset[str] | None = None) -> list[DecisionRecord]:
    """Round k's decisions on `tasks` (all of the run's by default); a task judged fewer times keeps its last round
    (tool-call tasks: the one)."""
    out = []
    for task_id, meta in run.samples.items():
        if tasks is not None and task_id not in tasks:
            continue
        submitted = meta.get("verifier_hash") is not None
        for case in meta["cases"]:
            decisions = case["decisions"]
            out.append(DecisionRecord(task_id, case["case_id"], Category(case["category"]), Label(case["label"]),
                                      Decision(decisions[min(k, len(decisions) - 1)]), meta["task_type"], meta["source"], submitted))
    return out


def score_run(run: ConfigurationRun, tasks: list[TaskInfo]) -> dict[str, Any]:
    """Metrics over `tasks` (a task the run has no sample for counts as a missing verifier; its samples of other tasks
    are left out) in the round with the median aggregate BA_norm (paper §2.4); every grouped result (by type,
    source, category) comes from that same round."""
    ids = frozenset(t.task_id for t in tasks)
    rounds = max((len(c["decisions"]) for t, m in run.samples.items() if t in ids for c in m["cases"]), default=1)
    by_round = [compute(records(run, k, ids), tasks) for k in range(rounds)]
    chosen = median_round([result["BA_norm"] for result in by_round])
    per_task = [100 * (t.r_pos() + t.r_neg()) - 100 for t in tally(records(run, chosen, ids), tasks).values()]
    return {**by_round[chosen], "round": chosen + 1, "rounds": rounds, "logs": sorted(run.logs),
            "BA_norm_ci": list(bootstrap_interval(per_task)) if per_task else None,  # 95%, tasks resampled, the same round
            "audited": audited.audited_result({t: a for t, a in run.audits.items() if t in ids})}


@dataclass
class Board:
    """What the leaderboard and the paper tables show: the ranked configurations, those without any scored sample,
    every log read, and the task set of the ranking."""

    scored: list[ScoredRun]  # ranked by unrounded BA_norm
    unranked: list[ConfigurationRun]  # logs read, no scored sample (an eval that errored before scoring, a --no-score log)
    logs: list[LogRecord]
    task_set: TaskSet

    def warnings(self) -> list[str]:
        return [line for line in (record.warning() for record in self.logs) if line]

    def as_json(self) -> dict[str, Any]:
        """Configuration name -> its unrounded result; configurations that could not be ranked carry `ranked: false`."""
        out: dict[str, Any] = {s.run.name: s.result for s in self.scored}
        for run in self.unranked:
            out[run.name] = {"ranked": False, "status": run.status, "logs": sorted(run.logs), "tasks_scored": 0,
                             "log_records": _log_json(run)}
        return out


def _log_json(run: ConfigurationRun) -> list[dict[str, Any]]:
    return [{"log": Path(r.name).name, "status": r.state, "samples_scored": len(r.tasks), "samples_selected": r.selected,
             "reason": r.reason} for r in sorted(run.log_records, key=lambda r: r.name)]


def read_board(log_dir: str | Path, audit_summary: str | Path | None = None, pad_missing: bool = False) -> Board:
    """Every configuration under log_dir, ranked by unrounded BA_norm on the tasks every one of them scored (all tasks,
    missing ones as failures, with `pad_missing`). Audited scores come from the logs' testjack_audit scores, or, with
    `audit_summary`, from that `verifierbench audit` summary instead."""
    logset = read_logs(log_dir)
    runs = {key: run for key, run in logset.runs.items() if run.samples}
    if audit_summary is not None:
        from_summary = audited.from_summary(audit_summary, {run.name: run.samples for run in runs.values()})
        for run in runs.values():
            run.audits = from_summary.get(run.name, {})
    tasks = task_set(runs, pad_missing)
    ids = frozenset(t.task_id for t in tasks.tasks)
    scored = []
    for run in runs.values():
        result = score_run(run, tasks.tasks)
        result.update({"ranked": True, "status": run.status, "tasks_scored": len(run.samples), "log_records": _log_json(run),
                       "excluded_tasks": [tasks.name(t) for t in sorted(run.samples) if t not in ids],
                       "padded_tasks": [tasks.name(t) for t in sorted(ids) if t not in run.samples]})
        scored.append(ScoredRun(run, result, ids))
    scored.sort(key=lambda s: (-s.result["BA_norm"], s.run.name))
    unranked = sorted((run for run in logset.runs.values() if not run.samples), key=lambda r: r.name)
    return Board(scored, unranked, logset.logs, tasks)


def scored_runs(log_dir: str | Path, audit_summary: str | Path | None = None, pad_missing: bool = False) -> list[ScoredRun]:
    """The ranked configurations of `read_board`."""
    return read_board(log_dir, audit_summary, pad_missing).scored
