"""scripts/ray_local_cluster.py, the documented way to try `--backend ray` on one host: its cluster judges as users
run it, listens on loopback only, and is gone when the script is stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.cluster.test_ray_parity import judge, ray_listeners
from tests.conftest import REPO_ROOT, write_verifier
from verifierbench.suite.store import load_suite

pytestmark = [pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available", "ray_installed")]

ACCEPT = 'import json, os\njson.dump({"decision": "PASS"}, open(os.environ["VGB_RESULT"], "w"))\n'


def own_ray_processes(pid: int) -> list[int]:
    """The Ray processes started by the script (its descendants)."""
    out = subprocess.run(["ps", "-eo", "pid=,ppid=,args="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = (int(x) for x in line.split()[:2])
        children.setdefault(parent, []).append(child)
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


@pytest.mark.timeout(300)
def test_the_script_s_cluster_judges_on_loopback_and_stops(bfcl_suite, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    port = free_port()
    script = subprocess.Popen([sys.executable, str(REPO_ROOT / "scripts" / "ray_local_cluster.py"), "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        address = script.stdout.readline().split("address: ", 1)[1].strip()
        token = script.stdout.readline().rsplit("RAY_AUTH_TOKEN=", 1)[1].strip()
        assert address == f"127.0.0.1:{port}"
        started = own_ray_processes(script.pid)
        assert started, "the script started no process"
        listeners = ray_listeners()
        assert listeners and [l for l in listeners if l[0] not in ("127.0.0.1", "::ffff:127.0.0.1", "::1")] == []
        task = sorted(load_suite(bfcl_suite).tasks)[0]
        write_verifier(tmp_path / "verifiers" / task, ACCEPT)
        decided = judge(bfcl_suite, tmp_path / "verifiers", tmp_path / "out.jsonl", [task], "--backend", "ray",
                        "--ray-address", address, env={"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token})
        assert decided and set(decided.values()) == {"P"}
    finally:
        script.send_signal(signal.SIGTERM)
        _, stderr = script.communicate(timeout=120)
    assert script.returncode == 0 and "stopped" in stderr, stderr[-2000:]
    assert [pid for pid in started if os.path.exists(f"/proc/{pid}") and
            open(f"/proc/{pid}/stat").read().split()[2] != "Z"] == []


def free_port() -> int:
    """A loopback port nothing listens on now: two test runs at once must not both ask for the same one."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
