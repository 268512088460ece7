"""Sandboxes join their slot's empty network namespace (issue 22): nothing reachable, no channel between cases."""

from __future__ import annotations

import os
import socket
import threading
import time
from functools import partial
from pathlib import Path

import pytest

from verifierbench.executor import Executor, Job, Limits, netns
from verifierbench.core.protocol import Decision
from verifierbench.public_env.service import PublicService
from tests.conftest import root_only, write_verifier

pytestmark = pytest.mark.sandbox

needs_root = root_only("per-slot namespaces are made by a root harness only")

# A probe's first lines: `attempt` says whether a stream connection to an address got through, or the error's name.
ATTEMPT = """
    import json, os, socket, sys
    def attempt(family, address):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect(address)
            return "connected"
        except OSError as exc:
            return type(exc).__name__
"""

# Reports, as the result's reason, the sandbox's network namespace and what it could reach.
PROBE = ATTEMPT + """
    report = {"netns": os.readlink("/proc/self/ns/net"), "loopback": attempt(socket.AF_INET, ("127.0.0.1", PORT)),
              "external": attempt(socket.AF_INET, ("192.0.2.1", 80)),  # TEST-NET-1: routed nowhere
              "abstract": attempt(socket.AF_UNIX, "\\0vgb-cross-case")}
    import fcntl, struct
    try:  # SIOCSIFFLAGS: bring lo up
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            fcntl.ioctl(s.fileno(), 0x8914, struct.pack("16sH14x", b"lo", 1))
        report["lo_up"] = "done"
    except OSError as exc:
        report["lo_up"] = type(exc).__name__
    json.dump({"decision": "PASS", "reason": json.dumps(report)}, open(sys.argv[2], "w"))
"""

# Leaves a listener behind for the next case: a forked child holding an abstract socket and a TCP
# port on the namespace's loopback, then PASS while the child lives on. The positive control: this case itself
# connects to the child's abstract socket (the reason), so a refused connection later means isolation, not "not up".
LISTENER = ATTEMPT + """
    ready_r, ready_w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        unix = socket.socket(socket.AF_UNIX); unix.bind("\\0vgb-cross-case"); unix.listen()
        tcp = socket.socket()
        try:
            tcp.bind(("127.0.0.1", PORT)); tcp.listen()
        except OSError:
            pass
        os.write(ready_w, b"x")
        import time
        time.sleep(SLEEP)
        os._exit(0)
    os.read(ready_r, 1)
    json.dump({"decision": "PASS", "reason": json.dumps({"abstract_self": attempt(socket.AF_UNIX, "\\0vgb-cross-case")})},
              open(sys.argv[2], "w"))
"""

# Listens (abstract socket; TCP on its loopback where it has one), checks it reaches its own listeners (the positive
# control), then says so over run_public and blocks on the reply, which the host sends once its probe is done: the
# probe runs while this listens, with no sleep standing in for "up by now".
HOLDING_LISTENER = ATTEMPT + """
    unix = socket.socket(socket.AF_UNIX); unix.bind("\\0vgb-cross-case"); unix.listen()
    tcp = socket.socket()
    try:
        tcp.bind(("127.0.0.1", PORT)); tcp.listen(); tcp_self = attempt(socket.AF_INET, ("127.0.0.1", PORT))
    except OSError as exc:
        tcp_self = type(exc).__name__  # the slot's namespace: loopback down
    control = {"abstract_self": attempt(socket.AF_UNIX, "\\0vgb-cross-case"), "tcp_self": tcp_self}
    with socket.socket(socket.AF_UNIX) as signal:
        signal.connect(os.environ["VGB_PUBLIC_SOCKET"])
        signal.sendall(b'{"op": "run_public", "calls": []}\\n')
        signal.makefile().readline()
    json.dump({"decision": "PASS", "reason": json.dumps(control)}, open(sys.argv[2], "w"))
"""


