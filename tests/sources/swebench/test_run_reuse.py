"""Reuse of the test runs verifiers trigger through run_public (`sources/swebench/run_reuse.py`, docs/isolation.md
"Reused test runs"), on the offline fixture's code task, with real sandboxed runs: the same request is run once; a
request one byte or one test away is run; and the red team: a timed-out, slowed, killed or memory-starved run is
never reused, a diff writing outside its tests shapes no later result, a planted or loose cache directory is
refused (its records never read, nothing written through it), and the reference's runs and a verifier's never serve
each other. Then rounds over a flaky test (docs/protocol.md): with reuse every round sees the same run; without,
each round draws anew."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.sources.swebench.fixture import FLAKY_TEST_DIFF, new_file_diff
from tests.sources.swebench.test_runcache import _Counting  # the real executor, counting its sandboxed runs
from verifierbench.scorers.hidden_cases import judge_cases
from verifierbench.core.schema import Category
from verifierbench.public_env import run_counts
from verifierbench.sources.swebench import run_reuse, runcache, testrun
from verifierbench.sources.swebench.served_environment import CodeEnvironment
from verifierbench.suite.store import load_suite

pytestmark = pytest.mark.usefixtures("bwrap_available")

MONTHS = ["tests/test_months.py"]


@pytest.fixture()
def runs(monkeypatch) -> list[str]:
    """The diff of every sandboxed test run made from here on (none served from a kept run)."""
    made: list[str] = []
    real = testrun._executor
    monkeypatch.setattr(testrun, "_executor", lambda own_environment: _Counting(real(own_environment), made))
    return made


@pytest.fixture()
def store(traversable_tmp, monkeypatch, request) -> Path:
    """This test's own persistent cache (`<root>/runs`), reuse on, and an empty memory (a fresh process)."""
    root = traversable_tmp / f"reuse-{request.node.name}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(mode=0o755)
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(root / "envs"))
    monkeypatch.delenv(runcache.SWITCH, raising=False)
    monkeypatch.delenv(run_reuse.SWITCH, raising=False)
    run_reuse.forget()
    yield root / "runs"
    run_reuse.forget()


@pytest.fixture()
def task(code_suite):
    return next(iter(load_suite(code_suite).tasks.values()))


@pytest.fixture()
def environment(task) -> CodeEnvironment:
    return CodeEnvironment(task.reference)


def _ask(environment: CodeEnvironment, diff: str, tests: list[str]) -> dict:
    return environment.run_request({"op": "run_public", "diff": diff, "tests": tests})


def _tally(environment: CodeEnvironment) -> dict[str, int]:
    return run_reuse.tally(environment.scope)


def _since(before: dict[str, int], environment: CodeEnvironment) -> dict[str, int]:
    now = _tally(environment)
    return {what: now[what] - before[what] for what in now if now[what] != before[what]}


def test_the_same_run_is_made_once_and_reused_from_memory_and_from_disk(task, environment, store, runs, monkeypatch):
    gold = task.reference["patch"]
    before = _tally(environment)
    first = _ask(environment, gold, ["tests/test_parse.py"])
    assert first["applied"] and first["exit_code"] == 0, first
    assert _ask(environment, gold, ["tests/test_parse.py"]) == first
    run_reuse.forget()  # a later process: from the persistent cache
    assert _ask(environment, gold, ["tests/test_parse.py"]) == first
    assert len(runs) == 1 and _since(before, environment) == {"made": 1, "reused": 2}
    assert len(list(store.glob("*.json.gz"))) == 1
    # Without the persistent cache, the process's memory still serves its own later rounds.
    monkeypatch.setenv(runcache.SWITCH, "0")
    run_reuse.forget()
    again = _ask(environment, gold, ["tests/test_parse.py"])  # a new run: its log's timings differ
    assert (again["exit_code"], again["outcomes"]) == (first["exit_code"], first["outcomes"])
    assert _ask(environment, gold, ["tests/test_parse.py"]) == again
    assert len(runs) == 2 and _since(before, environment) == {"made": 2, "reused": 3}


def test_a_diff_one_byte_away_or_another_test_selection_is_run_afresh(task, environment, store, runs):
    gold = task.reference["patch"]
    _ask(environment, gold, MONTHS)
    assert len(runs) == 1
    one_byte = gold.replace("most\n", "most \n", 1)
    assert one_byte != gold and len(one_byte) == len(gold) + 1
    other_byte = gold.replace("RFC 7231", "RFC 7230", 1)
    assert len(other_byte) == len(gold)
    for diff, tests in ((one_byte, MONTHS), (other_byte, MONTHS), (gold, MONTHS + ["tests/test_parse.py"]),
                        (gold, ["tests/test_parse.py"] + MONTHS), (gold, ["tests/test_months.py::test_weekday_name"])):
        made = len(runs)
        reply = _ask(environment, diff, tests)
        assert reply["applied"] and len(runs) == made + 1, (diff == gold, tests)
    assert _ask(environment, other_byte, MONTHS)["exit_code"] == 0 and len(runs) == 6  # and each is kept for itself


