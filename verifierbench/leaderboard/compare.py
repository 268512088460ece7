"""Side by side: the paper's published values (Tables 2, 12, 16-18, transcribed in paper_values)
and ours for the same configuration, where a run of it exists (matched by the paper's model and
harness labels that configurations.py puts in the log), then our other configurations."""

from __future__ import annotations

from verifierbench.leaderboard import paper_values
from verifierbench.leaderboard.logs import ScoredRun, TaskSet
from verifierbench.leaderboard.tables import Cell, Table, interval_cell, task_set_note

SLICES = {"2": None, "12": None, "16": "tool-call", "17": "state", "18": "code"}
COLUMNS = ["Model", "Harness", "Harness (ours)", "Harness version (ours)", "N (paper)", "N (ours)", "BA_norm (paper)", "BA_norm (ours)",
           "95% CI (ours)", "TPR (paper)", "TPR (ours)", "TNR (paper)", "TNR (ours)", "FPR_h (paper)", "FPR_h (ours)"]


def comparison(number: str, scored: list[ScoredRun], task_set: TaskSet | None = None) -> Table:
    """Paper Table `number` beside ours: the paper's rows (ours where a run of that configuration exists), then every
    other configuration of the logs (Table 12, of alternative harnesses: those with a non-default harness)."""
    ours = {(s.run.model_label, s.run.harness_label): s for s in scored if s.run.model_label}
    slice_ = SLICES[number]
    paper_n = paper_values.TASKS[number]

    def values(s: ScoredRun | None) -> dict | None:
        if s is None:
            return None
        return s.result if slice_ is None else s.result["by_type"].get(slice_)

    def interval(s: ScoredRun | None) -> Cell:  # over all tasks: beside the overall tables only
        return interval_cell(s.result) if s is not None and slice_ is None else None

    def row(model: str, harness: str, s: ScoredRun | None, published: paper_values.Row | None) -> list[Cell]:
        r = values(s)
        return [model, harness, harness_run(s), s.run.harness_version if s is not None else None,
                paper_n if published else None, r["n_tasks"] if r else None,
                published.ba_norm if published else None, r["BA_norm"] if r else None, interval(s),
                published.tpr if published else None, r["TPR"] if r else None, published.tnr if published else None,
                r["TNR"] if r else None, published.fpr_h if published else None, r["FPR_h"] if r else None]

    rows: list[list[Cell]] = []
    matched = set()
    for published in paper_values.TABLES[number]:
        mine = ours.get((published.model, published.harness))
        if mine is not None:
            matched.add(id(mine))
        rows.append(row(published.model, published.harness, mine, published))
    for s in scored:
        if id(s) not in matched and values(s) is not None and (number != "12" or s.run.harness != "default"):
            rows.append(row(s.run.name, s.run.harness_label or s.run.harness, s, None))
    n_ours = sorted({r[5] for r in rows if isinstance(r[5], int)})
    ours_n = "/".join(str(n) for n in n_ours) if n_ours else "no"
    return Table(f"comparison_table_{int(number):02d}",
                 f"Paper Table {number} against ours: paper on {paper_n} tasks, ours on {ours_n} tasks"
                 + (f" ({slice_})" if slice_ else ""), COLUMNS, rows,
                 f"Paper values as published (VerifierBench paper, Table {number}: {paper_values.CAPTIONS[number]}); ours from the "
                 "logs given, on the tasks of N (ours), not the paper's. '-' where we have no run of that configuration. "
                 "'Harness (ours)' and 'Harness version (ours)': the harness and version our run used. "
                 "95% CI: bootstrap over tasks in the median judgment round." + task_set_note(task_set))


def harness_run(s: ScoredRun | None) -> str | None:
    """The harness our run used: Pi's rows name the default harness a stand-in when it ran them."""
    if s is None:
        return None
    if s.run.harness == "default" and s.run.harness_label == "Pi":
        return "default (stand-in)"
    return s.run.harness


def comparisons(scored: list[ScoredRun], task_set: TaskSet | None = None) -> list[Table]:
    return [comparison(number, scored, task_set) for number in SLICES]
