"""The comparison with the paper names the harness and version our run used, so a Pi row run with the default
harness reads as a stand-in, not as the paper's harness."""

from __future__ import annotations

from verifierbench.leaderboard.compare import COLUMNS, harness_run
from verifierbench.leaderboard.logs import ConfigurationRun, ScoredRun


def _run(harness: str, label: str | None = None, version: str | None = None) -> ScoredRun:
    return ScoredRun(ConfigurationRun("c", "c", "m", harness, harness_label=label, harness_version=version), {})


def test_the_comparison_names_our_harness_beside_the_paper_one():
    assert COLUMNS[1:3] == ["Harness", "Harness (ours)"]
    assert harness_run(_run("pi", "Pi", "0.84.2")) == "pi 0.84.2"
    assert harness_run(_run("default", "Pi")) == "default (stand-in)"
    assert harness_run(_run("codex_cli", "Codex")) == "codex_cli"  # a log from before versions were recorded
    assert harness_run(None) is None