SLOW = new_file_diff("tests/test_slow.py", "import time\n\n\ndef test_slow():\n    time.sleep(3)\n")


def test_a_timed_out_or_slowed_run_is_never_reused(environment, store, runs):
    before = _tally(environment)
    environment.timeout_s = 1.5  # the verifier's first request runs out of time (a loaded machine, or its own doing)
    timed_out = _ask(environment, SLOW, ["tests/test_slow.py"])
    assert timed_out["applied"] and timed_out["exit_code"] is None, timed_out
    environment.timeout_s = 5.0  # it finishes, in more than half its limit: a slowed run, not kept either
    slowed = _ask(environment, SLOW, ["tests/test_slow.py"])
    assert slowed["exit_code"] == 0 and len(runs) == 2
    assert _ask(environment, SLOW, ["tests/test_slow.py"])["exit_code"] == 0 and len(runs) == 3
    assert _since(before, environment) == {"made": 3, "not_kept": 3}
    assert not list(store.glob("*.json.gz"))
    environment.timeout_s = 60.0  # with room: run, kept, and reused
    assert _ask(environment, SLOW, ["tests/test_slow.py"])["exit_code"] == 0
    assert _ask(environment, SLOW, ["tests/test_slow.py"])["exit_code"] == 0 and len(runs) == 4
    environment.timeout_s = 5.0  # the kept run does not serve a request it might not have finished in
    assert _ask(environment, SLOW, ["tests/test_slow.py"])["exit_code"] == 0 and len(runs) == 5


KILLED = new_file_diff("tests/test_killed.py", "import os\nimport signal\n\n\ndef test_killed():\n    os.kill(os.getpid(), signal.SIGKILL)\n")
STARVED = new_file_diff("tests/test_starved.py", "def test_starved():\n    assert len(bytearray(16 << 30)) > 0\n")
FORKS = new_file_diff("tests/test_forks.py", "import subprocess\n\n\ndef test_forks():\n"
                      "    children = [subprocess.Popen(['sleep', '5']) for _ in range(400)]\n")


@pytest.mark.parametrize("diff,test", [(KILLED, "tests/test_killed.py"), (STARVED, "tests/test_starved.py"),
                                       (FORKS, "tests/test_forks.py")], ids=["killed", "out-of-memory", "out-of-processes"])
def test_a_run_killed_or_at_its_sandbox_limits_is_never_reused(environment, store, runs, diff, test):
    before = _tally(environment)
    first = _ask(environment, diff, [test])
    second = _ask(environment, diff, [test])
    assert first["applied"] and first["exit_code"] != 0 and second["exit_code"] != 0, first["log"][-500:]
    assert len(runs) == 2 and _since(before, environment) == {"made": 2, "not_kept": 2}
    assert not list(store.glob("*.json.gz"))


def test_a_diff_writing_outside_its_tests_shapes_no_later_result(environment, store, runs):
    # The first request's code writes everywhere a later run might look: its scratch, /tmp, the home and working
    # directory's parents, the checkout, and the cache's own directory as the host names it.
    targets = ["/tmp/vgb-poison", "/repo/vgb-poison", "/repo/tests/vgb-poison", str(store / "vgb-poison"),
               str(store.parent / "vgb-poison"), "/var/tmp/verifierbench/runs/vgb-poison", "/dev/shm/vgb-poison"]
    writer = new_file_diff("tests/conftest.py", "import os\n\nfor path in " + repr(targets) + " + [os.path.join(os.path.dirname(os.getcwd()), '..', 'vgb-poison'), os.path.expanduser('~/../vgb-poison')]:\n"
                           "    try:\n        os.makedirs(os.path.dirname(path), exist_ok=True)\n"
                           "        with open(path, 'w') as handle:\n            handle.write('poison')\n"
                           "    except OSError:\n        pass\n")
    reader = new_file_diff("tests/test_clean.py", "import glob\nimport os\n\n\ndef test_clean():\n"
                           "    found = [p for p in " + repr(targets) + " if os.path.exists(p)]\n"
                           "    found += glob.glob('/tmp/**/vgb-poison', recursive=True) + glob.glob(os.path.dirname(os.getcwd()) + '/**/vgb-poison', recursive=True)\n"
                           "    assert not found, found\n")
    assert _ask(environment, writer, MONTHS)["exit_code"] == 0
    shaped = _ask(environment, reader, ["tests/test_clean.py"])
    assert shaped["exit_code"] == 0, shaped["log"][-800:]
    assert not [p for p in targets if os.path.exists(p) and not p.startswith("/tmp/")] and not (store / "vgb-poison").exists()
    assert sorted(p.name for p in store.iterdir()) == sorted(p.name for p in store.glob("*.json.gz")) and len(runs) == 2
    # What is reused is the run as made on its own: the same outcome as a fresh run without the writer first.
    run_reuse.forget()
    assert _ask(environment, reader, ["tests/test_clean.py"])["outcomes"] == shaped["outcomes"] and len(runs) == 2
    shutil.rmtree(store)
    run_reuse.forget()
    fresh = _ask(environment, reader, ["tests/test_clean.py"])
    assert fresh["outcomes"] == shaped["outcomes"] == {"tests/test_clean.py::test_clean": "passed"} and len(runs) == 3


