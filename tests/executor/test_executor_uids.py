"""Executors in one process run untrusted code under uids of their own (issue 35, defect 3): a fork-bomb verifier that
takes its uid's process limit in one executor's slot 0 leaves another executor's judging unaffected, in this process
and in another harness process beside it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from tests.conftest import root_only, write_verifier
from verifierbench.executor import Executor, Job
from verifierbench.executor.limits import Limits
from verifierbench.core.protocol import Decision

pytestmark = [pytest.mark.sandbox, root_only("slot uids are the harness's own unless root")]

LIMITS = Limits(timeout_s=10, memory_bytes=1 << 30, max_processes=32)
# The bomb's own limit: it holds its uid's process limit until then, and the test waits for it to end (a shorter wait
# than LIMITS', asserted to outlast the judging beside it).
BOMB_LIMITS = Limits(timeout_s=5, memory_bytes=1 << 30, max_processes=32)
FORK_BOMB = """
import os, time
while True:
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    except OSError:
        time.sleep(0.05)
"""
JUDGE = 'import json, sys; json.dump({"decision": "PASS"}, open(sys.argv[2], "w"))\n'


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        try:
            count += entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid
        except OSError:
            pass
    return count


def _bomb_running(executor: Executor, tmp_path) -> threading.Thread:
    bomb = write_verifier(tmp_path / "bomb", FORK_BOMB)
    thread = threading.Thread(target=executor.run, args=(Job(bomb, {}, key="bomb"),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 8
    while _processes_of(executor.slot_uid(0)) < LIMITS.max_processes - 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_of(executor.slot_uid(0)) >= LIMITS.max_processes - 2, "the fork bomb did not reach its limit"
    return thread


def test_two_executors_in_one_process_have_their_own_uids(bwrap_available, tmp_path):
    judge = write_verifier(tmp_path / "judge", JUDGE)
    with Executor(BOMB_LIMITS, isolation="bwrap", slots=1, warm=False) as hostile, \
            Executor(LIMITS, isolation="bwrap", slots=1) as judging:
        assert hostile.slot_uid(0) != judging.slot_uid(0)
        thread = _bomb_running(hostile, tmp_path)
        outcomes = list(judging.run_batch([Job(judge, {}, key=str(i)) for i in range(3)]))
        assert [o.decision for o in outcomes] == [Decision.P] * 3, [o.problem or o.stderr_tail for o in outcomes]
        assert thread.is_alive(), "the bomb ended before the judging did: nothing was proven beside it"
        thread.join()


def test_a_fork_bomb_in_another_harness_process_leaves_our_decisions_alone(bwrap_available, tmp_path):
    judge = write_verifier(tmp_path / "judge", JUDGE)
    bomb = write_verifier(tmp_path / "bomb", FORK_BOMB)
    script = textwrap.dedent(f"""
        from verifierbench.executor import Executor, Job
        from verifierbench.executor.limits import Limits
        with Executor(Limits(timeout_s=5, memory_bytes=1 << 30, max_processes=32), isolation="bwrap", slots=1) as e:
            print(e.slot_uid(0), flush=True)
            e.run(Job({str(bomb)!r}, {{}}, key="bomb"))
    """)
    other = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        uid = int(other.stdout.readline())
        deadline = time.monotonic() + 8
        while _processes_of(uid) < LIMITS.max_processes - 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        with Executor(LIMITS, isolation="bwrap", slots=1) as judging:
            assert judging.slot_uid(0) != uid
            outcomes = list(judging.run_batch([Job(judge, {}, key=str(i)) for i in range(3)]))
        assert [o.decision for o in outcomes] == [Decision.P] * 3, [o.problem or o.stderr_tail for o in outcomes]
        assert other.poll() is None, "the other process's bomb ended before the judging did: nothing was proven beside it"
    finally:
        other.wait(timeout=30)
