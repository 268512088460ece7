"""The paper's result tables (App. D-I) computed from scored configurations.

Every table is a `Table`: columns and rows of raw values (floats stay unrounded here; renderers
round each one independently to one decimal). Ranks follow unrounded BA_norm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifierbench.leaderboard.logs import Board, ConfigurationRun, ScoredRun, TaskSet
from verifierbench.core.metrics import GROUPS, display
from verifierbench.sources import registry

Cell = str | int | float | None


@dataclass
class Table:
    key: str  # file stem, e.g. "table_02_main"
    title: str
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    note: str = ""


def _rank_rows(scored: list[ScoredRun], pick, audited_pick=None, with_interval: bool = False) -> list[list[Cell]]:
    """Ranked rows; with `audited_pick` (the same group of the audited result) the audit columns follow; with
    `with_interval` the BA_norm interval follows BA_norm."""
    results = [(s, pick(s.result)) for s in scored]
    results = [(s, r) for s, r in results if r is not None]
    results.sort(key=lambda sr: (-sr[1]["BA_norm"], sr[0].run.name))
    return [[rank, s.run.name, r["BA_norm"], *([interval_cell(r)] if with_interval else []), r["TPR"], r["TNR"], r["FPR_h"], f"{r['n_submitted']}/{r['n_tasks']}",
             *(_audit_cells(audited_pick(s.result.get("audited"))) if audited_pick else [])]
            for rank, (s, r) in enumerate(results, start=1)]


MAIN_COLUMNS = ["Rank", "Configuration", "BA_norm", "TPR", "TNR", "FPR_h", "Submitted/N"]
# Beside the hidden-suite numbers when some configuration's logs (or --audit summary) hold a TestJack audit.
AUDIT_COLUMNS = ["Audited BA_norm", "Refuted %", "Perfect→refuted"]
AUDIT_NOTE = (" Audited columns (TestJack): BA_norm on the hidden cases plus the audit's witnesses, over the tasks audited; refuted "
              "share among the verifiers an auditor met; Perfect→refuted: verifiers with BA_norm 100 on the hidden suite that "
              "the audit refutes, over all such. '-': no audit of that configuration.")


def _audit_cells(audit: dict | None) -> list[Cell]:
    if audit is None:
        return [None, None, None]
    return [audit["BA_norm"], audit["refuted_share"], f"{audit['perfect_refuted']}/{audit['perfect_on_hidden']}"]


def _audited_in(scored: list[ScoredRun], group: str | None = None, name: str | None = None) -> bool:
    """Whether any configuration has audit records (in that group, e.g. by_type/state)."""
    for s in scored:
        audit = s.result.get("audited")
        if audit is not None and (group is None or name in audit[group]):
            return True
    return False


CI_COLUMN = "BA_norm 95% CI"
TABLE2_COLUMNS = [*MAIN_COLUMNS[:3], CI_COLUMN, *MAIN_COLUMNS[3:]]  # Table 2 alone: the interval is over all tasks
CI_NOTE = (" BA_norm 95% CI: percentile bootstrap over tasks (10,000 resamples, seed 0), in the same judgment round as every "
           "other value (the round with the median aggregate BA_norm).")


def interval_cell(result: dict[str, Any]) -> Cell:
    """`[low, high]`, each end rounded on its own as every value is (paper App. D); None without an interval."""
    interval = result.get("BA_norm_ci")  # absent in results computed before intervals were added
    return f"[{display(interval[0])}, {display(interval[1])}]" if interval else None


def task_set_note(task_set: TaskSet | None) -> str:
    """The sentence naming the tasks a table ranks on ('' without a task set)."""
    return f" Tasks: {task_set.describe()}." if task_set is not None else ""


def table_main(scored: list[ScoredRun], task_set: TaskSet | None = None) -> Table:
    with_audit = _audited_in(scored)
    rows = _rank_rows(scored, lambda r: r, (lambda a: a) if with_audit else None, with_interval=True)
    on = f" on {len(task_set.tasks)} tasks" if task_set is not None else ""
    table = Table("table_02_main", f"Table 2: main results, ranked by BA_norm{on}",
                  TABLE2_COLUMNS + (AUDIT_COLUMNS if with_audit else []), rows,
                  "BA_norm = TPR + TNR - 100 from unrounded values; tasks weigh equally; U stays in every denominator."
                  + CI_NOTE + (AUDIT_NOTE if with_audit else "") + task_set_note(task_set))
    table.rows.append(["-", "Constant/random baseline", 0.0, None, None, None, None, "-",
                       *([None] * len(AUDIT_COLUMNS) if with_audit else [])])
    return table


def tables_by_type(scored: list[ScoredRun], task_set: TaskSet | None = None) -> list[Table]:
    """Tables 16-18: the same verifiers and judgment round as Table 2, per task type (with the audit of that type's tasks)."""
    numbers = {"tool-call": 16, "state": 17, "code": 18}
    types = sorted({t for s in scored for t in s.result["by_type"]}, key=lambda t: numbers.get(t, 99))
    tables = []
    for t in types:
        with_audit = _audited_in(scored, "by_type", t)
        audited_pick = (lambda a, t=t: a["by_type"].get(t) if a else None) if with_audit else None
        tables.append(Table(f"table_{numbers.get(t, 99)}_{t.replace('-', '_')}", f"Table {numbers.get(t, '')}: {t} verification ranking",
                            MAIN_COLUMNS + (AUDIT_COLUMNS if with_audit else []), _rank_rows(scored, lambda r, t=t: r["by_type"].get(t), audited_pick),
                            ((AUDIT_NOTE.strip() if with_audit else "") + task_set_note(task_set)).strip()))
    return tables


def table_audited_sources(scored: list[ScoredRun]) -> Table | None:
    """The audit per source, beside each source's hidden-suite BA_norm; None when no configuration was audited."""
    if not _audited_in(scored):
        return None
    rows = []
    for s in scored:
        audit = s.result.get("audited")
        for source, hidden in s.result["by_source"].items():
            group = audit["by_source"].get(source) if audit else None
            rows.append([s.run.name, source, hidden["BA_norm"], *(_audit_cells(group)[:1]),
                         group["TPR"] if group else None, group["TNR"] if group else None, *(_audit_cells(group)[1:]),
                         f"{group['n_audited']}/{group['n_tasks']}" if group else None])
    return Table("table_24_audited_sources", "Audited scores per source (TestJack)",
                 ["Configuration", "Source", "BA_norm", "Audited BA_norm", "Audited TPR", "Audited TNR", "Refuted %", "Perfect→refuted",
                  "Audited/N"], rows, AUDIT_NOTE.strip() + " Audited/N: verifiers an auditor met, over the tasks with an audit record.")


def table_harness(scored: list[ScoredRun]) -> Table:
    """Tables 3, 11, 12: every non-default harness against the same model with the default harness."""
    default = {s.run.model: s for s in scored if s.run.harness == "default" and not s.run.effort}
    rows = []
    for s in scored:
        if s.run.harness == "default":
            continue
        base = default.get(s.run.model)
        r = s.result
        rows.append([s.run.model_label or s.run.model, s.run.harness_label or s.run.harness,
                     base.result["BA_norm"] if base else None, r["BA_norm"],
                     r["BA_norm"] - base.result["BA_norm"] if base else None, r["TPR"], r["TNR"], r["FPR_h"],
                     f"{base.result['n_submitted']}/{base.result['n_tasks']}" if base else None, f"{r['n_submitted']}/{r['n_tasks']}"])
    rows.sort(key=lambda row: -row[3])
    return Table("table_11_harness", "Tables 3, 11, 12: harness comparison", ["Model", "Harness", "BA_norm default", "BA_norm alternative",
                 "Delta BA_norm", "TPR", "TNR", "FPR_h", "Submitted/N default", "Submitted/N alternative"], rows,
                 "Delta is the alternative minus the default harness, from unrounded values.")


def table_effort(scored: list[ScoredRun]) -> Table | None:
    """Tables 13-14: configurations that carry a reasoning-effort tag, side by side per model and harness."""
    tagged = [s for s in scored if s.run.effort]
    if not tagged:
        return None
    rows = [[s.run.model_label or s.run.model, s.run.harness_label or s.run.harness, s.run.effort, s.result["BA_norm"], s.result["TPR"],
             s.result["TNR"], s.result["FPR_h"], *[s.result["by_type"].get(t, {}).get("BA_norm") for t in ("tool-call", "state", "code")]]
            for s in sorted(tagged, key=lambda s: (s.run.model, s.run.harness, str(s.run.effort)))]
    return Table("table_13_effort", "Tables 13-14: reasoning-effort ablation", ["Model", "Harness", "Effort", "BA_norm", "TPR", "TNR", "FPR_h",
                 "BA_norm tool-call", "BA_norm state", "BA_norm code"], rows)


def table_budget(scored: list[ScoredRun]) -> Table:
    """Table 15: generation runs that hit the run_public budget, among tasks with a public environment."""
    rows = []
    for s in scored:
        env_tasks = [m for m in s.samples.values() if registry.source(m["source"]).public_environment]
        blocked = sum(1 for m in env_tasks if m.get("run_public", {}).get("cap_budget_blocks", 0) > 0)
        uses = [m.get("run_public", {}).get("cap_run_public", 0) for m in env_tasks]
        rows.append([s.run.name, len(env_tasks), blocked, 100 * blocked / len(env_tasks) if env_tasks else None,
                     sum(uses) / len(uses) if uses else None])
    return Table("table_15_budget", "Table 15: run_public budget exhaustion during generation",
                 ["Configuration", "State+code tasks", "Budget exhausted", "Exhausted %", "Mean run_public requests"], rows,
                 "From each sample's cap_budget_blocks and cap_run_public counters (blocked requests included).")


def table_groups(scored: list[ScoredRun]) -> Table:
    """Table 19: P/F/U per category group, pooled over cases."""
    rows: list[list[Cell]] = []
    for s in scored:
        by_group = s.result["by_group"]
        rows.append([s.run.name, *[_pfu(by_group.get(g)) for g in GROUPS]])
    return Table("table_19_groups", "Table 19: decisions per category group (P/F/U)", ["Configuration", *GROUPS], rows)


def table_rejection(scored: list[ScoredRun]) -> Table:
    """Table 20: on positive cases, how the unaccepted ones split into explicit rejections and invalid outputs."""
    rows = [[s.run.name, _pfu(s.result["positive"]), s.result["rejection_share"]] for s in scored]
    return Table("table_20_rejection", "Table 20: rejection share on positive cases", ["Configuration", "Positives P/F/U", "Rejection share F/(F+U)"], rows)


def table_valid(scored: list[ScoredRun]) -> Table:
    """Table 21: valid-output rate, overall and per task type."""
    types = sorted({t for s in scored for t in s.result["by_type"]})
    rows = [[s.run.name, s.result["valid_output_rate"], *[s.result["by_type"].get(t, {}).get("valid_output_rate") for t in types]] for s in scored]
    return Table("table_21_valid", "Table 21: valid outputs (100 (P+F)/(P+F+U))", ["Configuration", "All", *types], rows)


def table_concentration(scored: list[ScoredRun]) -> Table:
    """Table 22: false rejections concentrated in all-reject verifiers."""
    rows = [[s.run.name, s.result["all_reject"]["tasks"], s.result["positive"]["F"], s.result["all_reject"]["positive_fails"],
             s.result["all_reject"]["share_cases"], s.result["all_reject"]["share_tasks"]] for s in scored]
    return Table("table_22_concentration", "Table 22: false-rejection concentration in all-reject verifiers",
                 ["Configuration", "All-reject tasks", "Positive FAILs", "In all-reject tasks", "Share of cases %", "Share task-weighted %"], rows)


def table_acceptance(scored: list[ScoredRun]) -> Table:
    """Table 23: tasks whose verifier accepts none, some or all of the positive cases."""
    rows = [[s.run.name, s.result["positive_acceptance"]["none"], s.result["positive_acceptance"]["some"],
             s.result["positive_acceptance"]["all"]] for s in scored]
    return Table("table_23_acceptance", "Table 23: positive acceptance per task (None/Some/All)", ["Configuration", "None", "Some", "All"], rows)


RUN_COLUMNS = ["Configuration", "Status", "Logs", "Samples scored/selected", "Tasks covered", "Ranked on", "Note"]


def table_runs(board: Board) -> Table:
    """Every log read: each configuration's status and coverage (ranked or not), then the logs skipped, so that
    no run is dropped or padded in silence."""
    ranked = {id(s.run): s for s in board.scored}
    every = len(board.task_set.every)
    runs: list[ConfigurationRun] = [s.run for s in board.scored] + board.unranked
    rows: list[list[Cell]] = []
    for run in runs:
        selected = [r.selected for r in run.log_records if r.selected is not None]
        scored = sum(len(r.tasks) for r in run.log_records)
        s = ranked.get(id(run))
        if s is None:
            on = "not ranked: no scored sample"
        elif board.task_set.padded:
            padded = len(s.result.get("padded_tasks", []))
            on = f"{len(board.task_set.tasks)} tasks" + (f", {padded} missing counted as failures" if padded else "")
        else:
            excluded = len(s.result.get("excluded_tasks", []))
            on = f"{len(board.task_set.tasks)} tasks" + (f", {excluded} of its own excluded" if excluded else "")
        reasons = [(f"{Path(r.name).name}: " if len(run.log_records) > 1 else "") + r.reason
                   for r in run.log_records if r.reason and not r.complete]
        rows.append([run.name, run.status, len(run.log_records),
                     f"{scored}/{sum(selected)}" if len(selected) == len(run.log_records) else f"{scored}/?",
                     f"{len(run.samples)}/{every}", on, "; ".join(reasons) or None])
    for record in board.logs:
        if record.configuration is None:
            rows.append([None, record.status, Path(record.name).name, None, None, "skipped", record.reason])
    return Table("runs", "Runs read: status and coverage of every configuration", RUN_COLUMNS, rows,
                 "Status: complete when every log of the configuration finished with every sample it selected scored; "
                 "else its logs' states (partial: finished without a score on every selected sample, e.g. --limit). "
                 "Samples scored/selected: over its logs (selected before --limit). Tasks covered: the tasks it has a score "
                 f"for, of the {every} any configuration scored." + task_set_note(board.task_set))


def all_tables(scored: list[ScoredRun], task_set: TaskSet | None = None) -> list[Table]:
    tables = [table_main(scored, task_set), *tables_by_type(scored, task_set), table_harness(scored), table_effort(scored), table_budget(scored),
              table_groups(scored), table_rejection(scored), table_valid(scored), table_concentration(scored), table_acceptance(scored),
              table_audited_sources(scored)]
    return [t for t in tables if t is not None]


def _pfu(counts: dict[str, Any] | None) -> str:
    return f"{counts['P']}/{counts['F']}/{counts['U']}" if counts else "-"
