"""`-T shard=i/N` (issue 38): N shards of one selection cover it once, and the leaderboard merges their logs into
the row one process gives."""

from __future__ import annotations

import json
import os
import subprocess
from types import SimpleNamespace

import pytest

from tests.cli.test_cli import cli
from tests.conftest import REPO_ROOT, first_tasks, logs_of
from tests.harness.inspect_cli import INSPECT
from verifierbench.core.errors import UserError
from verifierbench.harness.shards import parse_shard, shard_of

N_TASKS = 6  # the BFCL suite's first six tasks: bfcl_policy_logs' selection


def test_the_shards_of_a_selection_cover_it_once_and_keep_its_order():
    tasks = [SimpleNamespace(id=f"vgb-t-{n:02x}") for n in (7, 3, 250, 9, 16, 42, 1)]
    for count in (1, 2, 3, 7):
        shards = [shard_of(tasks, f"{number}/{count}") for number in range(1, count + 1)]
        assert sorted(t.id for shard in shards for t in shard) == sorted(t.id for t in tasks)
        assert all([t for t in tasks if t in shard] == shard for shard in shards)  # the selection's own order
        assert max(map(len, shards)) - min(map(len, shards)) <= 1


@pytest.mark.parametrize("bad", ["0/2", "3/2", "1", "a/b", "1/0", "-1/2"])
def test_a_malformed_shard_is_refused_in_one_line(bad):
    with pytest.raises(UserError, match=r"expected i/N with 1 <= i <= N"):
        parse_shard(bad)


def test_a_shard_without_tasks_is_refused():
    with pytest.raises(UserError, match="no task in this shard"):
        shard_of([SimpleNamespace(id="vgb-t-1")], "2/2")


@pytest.mark.usefixtures("bwrap_available")
def test_two_shards_in_two_processes_give_the_leaderboard_row_of_one_process(tmp_path, bfcl_suite, bfcl_policy_logs):
    # The one process: the session's heuristic run on the BFCL suite's first six tasks (bfcl_policy_logs, the same
    # options but the shard); the two shards of that selection run at once, as on two hosts, each into its own log
    # directory, and the leaderboard reads both.
    common = ["eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={bfcl_suite}",
              "-T", f"task_ids={first_tasks(bfcl_suite, N_TASKS)}"]
    shards = [subprocess.Popen([*INSPECT, *common, "-T", f"shard={n}/2", "--log-dir", str(tmp_path / "shards" / f"host{n}")],
                               cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "INSPECT_DISPLAY": "none"}) for n in (1, 2)]
    for process in shards:
        _, stderr = process.communicate(timeout=900)
        assert process.returncode == 0, stderr[-3000:]
    single = logs_of(bfcl_policy_logs, ["verifierbench/heuristic"], tmp_path / "single")

    def row(logs):
        result = cli("leaderboard", str(logs), "--json", "--no-write")
        assert result.returncode == 0, result.stderr
        (only,) = json.loads(result.stdout).values()
        return only

    merged, one = row(tmp_path / "shards"), row(single)
    assert len(merged.pop("logs")) == 2 and len(one.pop("logs")) == 1
    # each log's own record (its name and coverage): two shard logs of 3 samples each against one of 6
    shard_records, single_records = merged.pop("log_records"), one.pop("log_records")
    assert sorted(r["samples_scored"] for r in shard_records) == [3, 3] and [r["samples_scored"] for r in single_records] == [6]
    assert all(r["status"] == "success" for r in shard_records + single_records)
    assert merged["n_tasks"] == N_TASKS
    # Equal up to the last bits of the floats: the merged row sums the same per-task rates in another order.
    merged_leaves, one_leaves = flat(merged), flat(one)
    assert merged_leaves.keys() == one_leaves.keys()
    assert {k: v for k, v in merged_leaves.items() if not isinstance(v, float)} == \
           {k: v for k, v in one_leaves.items() if not isinstance(v, float)}
    floats = [k for k, v in one_leaves.items() if isinstance(v, float)]
    assert floats and [merged_leaves[k] for k in floats] == pytest.approx([one_leaves[k] for k in floats], rel=1e-12, abs=1e-12)


def flat(value, prefix: str = "") -> dict:
    """A nested row as {dotted path: leaf}."""
    if isinstance(value, dict):
        return {path: leaf for key, item in value.items() for path, leaf in flat(item, f"{prefix}{key}.").items()}
    if isinstance(value, list):
        return {path: leaf for index, item in enumerate(value) for path, leaf in flat(item, f"{prefix}{index}.").items()}
    return {prefix: value}


# A bad -T shard option raises the one-line error every bad -T option does: tests/harness/test_inspect_errors.py
# (BAD_TASK_OPTIONS, and the printing through `inspect eval`).
