"""An executor ended by SIGTERM leaves nothing mounted (issue 35, item 6): its slots' /output tmpfs mounts and its root
go with it, and the signal still ends the process as a SIGTERM does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import root_only
from verifierbench.executor import tmpfs
from verifierbench.executor.workdirs import OUTPUT_SOURCE

pytestmark = [pytest.mark.sandbox, root_only("the slots' /output is a tmpfs only as root")]


def test_sigterm_unmounts_the_slots_and_removes_the_root(bwrap_available, tmp_path):
    verifier = tmp_path / "verify.py"
    verifier.write_text('import sys\nopen(sys.argv[2], "w").write(\'{"decision": "PASS"}\')\n')
    verifier.chmod(0o644)
    os.chmod(tmp_path, 0o755)
    script = textwrap.dedent(f"""
        import time
        from verifierbench.executor import Executor, Job
        executor = Executor(isolation="bwrap", slots=1, warm=False)
        assert executor.run(Job({str(verifier)!r}, {{}}, key="x")).decision.value == "P"
        print(executor.root, flush=True)
        time.sleep(60)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    root = child.stdout.readline().strip()
    assert root and any(point.startswith(root) for point in tmpfs.mount_points(OUTPUT_SOURCE))
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) == -signal.SIGTERM
    assert not any(point.startswith(root) for point in tmpfs.mount_points(OUTPUT_SOURCE))
    assert not os.path.exists(root)


def test_sigterm_while_the_main_thread_holds_the_cleanups_locks_still_ends_the_process(bwrap_available):
    """The signal handler runs on the main thread between any two bytecodes; when that thread was inside memcg or
    uid_range (making a sandbox's cgroup, taking a uid block), their plain locks were already held and the handler's
    clean-up waited on them forever: an `inspect eval-set` sent SIGTERM mid-run hung (CI, test_resume.py, 2026-12-07;
    py-spy showed memcg.release under memcg._set_limit). Both locks are re-entrant now."""
    script = textwrap.dedent("""
        import time
        from verifierbench.executor import Executor, memcg, uid_range
        executor = Executor(isolation="bwrap", slots=1, warm=False)  # its uid block goes back at the signal
        with memcg._lock, uid_range._lock:
            print("held", flush=True)
            time.sleep(60)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait()
