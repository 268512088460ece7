"""`verifierbench audit LOG_DIR`: the lightweight audit across configurations (random trial choice,
witness sharing, pool replay first), as users run it after their evals."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import cli
from tests.harness.inspect_cli import inspect

pytestmark = pytest.mark.usefixtures("bwrap_available")
TASKS = "bfcl/parallel_114,bfcl/simple_python_10,bfcl/multiple_54"
STATUSES = {"refuted", "audited-clean", "unaudited", "not auditable", "no verifier"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory, bfcl_suite):
    root = tmp_path_factory.mktemp("audit-logs")
    for model in ("verifierbench/always_reject", "verifierbench/heuristic"):
        result = inspect("eval", "verifierbench/verifierbench", "--model", model, "-T", f"suite={bfcl_suite}",
                         "-T", f"task_ids={TASKS}", "--log-dir", str(root))
        assert result.returncode == 0, result.stderr[-3000:]
    return root


def audit(logs, suite, pool, out, *args):
    result = cli("audit", str(logs), "--suite", str(suite), "--pool", str(pool), "--out", str(out), "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_lightweight_audit_shares_witnesses_and_replays_the_pool_first(logs, bfcl_suite, tmp_path):
    summary = audit(logs, bfcl_suite, tmp_path / "pool", tmp_path / "out", "--rounds", "2")
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == summary
    rows = {r["configuration"]: r for r in summary["configurations"]}
    assert set(rows) == {"verifierbench/always_reject", "verifierbench/heuristic"}
    assert len(summary["tasks"]) == 3 and summary["witnesses"] > 0
    for task in summary["tasks"]:
        assert task["rounds"] <= 2 and set(task["trials"].values()) <= STATUSES
    reject = rows["verifierbench/always_reject"]
    assert reject["refuted"] == reject["tasks"] == 3  # every certified valid candidate refutes it
    assert (reject["audited_TPR"], reject["audited_TNR"]) == (0.0, 100.0)
    for row in rows.values():
        assert row["audited_BA_norm"] <= row["BA_norm"]
        assert row["audited_BA_norm"] == pytest.approx(row["audited_TPR"] + row["audited_TNR"] - 100)

    again = audit(logs, bfcl_suite, tmp_path / "pool", tmp_path / "out2", "--rounds", "2")
    for before, after in zip(summary["tasks"], again["tasks"]):
        refuted_before = {c for c, s in before["trials"].items() if s == "refuted"}
        assert refuted_before <= {c for c, s in after["trials"].items() if s == "refuted"}
        if all(s == "refuted" for s in before["trials"].values()):
            assert after["rounds"] == 0  # the pool alone refuted them: no audit round spent


def test_audit_of_a_directory_without_logs_is_a_one_line_error(tmp_path, bfcl_suite):
    result = cli("audit", str(tmp_path), "--suite", str(bfcl_suite))
    assert result.returncode == 2 and "no Inspect logs" in result.stderr and len(result.stderr.strip().splitlines()) == 1