class Readiness:
    """The run_public environment of a HOLDING_LISTENER, built in a run_public worker: its request says the listener is up
    (the file `ready` in `directory`); the reply waits for the file `release`, which the host writes after its probe."""

    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)

    def run_request(self, request):
        (self.directory / "ready").touch()
        deadline = time.monotonic() + 300
        while not (self.directory / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return {"ok": True}

    def reset_reply(self):
        return {}


def while_listening(executor: Executor, tmp_path, port: int, probe_run, loopback: bool = False):
    """Runs a HOLDING_LISTENER, then `probe_run()` once it listens; returns (the listener's outcome and control,
    the probe's result)."""
    import json

    signals = tmp_path / "readiness"
    signals.mkdir()
    verifier = write_verifier(tmp_path / "holding", HOLDING_LISTENER.replace("PORT", str(port)))
    outcome: list = []
    with PublicService(partial(Readiness, str(signals)), budget=5) as service:
        job = Job(verifier, {}, key="listener", loopback=loopback, public_socket_dir=str(service.directory))
        thread = threading.Thread(target=lambda: outcome.append(executor.run(job)))
        thread.start()
        try:
            deadline = time.monotonic() + 240
            while not (signals / "ready").exists():
                assert time.monotonic() < deadline, "the listener never said it listens"
                time.sleep(0.01)
            result = probe_run()
        finally:
            (signals / "release").touch()
            thread.join()
    assert outcome[0].decision is Decision.P, outcome
    return json.loads(outcome[0].reason), result


def probe(executor: Executor, tmp_path, port: int, key: str = "probe") -> dict:
    import json

    verifier = write_verifier(tmp_path / f"probe-{key}", PROBE.replace("PORT", str(port)))
    outcome = executor.run(Job(verifier, {}, key=key))
    assert outcome.decision is Decision.P, outcome
    return json.loads(outcome.reason)


def listener(tmp_path, port: int, sleep: float):
    source = LISTENER.replace("PORT", str(port)).replace("SLEEP", str(sleep))
    return write_verifier(tmp_path / "listener", source)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_root
def test_a_new_namespace_has_its_loopback_down_and_entering_it_returns_home():
    home = os.readlink("/proc/thread-self/ns/net")
    fd = netns.create()
    try:
        assert os.readlink("/proc/thread-self/ns/net") == home  # create() left this thread alone
        with netns.entered(fd):
            assert os.readlink("/proc/thread-self/ns/net") == f"net:[{os.fstat(fd).st_ino}]"
            assert not netns.loopback_is_up()
        assert os.readlink("/proc/thread-self/ns/net") == home
    finally:
        os.close(fd)


@needs_root
def test_runs_of_a_slot_share_its_namespace_and_reach_nothing(sandbox, tmp_path):
    port = free_port()
    server = socket.socket()
    server.bind(("127.0.0.1", port))
    server.listen()
    with server:
        reports = [probe(sandbox, tmp_path, port, key=str(i)) for i in range(3)]
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing from a sandbox arrived
        with socket.create_connection(("127.0.0.1", port), timeout=5):  # the control: the server was listening
            server.setblocking(True)
            server.settimeout(5)
            server.accept()[0].close()
    host = os.readlink("/proc/self/ns/net")
    namespaces = {report["netns"] for report in reports}
    assert host not in namespaces
    # Sequential runs on 2 slots: at most one namespace per slot, none made per run.
    assert len(namespaces) <= sandbox.slots
    assert namespaces <= {f"net:[{os.fstat(fd).st_ino}]" for fd in sandbox._networks.values()}
    for report in reports:
        assert (report["loopback"], report["external"], report["abstract"]) == ("OSError", "OSError", "ConnectionRefusedError"), report
        assert report["lo_up"] == "PermissionError", report


def test_a_listener_left_by_one_case_is_gone_for_the_next_in_its_slot(bwrap_available, tmp_path):
    import json

    port = free_port()
    with Executor(Limits(timeout_s=60), isolation="bwrap", slots=1) as executor:
        first = executor.run(Job(listener(tmp_path, port, sleep=60), {}, key="listener"))
        assert first.decision is Decision.P, first
        assert json.loads(first.reason)["abstract_self"] == "connected", first.reason  # it was listening
        report = probe(executor, tmp_path, port)
    assert report["abstract"] == "ConnectionRefusedError" and report["loopback"] == "OSError", report


def test_cases_running_at_once_on_two_slots_cannot_reach_each_other(bwrap_available, tmp_path):
    port = free_port()
    with Executor(Limits(timeout_s=120), isolation="bwrap", slots=2) as executor:
        control, report = while_listening(executor, tmp_path, port, lambda: probe(executor, tmp_path, port))
    assert control["abstract_self"] == "connected", control
    assert report["abstract"] == "ConnectionRefusedError" and report["loopback"] == "OSError", report


# A code task's run (Job.loopback): its own loopback works and localhost resolves, nothing else is reachable.
LOOPBACK_PROBE = ATTEMPT + """
    own = socket.socket(); own.bind(("localhost", 0)); own.listen()
    report = {"netns": os.readlink("/proc/self/ns/net"), "localhost": socket.gethostbyname("localhost"),
              "own_server": attempt(socket.AF_INET, own.getsockname()),
              "host_port": attempt(socket.AF_INET, ("127.0.0.1", PORT)),
              "external": attempt(socket.AF_INET, ("192.0.2.1", 80)),
              "abstract": attempt(socket.AF_UNIX, "\\0vgb-cross-case")}
    json.dump({"decision": "PASS", "reason": json.dumps(report)}, open(sys.argv[2], "w"))
"""


def test_a_loopback_run_has_a_namespace_of_its_own_with_localhost_and_nothing_else(bwrap_available, tmp_path):
    import json

    port = free_port()
    server = socket.socket()
    server.bind(("127.0.0.1", port))
    server.listen()
    verifier = write_verifier(tmp_path / "loopback", LOOPBACK_PROBE.replace("PORT", str(port)))
    with server, Executor(Limits(timeout_s=10), isolation="bwrap", slots=1) as executor:
        slot_case = probe(executor, tmp_path, port)
        outcomes = [executor.run(Job(verifier, {}, key=str(i), loopback=True)) for i in range(2)]
        reports = [json.loads(o.reason) for o in outcomes]
        batch = list(executor.run_batch([Job(verifier, {}, key="batch", loopback=True)]))
    for report in reports:
        assert (report["localhost"], report["own_server"]) == ("127.0.0.1", "connected"), report
        assert report["host_port"] == "ConnectionRefusedError" and report["external"] == "OSError", report
        assert report["abstract"] == "ConnectionRefusedError", report
    # Never the host's nor the slot's. Not "two distinct": one run's namespace is gone before the next is made, and
    # the kernel may give the next the freed inode number (CI saw it); runs at once are apart (the test below).
    namespaces = {r["netns"] for r in reports}
    assert os.readlink("/proc/self/ns/net") not in namespaces and slot_case["netns"] not in namespaces
    assert batch[0].decision is Decision.P and batch[0].path == "cold"  # never a warm sandbox shared by cases


def test_loopback_runs_at_once_cannot_reach_each_other(bwrap_available, tmp_path):
    import json

    port = free_port()
    probe_verifier = write_verifier(tmp_path / "lp", LOOPBACK_PROBE.replace("PORT", str(port)))
    with Executor(Limits(timeout_s=120), isolation="bwrap", slots=2) as executor:
        control, outcome = while_listening(executor, tmp_path, port, lambda: executor.run(Job(probe_verifier, {}, key="probe", loopback=True)),
                                           loopback=True)
    # the controls: the listener reached its own abstract and TCP listeners, and the probe its own server
    assert control == {"abstract_self": "connected", "tcp_self": "connected"}, control
    report = json.loads(outcome.reason)
    assert report["own_server"] == "connected", report
    assert report["host_port"] == "ConnectionRefusedError" and report["abstract"] == "ConnectionRefusedError", report


@needs_root
def test_a_socket_left_in_a_slots_namespace_is_seen_and_the_namespace_replaced(bwrap_available):
    """The slot's socket table (netns.unix_socket_table) lists a unix socket made inside its namespace (here by this
    thread, held open: what an in-flight socket looks like after its case), and the slot's next run gets a fresh one."""
    with Executor(Limits(timeout_s=30), isolation="bwrap", slots=1) as executor:
        first = executor.slot_network(0)
        assert not executor.slot_left_a_socket(0)
        assert executor.slot_network(0) == first  # nothing left: the same namespace
        with netns.entered(first):
            left = socket.socket(socket.AF_UNIX)
            left.bind("\0vgb-left-behind")
        try:
            assert executor.slot_left_a_socket(0)
            inode = os.fstat(first).st_ino
            replaced = executor.slot_network(0)
            assert os.fstat(replaced).st_ino != inode and not executor.slot_left_a_socket(0)
        finally:
            left.close()


# Case 0 binds an abstract name and keeps the socket alive only by its own descriptor in flight (sent over a pair
# of sockets that are themselves only in flight, then every descriptor closed): no process holds it, and it stays
# bound until the kernel's unix garbage collector runs. Later cases report whether the name answers.
INFLIGHT = r"""
import json, socket, sys
case = json.load(open(sys.argv[1]))["case"]
name = "\0vgb-in-flight"
if case == 0:
    bound = socket.socket(socket.AF_UNIX); bound.bind(name); bound.listen()
    a, b = socket.socketpair()
    socket.send_fds(a, [b"x"], [bound.fileno(), a.fileno()])
    socket.send_fds(b, [b"x"], [b.fileno()])
    import os
    for s in (bound, a, b):
        os.close(s.detach())
    seen = "planted"
else:
    probe = socket.socket(socket.AF_UNIX)
    try:
        probe.connect(name); seen = "connected"
    except OSError as exc:
        seen = type(exc).__name__
json.dump({"decision": "PASS", "reason": seen}, open(sys.argv[2], "w"))
"""


@needs_root
@pytest.mark.parametrize("path", ["cold", "warm"])
def test_a_socket_kept_alive_in_flight_is_not_reachable_from_the_next_case(bwrap_available, tmp_path, path):
    verifier = write_verifier(tmp_path / "v", INFLIGHT)
    jobs = [Job(verifier, {"case": i}, key=str(i)) for i in range(3)]
    with Executor(Limits(timeout_s=30), isolation="bwrap", slots=1) as executor:
        if path == "cold":
            outcomes = [executor.run(job) for job in jobs]
        else:
            by_key = {o.key: o for o in executor.run_warm(jobs)}
            outcomes = [by_key[str(i)] for i in range(3)]
            assert {o.path for o in outcomes} == {"warm"}, outcomes
    assert [o.reason for o in outcomes] == ["planted", "ConnectionRefusedError", "ConnectionRefusedError"], outcomes
