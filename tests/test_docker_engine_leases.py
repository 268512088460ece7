"""scripts/docker-engine.sh's leases, on a stand-in engine (a sleeping process and a `docker` that answers): two
runs sharing one engine do not stop it under each other, a hand-started engine survives a run's release, and a
plain stop is refused while a live process holds a lease."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, root_only

pytestmark = root_only("scripts/docker-engine.sh runs as root only")

SCRIPT = REPO_ROOT / "scripts" / "docker-engine.sh"


class StandIn:
    """An engine 'running' under a private state directory: its daemon is a sleep, its CLI always succeeds."""

    def __init__(self, state: Path):
        self.state = state
        (state / "bin").mkdir(parents=True)
        (state / "run").mkdir()
        docker = state / "bin" / "docker"
        docker.write_text("#!/bin/sh\nexit 0\n")
        docker.chmod(0o755)
        self.daemon = orphan()
        (state / "run" / "docker.pid").write_text(str(self.daemon))
        self.holders: list[int] = []

    def holder(self) -> int:
        self.holders.append(orphan())
        return self.holders[-1]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "VERIFIERBENCH_DOCKER_STATE": str(self.state)}
        env.pop("DOCKER_HOST", None)
        return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=60, env=env)

    def engine_alive(self) -> bool:
        return alive(self.daemon)

    def close(self) -> None:
        for pid in [self.daemon, *self.holders]:
            kill(pid)


def orphan() -> int:
    """A sleeping process that is not our child (reaped by init), so a signal really ends it, as for a daemon."""
    out = subprocess.run(["sh", "-c", "sleep 300 >/dev/null 2>&1 </dev/null & echo $!"], capture_output=True, text=True)
    return int(out.stdout)


def alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


def wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 30
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)


def stat_start(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().split()[21] + "\n"


@pytest.fixture
def engine(tmp_path):
    stand_in = StandIn(tmp_path / "state")
    yield stand_in
    stand_in.close()


def test_the_engine_stops_when_the_last_of_two_leases_goes(engine):
    first, second = engine.holder(), engine.holder()
    # An engine nobody holds counts as started by hand: make it one a lease started, as a run that started it would.
    (engine.state / "run" / "leases").mkdir()
    (engine.state / "run" / "leases" / str(first)).write_text(stat_start(first))
    assert engine.run("start", "--lease", str(second)).returncode == 0
    released = engine.run("stop", "--lease", str(first))
    assert released.returncode == 0 and f"in use by pid(s) {second}" in released.stderr, released.stderr
    assert engine.engine_alive()
    assert engine.run("stop", "--lease", str(second)).returncode == 0
    assert wait_gone(engine.daemon)


def test_a_hand_started_engine_survives_a_runs_release(engine):
    run = engine.holder()
    assert engine.run("start", "--lease", str(run)).returncode == 0   # up, unleased: started by hand
    kept = engine.run("stop", "--lease", str(run))
    assert kept.returncode == 0 and "started by hand" in kept.stderr, kept.stderr
    assert engine.engine_alive()


def test_a_plain_stop_is_refused_while_a_lease_is_live_and_force_overrides(engine):
    run = engine.holder()
    assert engine.run("start").returncode == 0
    assert engine.run("start", "--lease", str(run)).returncode == 0
    refused = engine.run("stop")
    assert refused.returncode == 1 and f"in use by pid(s) {run}" in refused.stderr, refused.stderr
    assert engine.engine_alive()
    assert engine.run("stop", "--force").returncode == 0
    assert wait_gone(engine.daemon)


def test_a_lease_whose_process_is_gone_holds_nothing(engine):
    gone, run = engine.holder(), engine.holder()
    (engine.state / "run" / "leases").mkdir()
    for pid in (gone, run):
        (engine.state / "run" / "leases" / str(pid)).write_text(stat_start(pid))
    kill(gone)
    assert wait_gone(gone)
    assert engine.run("stop", "--lease", str(run)).returncode == 0
    assert wait_gone(engine.daemon)
    assert not (engine.state / "run" / "leases").exists()
