"""A harness killed while a sandbox starts leaves no bubblewrap behind (isolation.started_as).

bwrap's own --die-with-parent arms only once it has made the sandbox's namespaces: a Ray node removed at that moment
(tests/cluster/test_ray_faults.py) left bwrap reparented to init. Here bwrap is held before that point, reading its
arguments (`--args`) from a pipe nobody writes, started by the harness's real spawn paths in a process of its own; the
test kills that process and looks for the bwrap."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from verifierbench.executor import isolation

pytestmark = pytest.mark.usefixtures("bwrap_available")

# Found first on PATH (PATH names its directory): the real bwrap, stalled before it arms its own parent-death signal.
STALLED_BWRAP = """#!/bin/sh
exec 3<>"$(dirname "$0")/never-written"
exec {bwrap} --args 3 "$@"
"""

RUN = """
from verifierbench.executor import process
from verifierbench.executor.isolation import IsolationLevel, slot_uid
from verifierbench.executor.limits import Limits
process.HOST_ENV["PATH"] = "{path}"
command = process.Command(["/usr/bin/true"], {{}}, Limits())
"""
# The harness's code paths that start a bwrap, each run by the process the test kills.
PARENTS = {
    "probe": "from verifierbench.executor.isolation import probe_bwrap\nprobe_bwrap()\n",
    "judging (a thread's spawn)": RUN + "process.run(command, IsolationLevel.bwrap, slot_uid(0), '/', open('/dev/null', 'wb'), 60)\n",
    "generation (asyncio's spawn)": RUN + "import asyncio\n"
                                          "asyncio.run(process.run_async(command, IsolationLevel.bwrap, slot_uid(0), '/', None, 60, 1024))\n",
}


def state(pid: int) -> str | None:
    """The process's state letter (Z: dead, not yet reaped), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def stalled_bwrap_child(parent: int, deadline: float) -> int:
    """The parent's child once it is bwrap, blocked on its arguments."""
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            try:
                if not entry.name.isdigit() or int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) != parent:
                    continue
                if (entry / "comm").read_text().strip() == "bwrap" and state(int(entry.name)) == "S":
                    return int(entry.name)
            except (FileNotFoundError, ProcessLookupError):
                continue
        time.sleep(0.05)
    raise AssertionError("the parent started no bwrap")


@pytest.mark.skipif(not os.path.exists(isolation.SETPRIV), reason="no setpriv: bwrap arms its parent-death signal itself, later")
@pytest.mark.parametrize("path", PARENTS)
def test_a_harness_killed_while_bwrap_starts_leaves_no_bwrap(traversable_tmp, path):
    real = shutil.which("bwrap")
    assert real is not None
    stall = Path(tempfile.mkdtemp(dir=traversable_tmp))
    stall.chmod(0o755)
    os.mkfifo(stall / "never-written", 0o666)
    os.chmod(stall / "never-written", 0o666)  # the sandbox uid opens it (not the umask's)
    (stall / "bwrap").write_text(STALLED_BWRAP.format(bwrap=real))
    (stall / "bwrap").chmod(0o755)
    search = f"{stall}:/usr/bin:/bin"
    parent = subprocess.Popen([sys.executable, "-c", PARENTS[path].format(path=search)], cwd=REPO_ROOT,
                              env={**os.environ, "PATH": search, "PYTHONPATH": str(REPO_ROOT)})
    bwrap = None
    try:
        bwrap = stalled_bwrap_child(parent.pid, time.monotonic() + 60)
        time.sleep(0.2)  # it reads its arguments: before its own --die-with-parent
        assert state(bwrap) == "S"
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 5
        while state(bwrap) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert state(bwrap) in (None, "Z"), f"bwrap {bwrap} outlived the process that started it"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if bwrap is not None and state(bwrap) not in (None, "Z"):
            os.kill(bwrap, signal.SIGKILL)
