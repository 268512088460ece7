"""The counts and check names README.md and docs/ state are the code's and a fresh build's.

Files that describe what the code does now are read whole; the measurement records (docs/code-suite*.md,
docs/performance.md, docs/cluster.md, dated sections) keep what was measured then and are not read here. Each claim's
pattern must be found (a reworded sentence fails here, so the claim is not dropped from the check in silence).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.conftest import REPO_ROOT
from verifierbench.configurations import CONFIGURATIONS, HARNESS_NAMES
from verifierbench.screening.run import CHECKS

CURRENT = ["README.md", "docs/quickstart.md", "docs/screening.md", "docs/inspect.md", "docs/cli.md", "docs/leaderboard.md",
           "docs/local-model.md", "docs/docker.md", "verifierbench/configurations.py", "tasks/paper_configurations.py",
           "verifierbench/screening/__init__.py", "scripts/quickstart.sh", "verifierbench/leaderboard/suite_tables.py"]


def text(relative: str) -> str:
    return (REPO_ROOT / relative).read_text(encoding="utf-8")


@pytest.mark.parametrize("relative", CURRENT)
def test_check_names_are_the_screens(relative):
    """A range of checks names them all (C1-C7 today); "six checks" is the paper's six, with C7 beside them."""
    last = int(CHECKS[-1][1:])
    page = text(relative)
    for found in re.finditer(r"\bC1-C(\d+)\b(?! and C\d)", page):
        assert int(found.group(1)) == last, f"{relative}: {found.group(0)!r}, the screen runs {CHECKS[0]}-{CHECKS[-1]}"
    for found in re.finditer(r"\bsix (?:V4V |Verifier4Verifier )?checks\b(.{0,40})", page):
        assert "C7" in found.group(1), f"{relative}: {found.group(0)!r} without C7"


def test_configuration_counts_are_the_configurations_module():
    total = len(CONFIGURATIONS)
    common = sum(c.harness_label == "Pi" for c in CONFIGURATIONS)
    claims = [("README.md", r"The paper's (\d+) model-harness configurations", total),
              ("docs/inspect.md", r"lists the (\d+) \(", total),
              ("docs/inspect.md", r"\((\d+) models with\s+the common harness", common),
              ("docs/inspect.md", r"common harness, (\d+) alternatives", total - common),
              ("docs/inspect.md", r"runs all (\d+)", sum(c.runnable for c in CONFIGURATIONS)),
              ("verifierbench/configurations.py", r"The paper's (\d+) model-harness configurations", total),
              ("tasks/paper_configurations.py", r"the (\d+) Pi configurations", common),
              ("tasks/paper_configurations.py", r"the (\d+) alternatives", total - common)]
    for relative, pattern, expected in claims:
        found = re.findall(pattern, text(relative))
        assert found, f"{relative}: no {pattern!r} (reworded? update this test)"
        assert {int(n) for n in found} == {expected}, f"{relative}: {pattern!r} gives {found}, the code {expected}"
    for label, harness in HARNESS_NAMES.items():  # a harness with an Inspect agent is not said to have none
        for relative in CURRENT:
            assert harness is None or f"{label} has none" not in text(relative), f"{relative}: {label} has an agent ({harness})"


def test_suite_counts_are_a_fresh_builds(built, state_suite):
    from verifierbench.suite.store import load_suite

    by_type: Counter = Counter()
    for suite in (built, state_suite):
        by_type.update(t.type.value for t in load_suite(suite).tasks.values())
    offline = sum(by_type.values())
    claims = [("README.md", r"builds the suite into `tasks/suite/` \((\d+) tasks\)", [offline]),
              ("docs/quickstart.md", r"The default suite holds (\d+) tasks: (\d+) tool-call and (\d+) state",
               [offline, by_type["tool-call"], by_type["state"]])]
    for relative, pattern, expected in claims:
        found = re.findall(pattern, text(relative))
        assert found, f"{relative}: no {pattern!r} (reworded? update this test)"
        for numbers in found:
            got = [int(n) for n in ([numbers] if isinstance(numbers, str) else numbers)]
            assert got == expected, f"{relative}: {pattern!r} gives {got}, a fresh build {expected}"


def test_eval_yaml_is_inspect_evals_listing_of_this_task(built, state_suite):
    """eval.yaml: inspect_evals' schema, the code's task version, the README's paper, a fresh build's sample count."""
    import yaml

    from verifierbench.suite.store import load_suite
    from verifierbench.task import TASK_COMPARABILITY_VERSION, TASK_VERSION

    listing = yaml.safe_load(text("eval.yaml"))
    metadata = pytest.importorskip("inspect_evals.metadata")  # the [tau2] extra installs it (CI has it)
    parsed = metadata.InternalEvalMetadata(**listing, id="verifierbench")
    assert str(parsed.version) == TASK_VERSION and parsed.version.comparability_version == TASK_COMPARABILITY_VERSION
    readme = text("README.md")
    assert f"*{parsed.title}.*" in readme and str(parsed.arxiv).rstrip("/").split("/")[-1] in readme
    assert f"current version is **{TASK_VERSION}**" in readme and f"## {TASK_VERSION} (" in text("CHANGELOG.md")
    (listed,) = parsed.tasks
    assert listed.name == "verifierbench"
    assert listed.dataset_samples == sum(len(load_suite(suite).tasks) for suite in (built, state_suite))
    from verifierbench.task import verifierbench

    task = verifierbench(suite=str(built), task_ids="bfcl/parallel_114")  # the version Inspect compares is N
    assert task.version == TASK_COMPARABILITY_VERSION and task.metadata["full_task_version"] == TASK_VERSION


def test_the_readme_stays_under_250_lines():
    """Detail belongs in docs/ (the README skeleton of inspect_evals: what it is, quick start, options, report)."""
    lines = len(text("README.md").splitlines())
    assert lines < 250, f"README.md has {lines} lines: move detail to docs/"