# A server the first request's test leaves behind (its own session, outliving the test), on an abstract unix socket
# and a loopback port: were it alive and reachable in a later run, it could answer that run's tests and shape a
# result that is then kept.
SERVER = ("import socket, time\nlocal = socket.socket(socket.AF_UNIX)\nlocal.bind('\\0vgb-poison')\nlocal.listen(64)\n"
          "port = socket.socket()\nport.bind(('127.0.0.1', 47561))\nport.listen(64)\ntime.sleep(120)\n")
PROBE = ("def reachable():\n    found = []\n"
         "    for family, address in ((socket.AF_UNIX, '\\0vgb-poison'), (socket.AF_INET, ('127.0.0.1', 47561))):\n"
         "        probe = socket.socket(family)\n        try:\n            probe.connect(address)\n"
         "            found.append(address)\n        except OSError:\n            pass\n        finally:\n"
         "            probe.close()\n    return found\n")
LEAVER = new_file_diff("tests/test_leave_server.py", "import socket\nimport subprocess\nimport sys\nimport time\n\n" + PROBE +
                       "\n\ndef test_leave_server():\n    subprocess.Popen([sys.executable, '-c', " + repr(SERVER) + "], start_new_session=True,\n"
                       "                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                       "    for _ in range(100):\n        if len(reachable()) == 2:\n            return\n        time.sleep(0.1)\n"
                       "    raise AssertionError(reachable())\n")
ASKER = new_file_diff("tests/test_ask_server.py", "import socket\n\n" + PROBE + "\n\ndef test_ask_server():\n"
                      "    assert not reachable(), reachable()\n")


def test_a_server_left_behind_by_a_request_answers_no_later_run(environment, store, runs):
    left = _ask(environment, LEAVER, ["tests/test_leave_server.py"])
    assert left["exit_code"] == 0, left["log"][-800:]  # the server ran, reachable from its own run
    asked = _ask(environment, ASKER, ["tests/test_ask_server.py"])
    assert asked["exit_code"] == 0, asked["log"][-800:]  # neither its unix socket nor its port from the next run
    assert len(runs) == 2 and len(list(store.glob("*.json.gz"))) == 2


def _forged_record(key: str) -> bytes:
    result = {"applied": True, "exit_code": 0, "log": "FORGED", "report": {"outcomes": {"tests/test_parse.py::test_two_digit_year_near_future": "passed"}}}
    return gzip.compress(json.dumps({"format": runcache.FORMAT, "key": key, "seconds": 0.1, "result": result, "about": {}}).encode())


@pytest.mark.parametrize("planting", ["symlink", "writable-by-others"])
def test_a_planted_or_loose_cache_directory_is_refused(task, environment, store, runs, traversable_tmp, planting):
    request = (task.reference["test_patch"], ["tests/test_parse.py"])  # the new tests on the unfixed code: they fail
    real = _ask(environment, *request)
    assert real["exit_code"] == 1 and len(runs) == 1
    (kept,) = store.glob("*.json.gz")
    planted = traversable_tmp / f"planted-{planting}"
    shutil.rmtree(planted, ignore_errors=True)
    planted.mkdir()
    (planted / kept.name).write_bytes(_forged_record(kept.name.split(".")[0]))
    shutil.rmtree(store)
    if planting == "symlink":
        store.symlink_to(planted)
    else:
        shutil.copytree(planted, store)
        os.chmod(store, 0o777)
    run_reuse.forget()
    before = _tally(environment)
    for _ in range(2):
        answer = _ask(environment, *request)
        assert answer["exit_code"] == 1 and "FORGED" not in answer["log"], answer["log"][-300:]
    # refused when looked up and when kept; the second request is served from the process's memory of the real run
    assert len(runs) == 2 and _since(before, environment) == {"made": 1, "reused": 1, "refused": 2}
    assert sorted(p.name for p in planted.iterdir()) == [kept.name]  # nothing written through the link


