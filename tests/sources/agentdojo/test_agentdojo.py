"""AgentDojo state tasks: selection, categories, determinism of the public environment, and the
reference verifier's checks (replay consistency, utility, security)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


from tests.cli.test_cli import cli
from tests.conftest import EXHAUSTIVE, private_copy, representative_tasks
from verifierbench.core.schema import Category, Label
from verifierbench.sources.agentdojo import build, cases, data
from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment
from verifierbench.sources.agentdojo.reference import decide
from verifierbench.screening.run import screen_here, summary
from verifierbench.suite.store import load_suite

REPLAY_HASH = """
import sys
from verifierbench.sources.agentdojo import cases, data
from verifierbench.sources.agentdojo.environment import AgentDojoEnvironment
ref = data.TaskRef("workspace", "user_task_20")
print(AgentDojoEnvironment(ref).replay(cases.gold_calls(ref)).state_hash)
"""


def test_suite_has_ten_user_tasks_and_ten_injection_pairs_with_every_category(state_suite):
    suite = load_suite(state_suite)
    subsets = [t.metadata["subset"] for t in suite.tasks.values() if t.source.value == "agentdojo"]
    assert subsets.count("user") == 10 and subsets.count("injection") == 10
    categories = {c.category for t in suite.tasks.values() if t.source.value == "agentdojo" for c in suite.cases_by_task[t.id]}
    assert categories == set(Category)
    for task in suite.tasks.values():
        here = suite.cases_by_task[task.id]
        assert {Label.PASS, Label.FAIL} <= {c.label for c in here} and any(c.category.is_attack for c in here)
        if any(c.category is Category.process_violation for c in here):
            assert task.metadata["subset"] == "injection"
    stats = json.loads(cli("suite", "stats", str(state_suite), "--json").stdout)
    assert stats["tasks"]["by_source"]["agentdojo"] == 20 and stats["cases"]["by_source_and_category"]["agentdojo"]["process_violation"] > 0


@pytest.mark.timeout(1500)
def test_state_tasks_pass_screening(state_suite, tmp_path):
    """C1-C7 on every state task with VERIFIERBENCH_EXHAUSTIVE=1, through the CLI's whole-suite screen; in CI on
    representative_tasks of each state source, in process (49.9 s -> see docs/testing.md; the CLI's path is
    tests/screening/test_screen.py's)."""
    if EXHAUSTIVE:
        # Every case of every state task twice: over cli()'s default 120 s at load 20 on 2 cores; the limit is a hang guard.
        result = cli("screen", "--suite", str(private_copy(state_suite, tmp_path)), "--out", str(tmp_path / "screening"),
                     "--json", timeout=1200)
        assert result.returncode == 0, result.stderr
        records = [json.loads(line) for line in (tmp_path / "screening" / "records.jsonl").read_text().splitlines()]
    else:
        suite = load_suite(state_suite)
        chosen = sorted((suite.tasks[i] for source in ("agentdojo", "tau2") for i in representative_tasks(suite, source)),
                        key=lambda t: t.id)
        records = [record for _, record in screen_here(suite, chosen)]
    assert all(r["retained"] for r in records), [r for r in records if not r["retained"]]
    by_source = summary(records)["mutations"]["by_source"]
    agentdojo = by_source["agentdojo"]
    assert agentdojo["operators"] >= 2 and agentdojo["detected"] == agentdojo["configurations"] >= len(
        [r for r in records if r["source"] == "agentdojo"])
    if "tau2" in by_source:  # inspect-evals installed
        assert by_source["tau2"]["operators"] >= 3 and by_source["tau2"]["detected"] == by_source["tau2"]["configurations"]


def test_replay_is_deterministic_within_and_across_processes():
    ref = data.TaskRef("workspace", "user_task_20")  # sends an email (wall-clock stamp) and builds a set of participants
    environment = AgentDojoEnvironment(ref)
    gold = cases.gold_calls(ref)
    hashes = {environment.replay(gold).state_hash for _ in range(20)}
    assert len(hashes) == 1
    for seed in ("1", "2"):  # other hash seeds order sets differently, and the wall clock has moved on
        out = subprocess.run([sys.executable, "-c", REPLAY_HASH], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed})
        assert {out.stdout.strip()} == hashes


def test_reference_rejects_fabricated_results_and_accepts_the_gold():
    ref = data.TaskRef("banking", "user_task_0")
    reference = build.make_task(ref).reference
    builder = cases.Builder(ref)
    gold = builder.record(cases.gold_calls(ref), "Paid.")
    assert decide(reference, gold)[0]
    forged = json.loads(json.dumps(gold))
    forged["messages"][1]["tool_calls"][0]["result"] = "Total: 1.00"
    accepted, why = decide(reference, forged)
    assert not accepted and "recorded result differs" in why
    assert not decide(reference, {"messages": "nope"})[0]


def test_injection_pair_fails_when_the_injected_goal_is_reached():
    ref = data.TaskRef("banking", "user_task_0", "injection_task_0")
    reference = build.make_task(ref).reference
    builder = cases.Builder(ref)
    both = builder.record(cases.gold_calls(ref) + cases.injection_calls(ref), "Paid.")
    accepted, why = decide(reference, both)
    assert not accepted and "injected instruction" in why
    assert decide({**reference, **cases.UTILITY_ONLY}, both)[0]  # the user task itself is done (AgentDojo utility)
    # without security, the write comparison still catches the injected transfer (a change the gold does not make)
    accepted, why = decide({**reference, "check_security": False}, both)
    assert not accepted and why.startswith("changes the task did not ask for"), why


def test_task_whose_upstream_check_accepts_doing_nothing_is_excluded():
    # banking user_task_6: the check looks for a recurring Spotify-like transaction the environment already holds
    reason = build._accepts_doing_nothing(data.TaskRef("banking", "user_task_6"))
    assert reason and "no tool call passes" in reason
    excluded = build.construct(data.TaskRef("banking", "user_task_6"), seed=0).exclusion
    assert excluded and excluded["code"] == "Z" and excluded["evidence"]["reason"] == reason  # Z: zero actions pass


def test_instruction_shows_no_gold_and_no_injection():
    ref = data.TaskRef("banking", "user_task_0", "injection_task_0")
    task = build.make_task(ref)
    visible = task.instruction + json.dumps(task.environment)
    goal = data.injection_task(ref).GOAL
    assert goal not in visible and "US133000000121212121212" not in visible
    assert "98.7" not in visible  # the gold amount is read from a file, never stated
