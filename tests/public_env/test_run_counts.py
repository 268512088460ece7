"""The harness's sums of what run_public's workers ran (public_env/run_counts.py), from the running totals each pooled
worker reports after a request (public_env/pool.py)."""

from __future__ import annotations

from verifierbench.public_env import pool, run_counts


def test_a_request_without_counts_between_two_code_requests_does_not_count_the_first_again():
    """A pooled worker serves a code task (its totals: 3 made), then a tool-call task (no counts), then the code task
    again (5 made, 2 reused): the harness counts 5 and 2, not the first 3 again (the docker parity eval's 154 reused
    against its vgb eval's 90, when the mixed suite's requests shared workers)."""
    worker = pool.Worker.__new__(pool.Worker)  # its bookkeeping only: no process behind it
    worker.run_counts = {}
    scope = "test_run_counts/instance-1"
    before = run_counts.tally(scope)
    for report in ({scope: {"made": 3, "reused": 0}}, {}, {scope: {"made": 5, "reused": 2}}, {"other": {"made": 1}}):
        worker._add_run_counts(report)
    after = run_counts.tally(scope)
    assert {what: after[what] - before.get(what, 0) for what in after} == {"made": 5, "reused": 2}