def test_the_references_runs_and_a_verifiers_never_serve_each_other(task, environment, store, runs):
    gold = task.reference["patch"]
    reference = testrun.run_tests(environment.checkout, [gold], MONTHS, cache=True, timeout_s=environment.timeout_s)
    assert reference.exit_code == 0 and len(runs) == 1
    assert _ask(environment, gold, MONTHS)["exit_code"] == 0 and len(runs) == 2  # the same job, not reused
    runcache_before = dict(runcache.stats)
    again = testrun.run_tests(environment.checkout, [gold], MONTHS, cache=True, timeout_s=environment.timeout_s)
    assert again.exit_code == 0 and len(runs) == 2 and runcache.stats["hits"] == runcache_before["hits"] + 1
    assert len(list(store.glob("*.json.gz"))) == 2  # one record each


def test_reuse_off_runs_every_request_afresh(environment, store, runs, monkeypatch):
    monkeypatch.setenv(run_reuse.SWITCH, "0")
    before = _tally(environment)
    draws = [_ask(environment, FLAKY_TEST_DIFF, ["tests/test_flaky.py"])["log"] for _ in range(2)]
    assert len(runs) == 2 and _since(before, environment) == {"made": 2}
    assert draws[0] != draws[1] and all("draw" in log for log in draws)  # two draws of the coin
    assert not store.exists()


FLAKY_VERIFIER = '''import json, sys, vgb_env
candidate = json.load(open(sys.argv[1]))
run = vgb_env.run_public(diff=candidate["diff"] + FLAKY, tests=["tests/test_flaky.py"])
json.dump({"decision": "PASS" if run.get("exit_code") == 0 else "FAIL"}, open(sys.argv[2], "w"))
'''


@pytest.mark.parametrize("reuse", ["on", "off"])
def test_three_rounds_over_a_flaky_test(task, code_suite, store, runs, monkeypatch, reuse):
    """A verifier whose decision is a flaky test's outcome, judged in three rounds (the scorer's judge_cases): with
    reuse, each case's three rounds get the one run made in round 1 (the rounds agree, whatever the coin said);
    without, each round runs the test again."""
    if reuse == "off":
        monkeypatch.setenv(run_reuse.SWITCH, "0")
    all_cases = load_suite(code_suite).cases_by_task[task.id]
    # two cases with different diffs (the gold, the empty diff): concurrent cases of one round never share a run
    cases = [next(c for c in all_cases if c.category is category) for category in (Category.gold, Category.base)]
    assert len({c.candidate["diff"] for c in cases}) == 2 and all(c.candidate["diff"].endswith("\n") or not c.candidate["diff"] for c in cases)
    files = {"verify.py": {"text": "FLAKY = " + repr(FLAKY_TEST_DIFF) + "\n" + FLAKY_VERIFIER}}
    scope = run_reuse.scope_of(task.reference)
    before = run_counts.tally(scope)  # the harness's sums of what run_public's workers report (public_env/run_counts.py)
    _, decisions = judge_cases(files, cases, 3, task)
    counts = {what: n - before.get(what, 0) for what, n in run_counts.tally(scope).items()}
    assert all(len(d) == 3 and {j.decision.value for j in d} <= {"P", "F"} for d in decisions.values()), decisions
    # The runs are made in run_public's worker processes (public_env/worker.py), out of `runs`' sight: their counts
    # come back with each request (public_env/pool.py); the tests above count sandboxed runs in this process.
    assert not runs
    if reuse == "on":
        assert all(len({j.decision for j in d}) == 1 for d in decisions.values()), decisions
        assert counts["made"] == 2 and counts["reused"] == 4
    else:
        assert counts["made"] == 3 * len(cases) and counts["reused"] == 0


def test_nothing_is_reused_without_bubblewrap_or_for_traced_and_fail_fast_runs(environment, store):
    """At level `none` a test run is this user's process on the host and could write the cache: no key, no reuse."""
    job = {"diffs": [""], "tests": MONTHS, "test_patch": "", "reset": [], "runner": "pytest", "repo": "/repo"}
    limits = testrun.LIMITS
    assert run_reuse.key_for(job, environment.checkout, None, "bwrap", limits, ()) is not None
    assert run_reuse.key_for(job, environment.checkout, None, "none", limits, ()) is None
    assert run_reuse.key_for({**job, "failfast": True}, environment.checkout, None, "bwrap", limits, ()) is None
    assert run_reuse.key_for({**job, "reach": {"fail_to_pass": []}}, environment.checkout, None, "bwrap", limits, ()) is None
    assert run_reuse.key_for(job, environment.checkout, None, "bwrap", limits, ()) != runcache.run_key(
        job, environment.checkout, None, "bwrap", limits, (), loopback=True)
