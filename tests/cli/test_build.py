"""`verifierbench build` and `suite stats` as users run them: the tool-call suite from the installed sources."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import cli
from tests.conftest import ACEBENCH
from verifierbench.core.schema import Category, Label
from verifierbench.suite.store import load_suite

TOOL_CALL_CATEGORIES = {c.value for c in Category} - {"process_violation"}  # injections belong to state tasks


def test_stats_meet_the_tool_call_acceptance(built):
    result = cli("suite", "stats", str(built), "--json")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert stats["tasks"]["total"] >= 90
    assert stats["tasks"]["by_source"]["bfcl"] >= 40 and stats["tasks"]["by_source"]["acebench"] >= 45
    assert stats["tasks"]["by_type"] == {"tool-call": stats["tasks"]["total"]}
    for source in ("bfcl", "acebench"):
        assert set(stats["cases"]["by_source_and_category"][source]) == TOOL_CALL_CATEGORIES, source
    assert sum(stats["cases"]["by_label"].values()) == stats["cases"]["total"]


def test_every_task_has_a_positive_a_negative_and_an_attack(built):
    suite = load_suite(built)
    for task_id, cases in suite.cases_by_task.items():
        labels = {c.label for c in cases}
        assert Label.PASS in labels and Label.FAIL in labels and any(c.category.is_attack for c in cases), task_id
    assert set(suite.cases_by_task) == set(suite.tasks)


def test_paper_named_tasks_are_in_and_conflicting_ones_recorded_out(built):
    suite = load_suite(built)
    names = {f"{t.source.value}/{t.source_id}" for t in suite.tasks.values()}
    assert {"bfcl/parallel_114", "acebench/normal_preference_17", "acebench/normal_atom_object_deep_38"} <= names
    excluded = {e["task"]: e["code"] for e in suite.manifest.build["excluded"]}
    for upstream_id in ("parallel_65", "parallel_70", "parallel_135", "parallel_180", "parallel_multiple_137"):
        assert excluded[f"bfcl/{upstream_id}"] == "D"
        assert f"bfcl/{upstream_id}" not in names
    # explicit-value key defect: math.power's key accepts mod=1, which computes pow(3, 4) % 1 = 0, not 81
    assert excluded["bfcl/simple_python_105"] == "K" and "bfcl/simple_python_105" not in names
    screening = json.loads((built / "screening.json").read_text())
    assert {e["task"] for e in screening["excluded"]} == set(excluded)
    assert suite.manifest.build["seed"] == 0 and suite.manifest.build["sources"]["bfcl"]["selected"]


def test_what_the_agent_sees_holds_no_answer_key(built):
    suite = load_suite(built)
    for task in suite.tasks.values():
        assert set(task.environment) <= {"tools", "candidate_format", "context"}
        visible = task.instruction + json.dumps(task.environment)
        assert "ground_truth" not in visible and "possible_answer" not in visible
        assert task.reference["ground_truth"] and json.dumps(task.reference["ground_truth"]) not in visible
        assert "`raw`" in task.instruction and "`parsed`" in task.instruction


def test_two_builds_are_identical(built, tmp_path):
    again = tmp_path / "again"
    assert cli("build", "--out", str(again), "--source", "bfcl", "--source", "acebench", "--acebench-dir", str(ACEBENCH)).returncode == 0
    for name in ("manifest.json", "tasks.jsonl", "cases.jsonl", "screening.json"):
        assert (again / name).read_bytes() == (built / name).read_bytes(), name


def test_a_missing_source_is_named_in_one_line_and_the_rest_is_built(tmp_path):
    out = tmp_path / "suite"
    result = cli("build", "--out", str(out), "--source", "bfcl", "--source", "acebench", "--acebench-dir", str(tmp_path / "nowhere"))
    assert result.returncode == 0, result.stderr
    missing = [line for line in result.stdout.splitlines() if "acebench unavailable" in line]
    assert len(missing) == 1 and str(tmp_path / "nowhere") in missing[0]
    # Not a terminal: a line as each source starts, before its result line (a terminal gets a progress bar).
    lines = result.stdout.splitlines()
    assert lines.index("build: bfcl (1/2): selecting and screening tasks") < next(
        i for i, line in enumerate(lines) if line.startswith("build: bfcl: 45 tasks"))
    stats = json.loads(cli("suite", "stats", str(out), "--json").stdout)
    assert stats["tasks"]["by_source"] == {"bfcl": 45}
    assert load_suite(out).manifest.build["unavailable"]["acebench"]


def test_code_and_appworld_sources_without_data_are_named_and_skipped(tmp_path, monkeypatch):
    """No dataset hub, no Docker engine, no AppWorld data here: one line each, exit 0, the rest is built."""
    for variable in ("VERIFIERBENCH_SWEBENCH_INSTANCES", "VERIFIERBENCH_SWEBENCH_REPOS", "VERIFIERBENCH_APPWORLD_PYTHON"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("VERIFIERBENCH_SWEBENCH_COPY", "")  # as for a user: no offline copy beside the project
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # and no attempt to reach the hub from a test
    out = tmp_path / "suite"
    result = cli("build", "--out", str(out), "--source", "bfcl", "--source", "swebench", "--source", "appworld")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for source in ("swebench", "appworld"):
        said = [line for line in lines if f"{source} unavailable" in line]
        assert len(said) == 1 and len(said[0]) > len(f"build: {source} unavailable, skipped: ") + 20, said
    assert "dataset hub" in next(line for line in lines if "swebench unavailable" in line)
    unavailable = load_suite(out).manifest.build["unavailable"]
    assert set(unavailable) == {"swebench", "appworld"}
    assert json.loads(cli("suite", "stats", str(out), "--json").stdout)["tasks"]["by_source"] == {"bfcl": 45}


def test_the_manifest_records_every_operator_and_the_audit_families_are_in_every_task(built):
    suite = load_suite(built)
    for source in ("bfcl", "acebench"):
        operators = suite.manifest.build["sources"][source]["operators"]
        made = {}
        for case in suite.cases.values():
            if suite.tasks[case.task_id].source.value == source:
                made.setdefault(case.provenance["operator"], {}).setdefault(case.category.value, 0)
                made[case.provenance["operator"]][case.category.value] += 1
        assert operators == made, source
        assert {"raw_without_list_brackets", "unknown_argument_added", "value_off_by_one", "other_tool_called"} <= set(operators)
    for task_id, cases in suite.cases_by_task.items():
        operators = {c.provenance["operator"] for c in cases}
        assert {"raw_without_list_brackets", "unknown_argument_added"} <= operators, suite.tasks[task_id].source_id


def test_a_source_whose_package_is_missing_is_named_with_the_extra_that_installs_it():
    """The build's line for a missing upstream package (issue 39): the extra where pyproject.toml has one, and a
    missing module of verifierbench's own is a bug, raised as it is."""
    from verifierbench.suite.build import missing_package

    assert missing_package("tau2", ModuleNotFoundError(name="inspect_evals")) == \
        "tau2 needs the package inspect_evals, which is not installed: pip install 'verifierbench[tau2]'"
    assert missing_package("appworld", ModuleNotFoundError(name="appworld")) == \
        "appworld needs the package appworld, which is not installed"
    with pytest.raises(ModuleNotFoundError):
        missing_package("tau2", ModuleNotFoundError(name="verifierbench.sources.tau2.gone"))
