"""The comparison with the paper names the harness and version our run used, so a Pi row run with the default
harness reads as a stand-in, not as the paper's harness."""

from __future__ import annotations

from verifierbench.leaderboard import paper_values
from verifierbench.leaderboard.compare import COLUMNS, comparison, harness_run
from verifierbench.leaderboard.logs import ConfigurationRun, ScoredRun


def _run(harness: str, label: str | None = None, version: str | None = None) -> ScoredRun:
    return ScoredRun(ConfigurationRun("c", "c", "m", harness, harness_label=label, harness_version=version), {})


def test_the_comparison_names_our_harness_beside_the_paper_one():
    assert COLUMNS[1:4] == ["Harness", "Harness (ours)", "Harness version (ours)"]
    assert harness_run(_run("pi", "Pi", "0.84.2")) == "pi"
    assert harness_run(_run("default", "Pi")) == "default (stand-in)"
    assert harness_run(_run("default", None, "verifierbench task 1-B")) == "default"
    assert harness_run(None) is None


def test_every_configuration_is_compared_with_its_version_and_n():
    def scored(name: str, harness: str, version: str | None) -> ScoredRun:
        result = {"BA_norm": 10.0, "TPR": 50.0, "TNR": 60.0, "FPR_h": 0.0, "n_tasks": 3, "BA_norm_ci": [0.0, 20.0]}
        return ScoredRun(ConfigurationRun(name, name, "m", harness, harness_version=version), {**result, "by_type": {"tool-call": result}})

    runs = [scored("m", "default", "verifierbench task 1-B"), scored("m [single_reply]", "single_reply", "verifierbench task 1-B"),
            scored("m [pi]", "pi", None)]  # pi: a log from before versions were recorded
    for number, harnesses in (("2", ["default", "single_reply", "pi"]), ("12", ["single_reply", "pi"]), ("16", ["default", "single_reply", "pi"])):
        table = comparison(number, runs)
        ours = [dict(zip(table.columns, row)) for row in table.rows if row[0] in {"m", "m [single_reply]", "m [pi]"}]
        assert [r["Harness (ours)"] for r in ours] == harnesses, number
        assert [r["Harness version (ours)"] for r in ours][-1] is None and all(r["N (ours)"] == 3 for r in ours)
        assert f"paper on {paper_values.TASKS[number]} tasks, ours on 3 tasks" in table.title
