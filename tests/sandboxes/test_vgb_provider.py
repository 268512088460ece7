"""The `vgb` generation sandbox: isolation, file access, limits, and nothing hidden visible in it."""

from __future__ import annotations

import asyncio
import socket

import pytest

from verifierbench.executor.isolation import IsolationLevel
from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment
from tests.conftest import skip_unless_required
from tests.harness.leak_search import assert_nothing_hidden_is_readable

pytestmark = pytest.mark.usefixtures("bwrap_available")


@pytest.fixture()
def box():
    env = VgbSandboxEnvironment(IsolationLevel.bwrap, task_type="tool-call")
    yield env
    env.remove()


def run(coro):
    return asyncio.run(coro)


def sh(box, command, **kwargs):
    return run(box.exec(["bash", "-c", command], **kwargs))


def test_workspace_persists_and_tmp_does_not(box):
    assert sh(box, "echo hi > /workspace/a.txt && echo tmp > /tmp/b.txt && pwd").stdout.strip() == "/workspace"
    assert sh(box, "cat a.txt; test -e /tmp/b.txt && echo leaked || echo gone").stdout.split() == ["hi", "gone"]
    assert run(box.read_file("/workspace/a.txt")) == "hi\n"
    run(box.write_file("verifier/verify.py", "print(1)\n"))
    assert sh(box, "python3 /workspace/verifier/verify.py").stdout == "1\n"
    assert sh(box, "cat", input="piped").stdout == "piped"


def test_no_network_not_even_to_the_host(box):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        code = f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    print('connected')\nexcept OSError as e:\n    print('blocked')"
        assert run(box.exec(["python3", "-c", code])).stdout.strip() == "blocked"
    finally:
        server.close()


def test_a_command_has_a_loopback_of_its_own_and_localhost(box):
    """A code task's tests may start a local server (django's LiveServerTestCase); the command's own network namespace
    (bubblewrap's) has its loopback up, and /etc/hosts names localhost and nothing else."""
    code = ("import socket\ns = socket.socket(); s.bind(('localhost', 0)); s.listen()\n"
            "socket.create_connection(s.getsockname(), timeout=2); print(socket.gethostbyname('localhost'))")
    assert run(box.exec(["python3", "-c", code])).stdout.strip() == "127.0.0.1"
    assert sh(box, "grep -v localhost /etc/hosts | wc -l").stdout.strip() == "0"


def test_host_files_are_invisible_and_the_system_is_read_only(box):
    assert sh(box, "ls /root /work /home 2>&1; echo x > /usr/x 2>&1 || echo denied").stdout.count("No such file") == 3
    assert "denied" in sh(box, "echo x > /usr/x 2>/dev/null || echo denied").stdout
    assert sh(box, "id -u").stdout.strip() != "0"
    assert sh(box, "python3 -c 'import vgb_env; print(vgb_env.__name__)'").stdout.strip() == "vgb_env"
    for package in ("verifierbench", "bfcl_eval", "inspect_ai"):
        assert not run(box.exec(["python3", "-c", f"import {package}"])).success, package


def test_links_out_of_the_workspace_are_not_followed(box):
    sh(box, "ln -s /etc/passwd /workspace/passwd; mkdir -p /workspace/d; ln -s / /workspace/d/root")
    with pytest.raises(PermissionError):
        run(box.read_file("passwd"))
    with pytest.raises(PermissionError):
        run(box.read_file("d/root/etc/hostname"))
    with pytest.raises((PermissionError, OSError)):
        run(box.write_file("passwd", "owned"))
    with pytest.raises(PermissionError):
        run(box.read_file("/etc/hostname"))


def test_timeout_raises_and_kills_the_command(box):
    with pytest.raises(TimeoutError):
        sh(box, "sleep 30", timeout=1)
    assert sh(box, "ps -e -o comm= | grep -c sleep || true").stdout.strip() == "0"


def test_an_agent_searching_the_filesystem_finds_no_hidden_case_or_reference(box, bfcl_suite):
    """Everything the generation sandbox can read holds no case id, case hash, hidden candidate,
    label, answer key or reference-verifier code."""
    assert_nothing_hidden_is_readable(box, bfcl_suite, sh)


def test_the_workspace_is_size_capped_when_running_as_root(monkeypatch):
    import os

    from verifierbench.sandboxes import vgb_provider as module

    if os.geteuid() != 0:
        skip_unless_required("root", "the workspace cap needs root (a tmpfs mount); unprivileged harnesses cap each file only")
    monkeypatch.setattr(module, "WORKSPACE_MB", 2)
    env = VgbSandboxEnvironment(IsolationLevel.bwrap, task_type="tool-call")
    try:
        assert env.capped
        result = sh(env, "dd if=/dev/zero of=/workspace/big bs=1M count=8 2>&1; rm /workspace/big; echo done")
        assert "No space left on device" in result.stdout
        run(env.write_file("verifier/verify.py", "ok"))  # room again once the agent cleans up
        assert run(env.read_file("verifier/verify.py")) == "ok"
    finally:
        env.remove()
    assert not env.root.exists()


def _killed_harness_workspace() -> str:
    """The capped workspace of a harness process that exited without its sample cleanup (as after a SIGKILL)."""
    import os
    import subprocess
    import sys

    if os.geteuid() != 0:
        skip_unless_required("root", "capped workspaces (and so stale mounts) exist only when running as root")
    code = ("import os; from verifierbench.executor.isolation import IsolationLevel; "
            "from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment as V; "
            "e = V(IsolationLevel.bwrap); print(e.root, flush=True); os._exit(0)")  # exits without cleanup, like a SIGKILL
    root = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert any(root in line for line in open("/proc/self/mounts"))
    return root


