"""Per-case decisions identical on the warm and the cold path (issue 22), on a sample of tasks of every source.

The whole offline suite is compared by benchmarks/warm_parity.py; this keeps a sample under test:
two tasks of each tool-call source, one of each state source and of the code source, a few cases
each, for the reference, exact-match, heuristic and random verifiers.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.warm_parity import KINDS, judge_both
from verifierbench.suite.store import load_suite

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]


def sample(suite_dir, per_source: int):
    suite = load_suite(suite_dir)
    by_source: dict[str, list] = {}
    for task in sorted(suite.tasks.values(), key=lambda t: t.id):
        by_source.setdefault(task.source.value, []).append(task)
    chosen = [t for tasks in by_source.values() for t in random.Random(0).sample(tasks, min(per_source, len(tasks)))]
    return suite, chosen, set(by_source)


@pytest.mark.parametrize("which, per_source, cases, sources", [
    ("built", 2, 12, {"bfcl", "acebench"}),
    ("state_suite", 1, 2, {"tau2", "agentdojo"}),
    ("code_suite", 1, 2, {"swebench"}),
])
@pytest.mark.timeout(1200)  # state references take seconds a case cold (their imports), more on a loaded machine
def test_warm_and_cold_decide_every_case_alike(request, bwrap_available, which, per_source, cases, sources):
    suite, tasks, found = sample(request.getfixturevalue(which), per_source)
    assert found == sources
    for kind in KINDS:
        cold, warm, _, _, paths = judge_both(suite, kind, tasks, slots=2, cases_per_task=cases)
        assert cold and warm == cold, kind
        # every verifier decides every case here: a U on both paths would make the parity vacuous (it once hid an
        # exact-match that crashed on every state case, and a heuristic without vgb_env)
        assert "U" not in cold.values(), (kind, sorted(k for k, d in cold.items() if d == "U")[:5])
        # run_public cases of state tasks go warm too; code tasks' runs have a loopback of their own (Job.loopback) and
        # never share a warm sandbox
        assert set(paths) == ({"cold"} if which == "code_suite" else {"warm"}), (kind, paths)
