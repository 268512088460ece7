"""`judge` on the built tool-call suite: the reference scores 100, constant verifiers 0, exact match misses valid variants."""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from tests.cli.test_cli import BIN, cli
from tests.conftest import EXHAUSTIVE, representative_tasks
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.sandbox


def judged(suite: Path, *args: str) -> list[dict]:
    result = subprocess.run([str(BIN), "judge", "--suite", str(suite), *args, "--json"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def metrics_of(lines: list[dict]) -> dict:
    result = subprocess.run([str(BIN), "metrics", "-", "--json"], input="".join(json.dumps(l) + "\n" for l in lines),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def per_task_tpr(lines: list[dict]) -> dict[str, float]:
    positives = defaultdict(list)
    for line in lines:
        if line["label"] == "PASS":
            positives[line["task_id"]].append(line["decision"] == "P")
    return {task: 100 * sum(v) / len(v) for task, v in positives.items()}


def sample(suite: Path) -> list[str]:
    """Every tool-call task under VERIFIERBENCH_EXHAUSTIVE=1; CI a fixed sample holding every category and case family
    of each source (representative_tasks). The reference's decision on every hidden case of every task is checked in
    process by tests/audit/test_flawed_verifiers.py (test_the_reference_scores_100_on_every_hidden_case)."""
    loaded = load_suite(suite)
    return [task_id for source in ("bfcl", "acebench") for task_id in representative_tasks(loaded, source)]


def test_exported_reference_scores_ba_norm_100_on_every_task(built, bwrap_available, tmp_path):
    assert cli("export-verifiers", "reference", "--suite", str(built), "--out", str(tmp_path / "ref")).returncode == 0
    tasks = sample(built)
    selection = ["--all"] if EXHAUSTIVE else [a for t in tasks for a in ("--task", t)]
    lines = judged(built, "--verifiers", str(tmp_path / "ref"), *selection, "--reference-libs")
    assert {l["task_id"] for l in lines} == set(tasks)
    assert {line["isolation"] for line in lines} == {"bwrap"}
    wrong = [(l["task_id"], l["case_id"], l["category"], l["decision"], l.get("problem")) for l in lines
             if l["decision"] != ("P" if l["label"] == "PASS" else "F")]
    assert wrong == []
    report = metrics_of(lines)
    assert report["BA_norm"] == 100 and report["n_tasks"] == len(tasks) >= (90 if EXHAUSTIVE else 15)


def test_reference_libraries_are_not_mounted_by_default(built, bwrap_available, tmp_path):
    export = cli("export-verifiers", "reference", "--suite", str(built), "--out", str(tmp_path / "ref"), "--task", "bfcl/parallel_114")
    assert export.returncode == 0, export.stderr
    assert list((tmp_path / "ref").rglob("verify.py")), "nothing exported: all-U would then say nothing"
    lines = judged(built, "--verifiers", str(tmp_path / "ref"), "--task", "bfcl/parallel_114")
    assert {line["decision"] for line in lines} == {"U"}  # the checker is not importable by verifiers by default
    # U because the delivered verifier ran and failed (its import), not because none was delivered
    assert all(line["submitted"] and line["exit_status"] == 1 for line in lines), json.dumps(lines[0])
    with_libraries = judged(built, "--verifiers", str(tmp_path / "ref"), "--task", "bfcl/parallel_114", "--reference-libs")
    assert {line["decision"] for line in with_libraries} <= {"P", "F"}  # the same export, with the libraries mounted


@pytest.mark.parametrize("kind,source", [("always-accept", "acebench"), ("always-reject", "bfcl")])
def test_constant_verifiers_score_zero(built, bwrap_available, tmp_path, kind, source):
    assert cli("export-verifiers", kind, "--suite", str(built), "--out", str(tmp_path / kind), "--task", "bfcl/parallel_114").returncode == 0
    single = next((tmp_path / kind).iterdir()) / "verify.py"
    report = metrics_of(judged(built, "--verifier", str(single), "--source", source))
    assert report["BA_norm"] == 0
    assert report["FPR_h"] == (100 if kind == "always-accept" else 0)


def test_exact_match_misses_valid_variants_on_every_task(built, bwrap_available, tmp_path):
    """On every task under VERIFIERBENCH_EXHAUSTIVE=1; CI the fixed sample of the reference's sweep above."""
    assert cli("export-verifiers", "exact-match", "--suite", str(built), "--out", str(tmp_path / "exact")).returncode == 0
    tasks = sample(built)
    lines = judged(built, "--verifiers", str(tmp_path / "exact"), *[a for t in tasks for a in ("--task", t)])
    assert {l["task_id"] for l in lines} == set(tasks)
    with_variants = {l["task_id"] for l in lines if l["category"] in ("cosmetic", "overstrict_trap")}
    tpr = per_task_tpr(lines)
    assert with_variants and all(tpr[task] < 100 for task in with_variants)
    assert all(l["decision"] == "F" for l in lines if l["label"] == "FAIL" and l["category"] != "hack")