def _gone(root: str) -> bool:
    import os

    return not any(root in line for line in open("/proc/self/mounts")) and not os.path.exists(root)


def test_workspaces_left_by_a_killed_harness_are_swept(tmp_path):
    from verifierbench.sandboxes.vgb_provider import sweep_stale_workspaces

    root = _killed_harness_workspace()
    assert root in sweep_stale_workspaces()
    assert _gone(root)


def test_the_probe_and_the_sweep_run_once_per_task_not_per_sample(monkeypatch):
    from verifierbench.sandboxes import vgb_provider as sandbox

    root = _killed_harness_workspace()
    sweeps = []
    real_sweep = sandbox.sweep_stale_workspaces
    monkeypatch.setattr(sandbox, "sweep_stale_workspaces", lambda: sweeps.append(1) or real_sweep())
    environments = [run(VgbSandboxEnvironment.sample_init("t", None, {"task_type": "tool-call"})) for _ in range(2)]
    for made in environments:
        run(VgbSandboxEnvironment.sample_cleanup("t", None, made, False))
    assert sweeps == [] and not _gone(root)  # samples neither sweep nor probe again
    run(VgbSandboxEnvironment.task_init("t", None))
    assert sweeps == [1] and _gone(root)


def test_inspect_sandbox_cleanup_removes_stale_workspaces_only():
    from tests.harness.inspect_cli import inspect

    live = VgbSandboxEnvironment(IsolationLevel.bwrap)  # this process is alive: its workspace stays
    try:
        root = _killed_harness_workspace()
        result = inspect("sandbox", "cleanup", "vgb", timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
        # Gone, whoever swept it: the sweep is machine-wide, so another run on the machine (a second CI run) may have
        # removed it first; then this cleanup's list simply does not name it.
        assert _gone(root) and "stale workspace(s)" in result.stdout
        assert live.root.exists()
    finally:
        live.remove()


# -- issue 18: an agent attacking the host through the file tools and /dev ----------------------

def test_write_file_through_a_planted_link_neither_creates_nor_chowns_host_directories(box, tmp_path):
    import os

    host = tmp_path / "host"
    (host / "existing").mkdir(parents=True)
    before = os.stat(host / "existing")
    sh(box, f"ln -s {host} /workspace/hl")
    for path in ("hl/existing/f.txt", "hl/new/deeper/f.txt", "/workspace/hl/f.txt"):
        with pytest.raises(PermissionError):
            run(box.write_file(path, "x"))
    after = os.stat(host / "existing")
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert sorted(p.name for p in host.iterdir()) == ["existing"] and not any((host / "existing").iterdir())
    # A legitimate nested write still creates the directories, owned by the sandbox's user.
    run(box.write_file("a/b/c.txt", "ok"))
    assert run(box.read_file("a/b/c.txt")) == "ok"
    owners = sh(box, "stat -c %u /workspace/a /workspace/a/b /workspace/a/b/c.txt; id -u").stdout.split()
    assert len(owners) == 4 and len(set(owners)) == 1, owners


@pytest.mark.timeout(20)
@pytest.mark.parametrize("operation", ["read", "write"])
def test_a_fifo_in_the_workspace_is_refused_without_blocking(box, operation):
    sh(box, "mkfifo /workspace/p && mkdir -p /workspace/public && mkfifo /workspace/public/last_state.json")
    with pytest.raises(PermissionError, match="not a regular file"):
        if operation == "read":
            run(box.read_file("p"))
        else:
            run(box.write_file("public/last_state.json", "{}"))
    assert sh(box, "test -p /workspace/p && test -p /workspace/public/last_state.json && echo fifos").stdout.strip() == "fifos"


@pytest.mark.timeout(30)
def test_verifier_file_collection_survives_newlines_in_names_and_fifos(box):
    from verifierbench.harness import freeze

    sh(box, "mkdir -p /workspace/verifier && cd /workspace/verifier && echo 'print(1)' > verify.py "
            "&& mkfifo pipe && printf data > \"$(printf 'a\\n0 pipe')\"")
    files, skipped = run(freeze.collect(box))
    assert files == {"verify.py": {"text": "print(1)\n"}, "a\n0 pipe": {"text": "data"}}, (files, skipped)


def test_dev_is_read_only_and_dev_shm_is_capped(box):
    result = sh(box, "echo x > /dev/vgb-x 2>/dev/null && echo dev-writable; "
                     "for i in $(seq 1 32); do head -c 8388608 /dev/zero > /dev/shm/f$i 2>/dev/null || break; done; "
                     "du -sm /dev/shm | cut -f1; echo ok > /dev/null && echo null-ok")
    lines = result.stdout.split()
    assert "dev-writable" not in lines and lines[-1] == "null-ok", result.stdout
    assert int(lines[-2]) <= 64, f"{lines[-2]} MiB written to /dev/shm"


def test_memfd_and_sysv_ipc_are_refused_in_the_generation_sandbox(box):
    from tests.executor.test_hostile_verifiers import MEMORY_OUTSIDE_RLIMIT_AS

    result = run(box.exec(["python3", "-c", MEMORY_OUTSIDE_RLIMIT_AS + "print(' '.join(held) or 'none')"]))
    assert result.stdout.strip() == "none", result
    assert sh(box, "python3 -c 'import multiprocessing; multiprocessing.Lock(); print(1)'").stdout.strip() == "1"
