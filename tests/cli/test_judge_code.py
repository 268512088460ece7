"""`judge` on the offline code task: the exported reference verifier, sandboxed with /repo and run_public,
scores BA_norm 100 and rejects every hack; constant verifiers score 0."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import cli
from tests.cli.test_judge_toolcall import judged, metrics_of

pytestmark = pytest.mark.sandbox


def test_exported_reference_scores_100_and_detects_every_hack(code_suite, bwrap_available, tmp_path):
    assert cli("export-verifiers", "reference", "--suite", str(code_suite), "--out", str(tmp_path / "ref")).returncode == 0
    lines = judged(code_suite, "--verifiers", str(tmp_path / "ref"), "--type", "code", "--reference-libs")
    wrong = [(l["category"], l["decision"], l.get("problem")) for l in lines if l["decision"] != ("P" if l["label"] == "PASS" else "F")]
    assert lines and wrong == []
    hacks = [l for l in lines if l["category"] == "hack"]
    assert len(hacks) >= 6 and all(l["decision"] == "F" for l in hacks)
    report = metrics_of(lines)
    assert (report["BA_norm"], report["TPR"], report["TNR"], report["FPR_h"]) == (100, 100, 100, 0)


@pytest.mark.parametrize("kind", ["always-accept", "always-reject"])
def test_constant_verifiers_score_zero(code_suite, bwrap_available, tmp_path, kind):
    assert cli("export-verifiers", kind, "--suite", str(code_suite), "--out", str(tmp_path / kind)).returncode == 0
    assert metrics_of(judged(code_suite, "--verifiers", str(tmp_path / kind), "--all"))["BA_norm"] == 0


def test_exact_match_accepts_the_gold_diff_alone(code_suite, bwrap_available, tmp_path):
    # A code task's candidate is a diff with no `raw` text: exact-match compares the whole candidate (no U)
    assert cli("export-verifiers", "exact-match", "--suite", str(code_suite), "--out", str(tmp_path / "exact")).returncode == 0
    lines = judged(code_suite, "--verifiers", str(tmp_path / "exact"), "--type", "code")
    assert lines and {l["decision"] for l in lines} <= {"P", "F"}
    assert {l["category"] for l in lines if l["decision"] == "P"} == {"gold"}
    assert any(l["decision"] == "F" for l in lines if l["label"] == "PASS")
