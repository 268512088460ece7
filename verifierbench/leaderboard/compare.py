"""Side by side: the paper's published values (Tables 2, 12, 16-18, transcribed in paper_values)
and ours for the same configuration, where a run of it exists (matched by the paper's model and
harness labels that configurations.py puts in the log), then our other configurations."""

from __future__ import annotations

from verifierbench.leaderboard import paper_values
from verifierbench.leaderboard.logs import ScoredRun
from verifierbench.leaderboard.tables import Cell, Table, interval_cell

SLICES = {"2": None, "12": None, "16": "tool-call", "17": "state", "18": "code"}
COLUMNS = ["Model", "Harness", "Harness (ours)", "BA_norm (paper)", "BA_norm (ours)", "95% CI (ours)", "TPR (paper)", "TPR (ours)", "TNR (paper)", "TNR (ours)",
           "FPR_h (paper)", "FPR_h (ours)"]


def comparison(number: str, scored: list[ScoredRun]) -> Table:
    ours = {(s.run.model_label, s.run.harness_label): s for s in scored if s.run.model_label}
    slice_ = SLICES[number]

    def values(s: ScoredRun | None) -> dict | None:
        if s is None:
            return None
        return s.result if slice_ is None else s.result["by_type"].get(slice_)

    def interval(s: ScoredRun | None) -> Cell:  # over all tasks: beside the overall tables only
        return interval_cell(s.result) if s is not None and slice_ is None else None

    rows: list[list[Cell]] = []
    matched = set()
    for row in paper_values.TABLES[number]:
        mine = ours.get((row.model, row.harness))
        r = values(mine)
        if mine is not None:
            matched.add(id(mine))
        rows.append([row.model, row.harness, harness_run(mine), row.ba_norm, r["BA_norm"] if r else None, interval(mine), row.tpr, r["TPR"] if r else None,
                     row.tnr, r["TNR"] if r else None, row.fpr_h, r["FPR_h"] if r else None])
    if number != "12":
        for s in scored:
            r = values(s)
            if id(s) not in matched and r is not None and s.run.harness == "default":
                rows.append([s.run.name, "ours", harness_run(s), None, r["BA_norm"], interval(s), None, r["TPR"], None, r["TNR"], None, r["FPR_h"]])
    return Table(f"comparison_table_{int(number):02d}", f"Paper Table {number} against ours: {paper_values.CAPTIONS[number]}", COLUMNS, rows,
                 "Paper values as published (VerifierBench paper, Table " + number + "); ours from the logs given. "
                 "'-' where we have no run of that configuration. 'Harness (ours)': the harness and version our run used. "
                 "95% CI: bootstrap over tasks in the median judgment round.")


def harness_run(s: ScoredRun | None) -> str | None:
    """The harness our run used and its version: Pi's rows name the default harness a stand-in when it ran them."""
    if s is None:
        return None
    if s.run.harness == "default":
        return "default (stand-in)" if s.run.harness_label == "Pi" else "default"
    return f"{s.run.harness} {s.run.harness_version}" if s.run.harness_version else s.run.harness


def comparisons(scored: list[ScoredRun]) -> list[Table]:
    return [comparison(number, scored) for number in SLICES]
