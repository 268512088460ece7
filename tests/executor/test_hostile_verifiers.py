"""Hostile verifiers through the executor (issue 2): each must end as U or be contained."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

from verifierbench.executor import Job
from verifierbench.executor.isolation import running_as_root, slot_uid
from verifierbench.core.protocol import Decision
from tests.conftest import skip_unless_required, write_verifier

pytestmark = pytest.mark.sandbox

WRITE_PASS = 'import json, sys; json.dump({"decision": "PASS"}, open(sys.argv[2], "w"))\n'
# Result files no JSON reader survives (issue 18): nesting too deep, an integer too long, bytes that are not UTF-8.
DEEP = 'open(sys.argv[2], "w").write("[" * 200000 + "]" * 200000)'
HUGE_INT = 'open(sys.argv[2], "w").write(\'{"decision": "PASS", "n": \' + "9" * 5000 + "}")'
NOT_UTF8 = 'open(sys.argv[2], "wb").write(b\'{"decision": "PASS", "reason": "\\xff\\xfe"}\')'


def leftover_processes(marker: str, executor=None) -> list[int]:
    """Processes left by a run: as root, any of the sandbox uids (a run's processes never leave them; other
    harnesses' verify.py processes on the machine carry the same marker); otherwise any carrying the marker."""
    slot_uids = executor.slot_uid if executor is not None else slot_uid
    uids = {slot_uids(0), slot_uids(1)} if running_as_root() else set()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            owner = os.stat(f"/proc/{entry}").st_uid
            cmdline = open(f"/proc/{entry}/cmdline", "rb").read()
        except OSError:
            continue
        if owner in uids or (not uids and marker.encode() in cmdline):
            pids.append(int(entry))
    return pids


def run(sandbox, tmp_path: Path, source: str, candidate=None):
    verifier = write_verifier(tmp_path / "v", source)
    return sandbox.run(Job(verifier, candidate if candidate is not None else {"x": 1}, key="case"))


def test_well_behaved_verifier_gives_a_valid_decision(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, """
        import json, os, sys
        cand = json.load(open(os.environ["VGB_CANDIDATE"]))
        json.dump({"decision": "PASS" if cand["x"] == 1 else "FAIL", "confidence": 0.7, "reason": "x is 1"},
                  open(os.environ["VGB_RESULT"], "w"))
    """)
    assert (outcome.decision, outcome.confidence, outcome.reason, outcome.isolation) == (Decision.P, 0.7, "x is 1", "bwrap")
    assert run(sandbox, tmp_path, WRITE_PASS.replace("PASS", "FAIL")).decision is Decision.F


def test_infinite_loop_is_U_within_the_limit_and_leaves_no_process(sandbox, tmp_path):
    started = time.monotonic()
    outcome = run(sandbox, tmp_path, """
        import os, subprocess
        subprocess.Popen(["sleep", "1000.123"])  # a child that would outlive a careless kill
        while True:
            pass
    """)
    elapsed = time.monotonic() - started
    assert outcome.decision is Decision.U and outcome.timed_out
    # A safety bound only (a kill that never came would hang far past it): `timed_out` is the check, and how close to
    # the limit the kill lands under load is measured in benchmarks/executor_overhead.py, not asserted here.
    assert elapsed <= sandbox.limits.timeout_s + 60
    assert leftover_processes("1000.123", sandbox) == [] and leftover_processes("/verifier/verify.py", sandbox) == []


def test_a_jobs_own_timeout_replaces_the_executors_both_ways(sandbox, tmp_path):
    """Code tasks' runs get their own limit (public_env.jobs): longer than the executor's, and still enforced."""
    verifier = write_verifier(tmp_path / "v", "import json, sys, time\ntime.sleep(4)\n" + WRITE_PASS)
    assert sandbox.run(Job(verifier, {}, key="k")).problem == "timed out after 3 s"
    assert sandbox.run(Job(verifier, {}, key="k", timeout_s=8)).decision is Decision.P
    short = sandbox.run(Job(verifier, {}, key="k", timeout_s=1))
    assert short.timed_out and short.problem == "timed out after 1 s"


def test_fork_bomb_is_contained(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, """
        import os
        children = 0
        while True:
            try:
                if os.fork() == 0:
                    while True:
                        pass
                children += 1
            except OSError:
                break
        open("/tmp/count", "w").write(str(children))
        raise SystemExit(3)
    """)
    assert outcome.decision is Decision.U
    assert outcome.exit_status == 3, outcome  # fork failed at the process limit instead of taking the machine
    assert leftover_processes("/verifier/verify.py", sandbox) == []


def test_allocating_4_gib_gives_U(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, "block = bytearray(4 * 1024**3)\n" + WRITE_PASS)
    assert outcome.decision is Decision.U
    assert "MemoryError" in outcome.stderr_tail


def test_loopback_port_outside_the_sandbox_is_unreachable(sandbox, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    with server:
        # Sanity: the port accepts connections from the host.
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        server.accept()[0].close()
        outcome = run(sandbox, tmp_path, f"""
            import json, socket, sys
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2)
                decision = "PASS"
            except OSError as exc:
                decision = "FAIL"
            json.dump({{"decision": decision}}, open(sys.argv[2], "w"))
        """)
        assert outcome.decision is Decision.F, outcome.stderr_tail
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing from the sandbox arrived


@pytest.mark.parametrize("target", ["/etc/vgb-escape", "/usr/vgb-escape", "/vgb-escape", "/verifier/vgb-escape", "/input/candidate.json"])
def test_writing_outside_scratch_fails(sandbox, tmp_path, target):
    outcome = run(sandbox, tmp_path, f"""
        import json, sys
        try:
            open({target!r}, "w").write("x")
            decision = "PASS"
        except OSError:
            decision = "FAIL"
        open("/tmp/scratch-works", "w").write("scratch is writable")
        json.dump({{"decision": decision}}, open(sys.argv[2], "w"))
    """)
    assert outcome.decision is Decision.F, outcome.stderr_tail
    assert not Path(target).exists() or target == "/input/candidate.json"


# The harness's own environment as `/proc/harness/environ`, made this process's at run time: the ids must be the same
# in every xdist worker's collection.
@pytest.mark.parametrize("target", ["/etc/shadow", "/etc/passwd", "/root", "/home", "/run", "/var", "/proc/harness/environ"])
def test_reading_outside_allowed_inputs_fails(sandbox, tmp_path, target):
    target = target.replace("/proc/harness/", f"/proc/{os.getpid()}/")
    outcome = run(sandbox, tmp_path, f"""
        import json, os, sys
        try:
            if os.path.isdir({target!r}):
                os.listdir({target!r})
            else:
                open({target!r}).read()
            decision = "PASS"
        except OSError:
            decision = "FAIL"
        json.dump({{"decision": decision}}, open(sys.argv[2], "w"))
    """)
    assert outcome.decision is Decision.F, f"{target} was readable"


def test_host_secret_under_tmp_is_invisible(sandbox, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden labels")
    os.chmod(tmp_path, 0o755)
    os.chmod(secret, 0o644)
    outcome = run(sandbox, tmp_path, f"""
        import json, sys
        try:
            open({str(secret)!r}).read()
            decision = "PASS"
        except OSError:
            decision = "FAIL"
        json.dump({{"decision": decision}}, open(sys.argv[2], "w"))
    """)
    assert outcome.decision is Decision.F


def test_decision_on_stdout_without_result_file_is_U(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, 'print(\'{"decision": "PASS"}\')\n')
    assert outcome.decision is Decision.U
    assert outcome.problem == "verifier exited 0 without writing a result file"


def test_a_crash_keeps_its_traceback_and_says_no_result_was_written(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, "def broken():\nreturn 1\n")
    assert outcome.decision is Decision.U and outcome.exit_status == 1
    assert outcome.problem == "verifier exited with status 1 (no result file written)"
    assert "IndentationError" in outcome.stderr_tail


def test_huge_output_does_not_exhaust_memory(sandbox, tmp_path):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome = run(sandbox, tmp_path, """
        import sys
        chunk = "x" * (1 << 20)
        while True:
            sys.stdout.write(chunk)
            sys.stderr.write(chunk)
    """)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert outcome.decision is Decision.U
    assert len(outcome.stderr_tail) <= sandbox.limits.stderr_tail_bytes
    assert (after - before) * 1024 < 64 << 20  # the harness did not buffer the stream


@pytest.mark.parametrize("body,problem", [
    ('open(sys.argv[2], "w").write("PASS")', "not JSON"),
    ('json.dump({"decision": "pass"}, open(sys.argv[2], "w"))', "decision must be"),
    ('json.dump(["PASS"], open(sys.argv[2], "w"))', "not a JSON object"),
    ('json.dump({"decision": "PASS"}, open(sys.argv[2], "w")); raise SystemExit(1)', "exited with status 1"),
    (DEEP, "nested too deeply"),
    (HUGE_INT, "not JSON"),
    (NOT_UTF8, "not JSON"),
])
def test_malformed_results_and_crashes_are_U(sandbox, tmp_path, body, problem):
    outcome = run(sandbox, tmp_path, "import json, sys\n" + body + "\n")
    assert outcome.decision is Decision.U
    assert problem in outcome.problem


def test_caught_internal_error_returning_FAIL_is_F(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, """
        import json, sys
        try:
            1 / 0
        except ZeroDivisionError as exc:
            json.dump({"decision": "FAIL", "reason": f"internal error: {exc}", "confidence": "high"}, open(sys.argv[2], "w"))
    """)
    assert outcome.decision is Decision.F and outcome.confidence is None


def test_missing_verifier_is_U(sandbox, tmp_path):
    outcome = sandbox.run(Job(tmp_path / "absent", {}, key="k"))
    assert outcome.decision is Decision.U and "missing verifier" in outcome.problem


def test_frozen_verifier_ignores_later_edits(sandbox, tmp_path):
    verifier = write_verifier(tmp_path / "v", WRITE_PASS)
    frozen = sandbox.freeze(verifier)
    verifier.write_text(WRITE_PASS.replace("PASS", "FAIL"))
    assert sandbox.run(Job(frozen, {}, key="k")).decision is Decision.P
    # The edited path is a different verifier: it is frozen anew, with another hash.
    assert sandbox.run(Job(verifier, {}, key="k")).decision is Decision.F
    assert sandbox.freeze(verifier).sha256 != frozen.sha256


def test_parallel_runs_keep_their_results_apart(sandbox, tmp_path):
    verifier = write_verifier(tmp_path / "v", """
        import json, sys
        cand = json.load(open(sys.argv[1]))
        json.dump({"decision": "PASS" if cand["n"] % 3 == 0 else "FAIL"}, open(sys.argv[2], "w"))
    """)
    outcomes = list(sandbox.run_many(Job(verifier, {"n": n}, key=str(n)) for n in range(30)))
    assert {o.key: o.decision for o in outcomes} == {str(n): Decision.P if n % 3 == 0 else Decision.F for n in range(30)}


def test_result_planted_as_symlink_to_a_host_file_is_U(sandbox, tmp_path):
    # Inside the sandbox /etc/passwd does not exist, but the link is followed by whoever opens it:
    # the harness must not open it as root on the host.
    outcome = run(sandbox, tmp_path, """
        import os, sys
        os.symlink("/etc/passwd", sys.argv[2])
    """)
    assert outcome.decision is Decision.U and "not JSON" not in (outcome.problem or "")


def test_nothing_carries_over_between_runs_of_a_slot(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, """
        import glob, json, os, sys
        leftovers = glob.glob("/output/*") + glob.glob("/tmp/*")
        for i in range(3):
            open(f"/output/junk{i}", "w").write("x")
            open(f"/tmp/junk{i}", "w").write("x")
        json.dump({"decision": "FAIL" if [p for p in leftovers if p != sys.argv[2]] else "PASS"}, open(sys.argv[2], "w"))
    """)
    assert outcome.decision is Decision.P
    for _ in range(sandbox.slots * 2):
        again = sandbox.run(Job(tmp_path / "v" / "verify.py", {}, key="again"))
        assert again.decision is Decision.P


def test_symlink_in_a_verifier_directory_does_not_expose_host_files(sandbox, tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("reference labels")
    os.chmod(secret, 0o600)
    verifier = write_verifier(tmp_path / "v", """
        import json, sys
        try:
            open("/verifier/leak.txt").read()
            decision = "PASS"
        except OSError:
            decision = "FAIL"
        json.dump({"decision": decision}, open(sys.argv[2], "w"))
    """)
    (verifier.parent / "leak.txt").symlink_to(secret)
    outcome = sandbox.run(Job(verifier.parent, {}, key="k"))
    assert outcome.decision is Decision.F
    assert secret.stat().st_mode & 0o777 == 0o600  # staging did not chmod through the link


# -- issue 18: host memory, host disk and host files ---------------------------------------------

def test_dev_is_read_only_and_dev_shm_is_capped(sandbox, tmp_path):
    outcome = run(sandbox, tmp_path, """
        import json, sys
        written = 0
        try:
            for i in range(32):
                with open(f"/dev/shm/f{i}", "wb") as f:
                    f.write(b"x" * (8 << 20))
                written += 8
        except OSError:
            pass
        try:
            open("/dev/vgb-x", "w").write("x")
            dev = "writable"
        except OSError:
            dev = "read-only"
        open("/dev/null", "w").write("still usable")
        json.dump({"decision": "PASS", "reason": f"{written} {dev}"}, open(sys.argv[2], "w"))
    """)
    written, dev = outcome.reason.split()
    assert dev == "read-only" and int(written) <= 32, outcome.reason


def test_output_directory_is_a_small_capped_filesystem(sandbox, tmp_path):
    if not running_as_root():
        skip_unless_required("root", "a capped /output needs root (a tmpfs mount); unprivileged harnesses cap each file only")
    outcome = run(sandbox, tmp_path, """
        import json, os, sys
        written = files = 0
        try:
            for i in range(64):
                with open(f"/output/big{i}", "wb") as f:
                    f.write(b"x" * (4 << 20))
                written += 4
        except OSError:
            pass
        for i in range(64):
            try:
                os.unlink(f"/output/big{i}")
            except OSError:
                pass
        try:
            for i in range(20000):
                open(f"/output/n{i}", "w").close()
                files += 1
        except OSError:
            pass
        for i in range(files):
            os.unlink(f"/output/n{i}")
        json.dump({"decision": "PASS", "reason": f"{written} {files}"}, open(sys.argv[2], "w"))
    """)
    written, files = map(int, outcome.reason.split())
    # The cap holds (Limits: 16 MiB and 256 inodes) -- and the positive control: /output took writes up to it.
    cap_mib, cap_files = sandbox.limits.output_bytes >> 20, sandbox.limits.output_files
    assert cap_mib - 4 <= written <= cap_mib and cap_files // 2 <= files <= cap_files, outcome.reason
    # The slot's output is a mount of its own, gone with the executor.
    out = sandbox.root / "slots" / "0" / "out"
    assert any(line.split()[1] == str(out) for line in open("/proc/self/mounts") if len(line.split()) > 1)


def test_single_file_verifier_that_is_a_link_to_a_host_file_is_refused(sandbox, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:secret-hash-vgb\n")
    os.chmod(secret, 0o600)
    link = tmp_path / "x.py"
    link.symlink_to(secret)
    outcome = sandbox.run(Job(link, {}, key="k"))
    assert outcome.decision is Decision.U and "link" in outcome.problem
    assert "secret-hash-vgb" not in outcome.stderr_tail
    # The same for a verifier directory that is itself a link.
    real = write_verifier(tmp_path / "real", WRITE_PASS).parent
    (tmp_path / "dirlink").symlink_to(real)
    outcome = sandbox.run(Job(tmp_path / "dirlink", {}, key="k"))
    assert outcome.decision is Decision.U and "link" in outcome.problem


@pytest.mark.timeout(30)
def test_fifo_inside_a_verifier_directory_is_U_not_a_hang_or_traceback(sandbox, tmp_path):
    verifier = write_verifier(tmp_path / "v", WRITE_PASS)
    os.mkfifo(verifier.parent / "pipe")
    outcome = sandbox.run(Job(verifier.parent, {}, key="k"))
    assert outcome.decision is Decision.U and "pipe" in outcome.problem and "regular file" in outcome.problem


def test_oversized_verifier_directory_is_U(sandbox, tmp_path, monkeypatch):
    from verifierbench.executor import staging

    monkeypatch.setattr(staging, "MAX_VERIFIER_BYTES", 1 << 20)
    monkeypatch.setattr(staging, "MAX_VERIFIER_FILES", 10)
    big = write_verifier(tmp_path / "big", WRITE_PASS).parent
    with open(big / "blob.bin", "wb") as handle:
        handle.truncate(2 << 20)
    outcome = sandbox.run(Job(big, {}, key="k"))
    assert outcome.decision is Decision.U and "bytes" in outcome.problem
    many = write_verifier(tmp_path / "many", WRITE_PASS).parent
    for i in range(12):
        (many / f"f{i}.txt").write_text("x")
    outcome = sandbox.run(Job(many, {}, key="k"))
    assert outcome.decision is Decision.U and "files" in outcome.problem


def test_output_mounts_left_by_a_killed_harness_are_swept(tmp_path):
    import subprocess
    import sys

    from verifierbench.executor.workdirs import sweep_stale_outputs

    if not running_as_root():
        skip_unless_required("root", "capped /output mounts (and so stale ones) exist only when running as root")
    code = ("import os; from verifierbench.executor import Executor, Job, Limits; "
            f"e = Executor(Limits(timeout_s=5), isolation='bwrap', slots=1); v = {str(tmp_path / 'verify.py')!r}; "
            f"open(v, 'w').write({WRITE_PASS!r}); e.run(Job(v, {{}}, key='k')); print(e.root, flush=True); os._exit(0)")
    root = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert any(root in line for line in open("/proc/self/mounts"))
    assert root in sweep_stale_outputs()
    assert not any(root in line for line in open("/proc/self/mounts")) and not os.path.exists(root)


MEMORY_OUTSIDE_RLIMIT_AS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
held = []
try:
    fd = os.memfd_create("m")
    os.write(fd, b"x" * 4096)
    held.append("memfd")
except OSError:
    pass
if libc.shmget(0, 1 << 20, 0o1600) >= 0:  # IPC_PRIVATE, IPC_CREAT | 0600
    held.append("shm")
if libc.msgget(0, 0o1600) >= 0:
    held.append("msg")
"""


def test_memfd_and_sysv_ipc_cannot_hold_memory_outside_the_address_space_limit(sandbox, tmp_path):
    # Each holds host RAM that RLIMIT_AS does not count (1.5 GiB held under a 1 GiB limit, measured).
    outcome = run(sandbox, tmp_path, MEMORY_OUTSIDE_RLIMIT_AS + """
import json, sys
json.dump({"decision": "PASS", "reason": " ".join(held) or "none"}, open(sys.argv[2], "w"))
""")
    assert outcome.reason == "none", outcome


KEYRING_CARRIER = """
import ctypes, json, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
found = {}
for name, ring in (("user", -4), ("session", -3)):  # KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING
    key = libc.syscall(KEYCTL, KEYCTL_SEARCH, ring, b"user", b"vgb-candidate", 0)
    if key != -1:
        buffer = ctypes.create_string_buffer(256)
        length = libc.syscall(KEYCTL, KEYCTL_READ, key, buffer, 256)
        found[name] = buffer.raw[:max(length, 0)].decode()
    data = open(sys.argv[1], "rb").read()
    stored = libc.syscall(ADD_KEY, b"user", b"vgb-candidate", data, len(data), ring)
    found[name + " add"] = "stored" if stored != -1 else ctypes.get_errno()
json.dump({"decision": "PASS", "reason": json.dumps(found)}, open(sys.argv[2], "w"))
"""


def test_a_verifier_storing_its_candidate_in_the_kernel_keyring_is_refused_and_no_later_case_sees_it(sandbox, tmp_path):
    # Issue 51: a warm sandbox's cases share its user namespace, so its user keyring; a verifier read the previous
    # case's hidden candidate there.
    verifier = write_verifier(tmp_path / "v", KEYRING_CARRIER)
    outcomes = list(sandbox.run_many([Job(verifier, {"hidden": i}, key=str(i)) for i in range(4)]))
    assert len(outcomes) == 4
    for outcome in outcomes:
        assert outcome.decision is Decision.P, outcome
        assert json.loads(outcome.reason) == {"user add": 1, "session add": 1}, outcome  # EPERM, and nothing found
