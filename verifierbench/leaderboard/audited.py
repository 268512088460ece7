"""Audited scores (TestJack) beside the hidden-suite ones: per configuration, per task type and per source.

Each task of a configuration contributes one `AuditedTask`, read either from the log's `testjack_audit`
score (`inspect eval -T audit=true`, or `inspect score --scorer verifierbench/testjack_audit`) or from the
summary `verifierbench audit` writes (`--audit FILE`). From them:

- audited TPR/TNR/BA_norm: task-weighted like the paper's, each task's rates taken on its hidden cases plus
  its witnesses (a task without an auditor has no witnesses: its hidden-suite rates; no verifier: 0);
- refuted share: refuted verifiers among those an auditor met (a delivered verifier on an auditable task);
- perfect->refuted: verifiers with BA_norm 100 on the hidden suite (first judgment round, as the audit
  reads them) that the audit refutes, over all such verifiers an auditor met.

Only the tasks with an audit record count, so the audited numbers of a configuration cover the tasks
its audit covered (`n_tasks`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.core.metrics import TaskRates, group_by, task_weighted

AUDIT_SCORER = "testjack_audit"
# `verifierbench audit` statuses (audit/lightweight.py) of a delivered verifier on an auditable task.
MET_AN_AUDITOR = {"refuted", "audited-clean", "unaudited"}


@dataclass(frozen=True)
class AuditedTask:
    task_type: str
    source: str
    audited: bool  # an auditor met a delivered verifier
    refuted: bool
    r_pos: float  # on hidden cases plus witnesses, in [0, 1]
    r_neg: float
    perfect_on_hidden: bool


def from_score(value: dict[str, Any], hidden_meta: dict[str, Any]) -> AuditedTask:
    """One sample's `testjack_audit` score value (its first round's rates) with the hidden_cases metadata of the same
    sample. KeyError/TypeError/ValueError on a malformed value (the caller names the sample)."""
    return AuditedTask(str(hidden_meta["task_type"]), str(hidden_meta["source"]), bool(value["audited"]), bool(value["refuted"]),
                       float(value["r_pos@0"]), float(value["r_neg@0"]), perfect_first_round(hidden_meta))


def perfect_first_round(hidden_meta: dict[str, Any]) -> bool:
    """Every positive hidden case PASS and every negative FAIL in the first round, with a verifier delivered."""
    if hidden_meta.get("verifier_hash") is None:
        return False
    want = {"PASS": "P", "FAIL": "F"}
    return all(c["decisions"][0] == want[c["label"]] for c in hidden_meta["cases"])


def from_summary(path: str | Path, samples: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, AuditedTask]]:
    """`verifierbench audit`'s summary.json -> configuration -> task id -> AuditedTask, for the configurations and
    tasks in `samples` (configuration -> task id -> hidden_cases metadata). One-line UserError on a bad file."""
    try:
        summary = json.loads(Path(path).read_bytes().decode("utf-8"))
        tasks = summary["tasks"]
        out: dict[str, dict[str, AuditedTask]] = defaultdict(dict)
        for entry in tasks:
            if "rates" not in entry:
                raise UserError(f"--audit {path}: no per-task rates (written by an older `verifierbench audit`); run the audit again")
            for configuration, status in entry["trials"].items():
                meta = samples.get(configuration, {}).get(entry["task_id"])
                if meta is None:
                    continue  # a configuration or task these logs do not hold
                rates = entry["rates"][configuration]
                out[configuration][entry["task_id"]] = AuditedTask(
                    str(meta["task_type"]), str(meta["source"]), status in MET_AN_AUDITOR, status == "refuted",
                    float(rates["audited_r_pos"]), float(rates["audited_r_neg"]), bool(rates["perfect_on_hidden"]))
    except OSError as exc:
        raise UserError(f"--audit {path}: cannot read ({exc.strerror or exc})") from None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:  # not JSON, or not an audit summary
        raise UserError(f"--audit {path}: not a `verifierbench audit` summary ({type(exc).__name__}: {exc})") from None
    return dict(out)


def summarize(tasks: list[AuditedTask]) -> dict[str, Any]:
    """Audited TPR/TNR/BA_norm, refuted share and perfect->refuted over these tasks (unrounded percentages)."""
    met = [t for t in tasks if t.audited]
    perfect = [t for t in met if t.perfect_on_hidden]
    rates = task_weighted([TaskRates(t.r_pos, t.r_neg, None, True) for t in tasks])
    return {
        **{key: rates[key] for key in ("TPR", "TNR", "BA_norm", "n_tasks")}, "n_audited": len(met),
        "refuted": sum(t.refuted for t in met), "refuted_share": 100 * sum(t.refuted for t in met) / len(met) if met else None,
        "perfect_on_hidden": len(perfect), "perfect_refuted": sum(t.refuted for t in perfect),
    }


def audited_result(tasks: dict[str, AuditedTask]) -> dict[str, Any] | None:
    """The summary over all tasks, by task type and by source; None without any audit record."""
    if not tasks:
        return None
    result = summarize(list(tasks.values()))
    result["by_type"] = {name: summarize(members) for name, members in group_by(tasks.values(), lambda t: t.task_type).items()}
    result["by_source"] = {name: summarize(members) for name, members in group_by(tasks.values(), lambda t: t.source).items()}
    return result
