"""Per-sandbox memory that counts kernel and socket memory (issue 35, defect 2): unix socket buffers are not in
RLIMIT_AS, so a verifier filling them from many processes held host memory outside every cap. With a memory cgroup
per sandbox uid (executor.memcg) it is stopped at the sandbox's limit."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import skip_unless_required, write_verifier
from verifierbench.executor import Executor, Job, memcg
from verifierbench.executor.limits import Limits
from verifierbench.core.protocol import Decision

pytestmark = pytest.mark.sandbox
MiB = 1 << 20
LIMIT = 256 * MiB

# 12 processes, each filling socket pairs until the kernel refuses, reporting what it queued; together they would
# queue well over LIMIT (about 60 MiB each here), far less than the machine's memory. Each holds its buffers until
# every one has filled (or died): a byte on `ready` each, then the parent closes `go`.
SOCKET_FILLER = """
import os, socket, sys
ready_r, ready_w = os.pipe()
go_r, go_w = os.pipe()
children = []
for _ in range(12):
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(go_w)
        pairs, total = [], 0
        try:
            for _ in range(100):
                a, b = socket.socketpair()
                a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
                a.setblocking(False)
                try:
                    while total < 160 << 20:
                        total += a.send(b"x" * 65536)
                except BlockingIOError:
                    pass
                pairs.append((a, b))
                os.write(2, f"queued {total}\\n".encode())
        except OSError:
            pass
        os.write(ready_w, b"1")
        os.close(ready_w)
        os.read(go_r, 1)  # end of file once the parent closes go: every child has filled its buffers by then
        os._exit(0)
    children.append(pid)
os.close(ready_w)
os.close(go_r)
filled = b""
while len(filled) < len(children):
    more = os.read(ready_r, len(children))
    if not more:  # every child has written or died
        break
    filled += more
os.close(go_w)
for pid in children:
    os.waitpid(pid, 0)
import json
json.dump({"decision": "PASS"}, open(sys.argv[2], "w"))
"""


def _available() -> int:
    with open("/proc/meminfo") as meminfo:
        return next(int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemAvailable:"))


class _LowestAvailable(threading.Thread):
    """The host's lowest MemAvailable while the case runs (others' work on the machine adds noise: hence a margin)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.before, self.lowest, self.done = _available(), _available(), threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.lowest = min(self.lowest, _available())


def _memcg_or_skip() -> None:
    if memcg.hierarchy() is None:
        skip_unless_required("memcg", "no writable memory cgroup (v1 or v2 with a delegated memory controller) "
                    "or not root; sandboxes run with RLIMIT_AS only (docs/isolation.md)")


def test_socket_buffers_from_many_processes_stop_at_the_sandbox_limit(bwrap_available, tmp_path):
    _memcg_or_skip()
    verifier = write_verifier(tmp_path / "v", SOCKET_FILLER)
    limits = Limits(timeout_s=30, memory_bytes=1 << 30, max_processes=32, sandbox_memory_bytes=LIMIT)
    with Executor(limits, isolation="bwrap", slots=1, warm=False) as executor:
        watch = _LowestAvailable()
        watch.start()
        outcome = executor.run(Job(verifier, {}, key="fill"))
        watch.done.set()
        watch.join()
        peak = memcg.peak_bytes(executor.slot_uid(0))
    queued = sum(int(n) for n in re.findall(r"queued (\d+)", outcome.stderr_tail)[-12:])
    drop = watch.before - watch.lowest
    print(f"queued {queued >> 20} MiB, cgroup peak {(peak or 0) >> 20} MiB, host available dropped {drop >> 20} MiB")
    assert outcome.decision is Decision.U, (outcome, queued)
    assert peak is not None and peak <= LIMIT
    assert drop <= LIMIT + 96 * MiB  # the margin: other processes on a shared machine


def test_forget_removes_the_cgroups_below_and_ends_their_processes():
    """Issue 51: a run_public worker (in a named cgroup) makes its sandboxes' cgroups below its own; once it is killed,
    `forget` takes the whole tree, a process still in it (a sandbox that outlived the worker) killed first."""
    _memcg_or_skip()
    procs = memcg.cgroup_named("forget-test", LIMIT)
    assert procs is not None
    below = procs.parent / f"{memcg.PREFIX}1" / "uid-1"  # as a worker makes its sandbox's
    below.mkdir(parents=True)
    straggler = subprocess.Popen(memcg.enter_argv(below / "cgroup.procs", ["sleep", "60"]))
    try:
        deadline = time.monotonic() + 10
        while str(straggler.pid) not in (below / "cgroup.procs").read_text().split():
            assert time.monotonic() < deadline, "the process never entered its cgroup"
            time.sleep(0.01)
        memcg.forget("forget-test")
        assert not procs.parent.exists()
        assert straggler.wait(5) == -9
    finally:
        straggler.kill()
        straggler.wait()


# A harness whose exit finds two of its cgroups busy (a thread of its own in each, which `release` must not kill), and
# a worker's below one of them.
BUSY_AT_EXIT = """
import os, threading
from verifierbench.executor import memcg
for name in ("a", "b"):
    procs = memcg.cgroup_named(name, 1 << 30)
    (procs.parent / "verifierbench-1" / "uid-1").mkdir(parents=True)
    entered = threading.Event()
    def hold(procs=procs, entered=entered):
        with memcg.thread_in(procs):
            entered.set()
            threading.Event().wait()
    threading.Thread(target=hold, daemon=True).start()
    entered.wait()
print(os.getpid())
"""


def test_cgroups_busy_at_exit_are_one_line_and_the_next_sweep_removes_them():
    _memcg_or_skip()
    found = memcg.hierarchy()
    assert found is not None
    if found.version != 1:
        pytest.skip("memcg: a thread alone in a cgroup is cgroup v1's (thread_in)")
    result = subprocess.run([sys.executable, "-c", BUSY_AT_EXIT], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-3000:]
    harness = found.own / f"{memcg.PREFIX}{int(result.stdout)}"
    try:
        assert result.stderr.count("not removed") == 1, result.stderr  # one line for the process, not one per cgroup
        assert "3 memory cgroup(s) not removed" in result.stderr  # a, b and the harness's: the rest went
        assert harness.is_dir() and not (harness / "named-a" / f"{memcg.PREFIX}1").exists()
    finally:
        assert memcg.sweep(found.own) == [str(harness)]  # its threads ended with it: nothing holds them now
    assert not harness.exists()
