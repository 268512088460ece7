"""The warm path (issue 22): one sandbox per verifier, a fresh forked process per case, nothing carried over."""

from __future__ import annotations

import itertools
import json
import os
import signal
import time
from contextlib import contextmanager
from functools import partial

import pytest

from verifierbench.executor import Executor, Job, Limits
from verifierbench.executor import scheduler, staging, warm
from verifierbench.core.errors import UserError
from verifierbench.executor.process import _children
from verifierbench.core.protocol import Decision
from verifierbench.public_env.service import BUDGET_EXCEEDED, PublicService
from tests.conftest import skip_unless_required, write_verifier

pytestmark = pytest.mark.sandbox


@pytest.fixture
def one_slot(bwrap_available):
    with Executor(Limits(timeout_s=3, memory_bytes=1 << 30, max_processes=32), isolation="bwrap", slots=1) as executor:
        yield executor


def run_warm(executor: Executor, verifier, candidates: list) -> list:
    outcomes = {o.key: o for o in executor.run_warm(Job(verifier, c, key=str(i)) for i, c in enumerate(candidates))}
    return [outcomes[str(i)] for i in range(len(candidates))]


# Each case reports what earlier cases left (CHECK), then leaves all of it for the next one (PLANT).
SETUP = r"""
import ctypes, json, os, platform, socket, sys, time
import json as preloaded
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)
rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
KEY_SPEC_USER_KEYRING, KEYCTL_SEARCH, EPERM = -4, 10, 1
seen = []
"""
CHECK = r"""
if os.listdir("/tmp"): seen.append("tmp")
if os.listdir("/dev/shm"): seen.append("shm")
if [n for n in os.listdir("/output") if n != os.path.basename(sys.argv[2])]: seen.append("output")
if "VGB_MARK" in os.environ: seen.append("environ")
if hasattr(preloaded, "vgb_mark"): seen.append("module global")
if "vgb_planted" in sys.modules: seen.append("sys.modules")
if [p for p in os.listdir("/proc") if p.isdigit() and p != "1"]: seen.append("process")
if libc.semget(0x5647, 0, 0) != -1: seen.append("sysv semaphore")
if rt.mq_open(b"/vgb-mark", os.O_RDONLY, 0, None) != -1: seen.append("posix mqueue")
probe = socket.socket(socket.AF_UNIX)
try:
    probe.connect("\0vgb-mark"); seen.append("abstract socket")
except OSError:
    pass
if libc.syscall(KEYCTL, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", b"vgb-mark", 0) != -1: seen.append("keyring")
"""
PLANT = r"""
open("/tmp/mark", "w").write("x"); open("/dev/shm/mark", "w").write("x"); open("/output/mark", "w").write("x")
os.environ["VGB_MARK"] = "1"
preloaded.vgb_mark = 1
sys.modules["vgb_planted"] = sys
assert libc.semget(0x5647, 1, 0o1666) != -1
assert rt.mq_open(b"/vgb-mark", os.O_CREAT | os.O_RDONLY, 0o666, None) != -1
# The keyring is refused outright (issue 51: the user keyring is one per uid and user namespace, a warm sandbox's)
if libc.syscall(ADD_KEY, b"user", b"vgb-mark", b"x", 1, KEY_SPEC_USER_KEYRING) != -1 or ctypes.get_errno() != EPERM:
    seen.append("keyring stored")
ready_r, ready_w = os.pipe()
if os.fork() == 0:  # a daemon that would spoil the next case's result if it lived on
    os.setsid()
    listener = socket.socket(socket.AF_UNIX); listener.bind("\0vgb-mark"); listener.listen()
    os.write(ready_w, b"x")
    for _ in range(100):
        for name in set(os.listdir("/output")) - {os.path.basename(sys.argv[2])}:  # later cases' results
            try:
                open("/output/" + name, "w").write('{"decision": "FAIL", "reason": "spoiled"}')
            except OSError:
                pass
        time.sleep(0.05)
    os._exit(0)
os.read(ready_r, 1)
"""
REPORT = r"""
json.dump({"decision": "PASS", "reason": json.dumps(seen)}, open(sys.argv[2], "w"))
"""
EVERYTHING = ["tmp", "shm", "output", "environ", "module global", "sys.modules", "process", "sysv semaphore",
              "posix mqueue", "abstract socket"]


def test_nothing_a_case_does_is_visible_to_the_next(one_slot, tmp_path):
    verifier = write_verifier(tmp_path / "v", SETUP + CHECK + PLANT + REPORT)
    outcomes = run_warm(one_slot, verifier, [{"i": i} for i in range(4)])
    for outcome in outcomes:
        assert outcome.path == "warm", outcome
        assert outcome.decision is Decision.P and json.loads(outcome.reason) == [], outcome


def test_generated_verifiers_share_a_sandbox_and_nothing_crosses_from_one_to_the_next(one_slot, tmp_path, monkeypatch):
    """Issue 38: generated verifiers of several tasks run in one warm sandbox, switched, each case a fresh fork of a
    server that never ran a verifier's code; nothing one leaves reaches another; a verifier's preload.json is ignored."""
    starts, requests = [], []
    start, exchange = warm.WarmSandbox.__init__, warm.WarmSandbox._exchange
    monkeypatch.setattr(warm.WarmSandbox, "__init__", lambda self, *a, **k: (starts.append(1), start(self, *a, **k))[1])
    monkeypatch.setattr(warm.WarmSandbox, "_exchange", lambda self, request, t: (requests.append(request), exchange(self, request, t))[1])
    mine = 'seen += sorted(set(os.listdir("/verifier")) - {"verify.py", "preload.json", os.path.basename(os.path.dirname(__file__)) + ".txt"})\n'
    verifiers = []
    for name in ("a", "b", "c"):
        verifier = write_verifier(tmp_path / name, SETUP + CHECK + mine.replace("os.path.basename(os.path.dirname(__file__))", repr(name)) + PLANT + REPORT).parent
        (verifier / f"{name}.txt").write_text(name)
        # What a trusted reference's warm-up would be; a generated verifier's must never be called (it would run with
        # the server's capabilities).
        (verifier / "preload.json").write_text('{"modules": ["json"], "warm_up": "os:mkdir", "argument": "preload.json"}')
        verifiers.append(verifier)
    jobs = [Job(verifier, {"i": case}, key=f"{number}-{case}") for number, verifier in enumerate(verifiers) for case in range(3)]
    outcomes = list(one_slot.run_warm(jobs))
    assert len(outcomes) == 9
    for outcome in outcomes:
        assert outcome.path == "warm" and outcome.decision is Decision.P and json.loads(outcome.reason) == [], outcome
    assert len(starts) == 1
    tasks = [request["task"] for request in requests if "task" in request]
    assert len(tasks) == 3 and all(task == {"warm_up": None, "argument": None} for task in tasks), tasks
    monkeypatch.setenv(scheduler.SHARED_ENV, "0")  # the path before: a sandbox per verifier
    starts.clear()
    assert {o.decision for o in one_slot.run_warm(jobs)} == {Decision.P} and len(starts) == 3
    monkeypatch.setenv(scheduler.SHARED_ENV, "maybe")
    with pytest.raises(UserError, match="VERIFIERBENCH_WARM_SHARED='maybe'"):
        list(one_slot.run_warm(jobs))


def test_the_checks_see_every_mark_left_within_one_case(one_slot, tmp_path):
    """The carrier's checks can fail: planting first, one case sees every mark."""
    verifier = write_verifier(tmp_path / "v", SETUP + PLANT + CHECK + REPORT)
    outcome = run_warm(one_slot, verifier, [{}])[0]
    assert json.loads(outcome.reason) == EVERYTHING, outcome


def test_decisions_and_exit_statuses_match_the_cold_path(one_slot, tmp_path):
    verifier = write_verifier(tmp_path / "v", """
        import json, sys
        c = json.load(open(sys.argv[1]))
        if c["do"] == "exit":
            sys.exit(4)
        if c["do"] == "raise":
            raise ValueError("boom")
        if c["do"] == "garbage":
            open(sys.argv[2], "w").write("{")
        else:
            json.dump({"decision": c["do"], "confidence": 0.5, "reason": "r"}, open(sys.argv[2], "w"))
    """)
    candidates = [{"do": d} for d in ("PASS", "FAIL", "exit", "raise", "garbage", "PASS")]
    warm_outcomes = run_warm(one_slot, verifier, candidates)
    cold_outcomes = [one_slot.run(Job(verifier, c, key=str(i))) for i, c in enumerate(candidates)]
    fields = lambda o: (o.decision, o.confidence, o.reason, o.problem, o.exit_status, o.timed_out)  # noqa: E731
    assert [fields(o) for o in warm_outcomes] == [fields(o) for o in cold_outcomes]
    assert {o.path for o in warm_outcomes} == {"warm"} and {o.path for o in cold_outcomes} == {"cold"}
    assert "ValueError: boom" in warm_outcomes[3].stderr_tail


def test_the_preloaded_interpreter_leaves_random_to_each_case(one_slot, tmp_path):
    verifier = write_verifier(tmp_path / "v", """
        import json, sys
        loaded = [name in sys.modules for name in ("hashlib", "pathlib", "random", "tempfile", "secrets")]
        import random
        json.dump({"decision": "PASS", "reason": json.dumps([loaded, random.random()])}, open(sys.argv[2], "w"))
    """)
    reports = [json.loads(o.reason) for o in run_warm(one_slot, verifier, [0, 1, 2])]
    assert [loaded for loaded, _ in reports] == [[True, True, False, False, False]] * 3
    assert len({number for _, number in reports}) == 3  # each case seeds its own


def test_what_the_interpreter_s_shutdown_does_a_warm_case_does_too(one_slot, tmp_path):
    """A warm case skips the interpreter's teardown (warm_server.finish): what a verifier can see of it stays."""
    verifier = write_verifier(tmp_path / "v", """
        import atexit, json, sys, threading, time
        c = json.load(open(sys.argv[1]))
        result = '{"decision": "PASS", "reason": "%s"}' % c["do"]
        if c["do"] == "left open":  # buffered, never closed, kept by the module's own function: written out at shutdown
            held = open(sys.argv[2], "w")
            held.write(result)

            def keep():
                return held
        elif c["do"] == "atexit":
            atexit.register(lambda: open(sys.argv[2], "w").write(result))
        elif c["do"] == "thread":  # a non-daemon thread: the interpreter waits for it
            threading.Thread(target=lambda: (time.sleep(0.2), open(sys.argv[2], "w").write(result))).start()
        elif c["do"] == "exit message":
            sys.exit("no verdict")
        elif c["do"] == "exit 300":
            sys.exit(300)
        elif c["do"] == "exit None":
            open(sys.argv[2], "w").write(result)
            sys.exit()
    """)
    candidates = [{"do": d} for d in ("left open", "atexit", "thread", "exit message", "exit 300", "exit None")]
    warm_outcomes = run_warm(one_slot, verifier, candidates)
    cold_outcomes = [one_slot.run(Job(verifier, c, key=str(i))) for i, c in enumerate(candidates)]
    fields = lambda o: (o.decision, o.reason, o.problem, o.exit_status, o.timed_out)  # noqa: E731
    assert [fields(o) for o in warm_outcomes] == [fields(o) for o in cold_outcomes]
    assert [o.decision for o in warm_outcomes] == [Decision.P] * 3 + [Decision.U] * 2 + [Decision.P]
    assert {o.path for o in warm_outcomes} == {"warm"}
    assert "no verdict" in warm_outcomes[3].stderr_tail and warm_outcomes[4].exit_status == 300 % 256


def test_a_timeout_a_fork_bomb_and_4_gib_stay_within_their_case(bwrap_available, tmp_path):
    marker = f"1000.{os.getpid()}"  # this run's own sleep: another CI run on the machine runs the same test
    verifier = write_verifier(tmp_path / "v", """
        import json, os, subprocess, sys
        c = json.load(open(sys.argv[1]))
        if c == "loop":
            subprocess.Popen(["sleep", "MARKER"])
            while True:
                pass
        if c == "bomb":
            while True:
                try:
                    if os.fork() == 0:
                        while True:
                            pass
                except OSError:
                    raise SystemExit(3)
        if c == "memory":
            block = bytearray(4 * 1024**3)
        json.dump({"decision": "PASS"}, open(sys.argv[2], "w"))
    """.replace("MARKER", marker))
    limits = Limits(timeout_s=6, memory_bytes=1 << 30, max_processes=32)  # the fork bomb needs 2-3 s on a loaded machine
    with Executor(limits, isolation="bwrap", slots=1) as executor:
        started = time.monotonic()
        outcomes = run_warm(executor, verifier, ["bomb", "ok", "loop", "ok", "memory", "ok"])
    assert time.monotonic() - started < 6 + 120  # a hang guard only; the per-case timeout is checked on `loop` below
    bomb, after_bomb, loop, after_loop, memory, after_memory = outcomes
    assert loop.timed_out and loop.decision is Decision.U and loop.problem == "timed out after 6 s"
    assert bomb.decision is Decision.U and bomb.exit_status == 3, bomb
    assert memory.decision is Decision.U and "MemoryError" in memory.stderr_tail
    assert all(o.decision is Decision.P for o in (after_loop, after_bomb, after_memory))
    assert {o.path for o in outcomes} == {"warm"}
    for pid in os.listdir("/proc"):  # nothing of the loop's sleep survives
        try:
            assert marker.encode() not in open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            pass


def test_a_crashed_warm_sandbox_falls_back_to_the_cold_path(one_slot, tmp_path, monkeypatch):
    verifier = write_verifier(tmp_path / "v", """
        import json, sys
        json.dump({"decision": "PASS" if json.load(open(sys.argv[1])) % 2 else "FAIL"}, open(sys.argv[2], "w"))
    """)
    real_run, calls = warm.WarmSandbox.run, []

    def kill_the_server_before_the_third_case(self, job):
        calls.append(job.key)
        if len(calls) == 3:
            for server in _children(self.proc.pid):  # bwrap's child: the fork server
                os.kill(server, signal.SIGKILL)
            self.proc.wait()
        return real_run(self, job)

    monkeypatch.setattr(warm.WarmSandbox, "run", kill_the_server_before_the_third_case)
    outcomes = run_warm(one_slot, verifier, list(range(6)))
    assert [o.path for o in outcomes] == ["warm", "warm"] + ["cold-fallback"] * 4
    assert [o.decision for o in outcomes] == [Decision.F, Decision.P] * 3


def test_the_verifier_gets_no_capability_and_cannot_reach_the_server(one_slot, tmp_path):
    verifier = write_verifier(tmp_path / "v", """
        import json, os, sys
        caps = [line.split()[1] for line in open("/proc/self/status") if line.startswith("Cap")]
        pids = sorted(p for p in os.listdir("/proc") if p.isdigit())
        fds = sorted(os.listdir("/proc/self/fd"))
        json.dump({"decision": "PASS", "reason": json.dumps([caps, pids, fds])}, open(sys.argv[2], "w"))
    """)
    caps, pids, fds = json.loads(run_warm(one_slot, verifier, [{}])[0].reason)
    assert set(caps) == {"0000000000000000"}
    assert pids == ["1"]  # its own pid namespace: the server is not even visible
    assert fds == ["0", "1", "2", "3"]  # stdio and the listing's own descriptor: no control channel


def test_leftover_children_end_when_the_verifier_s_code_ends_not_after_its_shutdown(one_slot, tmp_path):
    # A fork bomb's spinning children starved the interpreter's shutdown of CPU until the case timed
    # out under load; the case process now kills them first. The atexit hook runs in that shutdown.
    verifier = write_verifier(tmp_path / "v", """
        import atexit, json, os, sys, time
        child = os.fork()
        if child == 0:
            while True:
                pass
        def report():
            for _ in range(400):  # polled, not one fixed 0.2 s wait: under load the kill lands later
                gone = os.waitpid(child, os.WNOHANG)[0] == child
                if gone:
                    break
                time.sleep(0.05)
            json.dump({"decision": "PASS" if gone else "FAIL"}, open(sys.argv[2], "w"))
        atexit.register(report)
    """)
    assert [o.decision for o in run_warm(one_slot, verifier, [{}, {}])] == [Decision.P, Decision.P]


def test_run_batch_is_warm_by_default_and_cold_when_asked(bwrap_available, tmp_path, monkeypatch):
    verifier = write_verifier(tmp_path / "v", """
        import json, sys
        json.dump({"decision": "PASS"}, open(sys.argv[2], "w"))
    """)
    limits = Limits(timeout_s=3, memory_bytes=1 << 30, max_processes=32)

    def paths(**options) -> set[str]:
        with Executor(limits, isolation="bwrap", slots=1, **options) as executor:
            return {o.path for o in executor.run_batch(Job(verifier, i, key=str(i)) for i in range(3))}

    monkeypatch.delenv(scheduler.COLD_ENV, raising=False)
    assert paths() == {"warm"}
    assert paths(warm=False) == {"cold"}
    monkeypatch.setenv(scheduler.COLD_ENV, "1")
    assert paths() == {"cold"}
    assert paths(warm=True) == {"warm"}
    monkeypatch.setenv(scheduler.COLD_ENV, "maybe")
    with pytest.raises(UserError, match="VERIFIERBENCH_COLD='maybe'"):
        Executor(limits, isolation="bwrap", slots=1)


class CountingEnvironment:
    """A stand-in public environment: answers each run_public with how many it has answered."""

    def __init__(self, service: int) -> None:
        self.calls = 0  # each service's own environment (a recipe of its own), built in a run_public worker

    def reset_reply(self) -> dict:
        return {"reset": True}

    def run_request(self, request: dict) -> dict:
        self.calls += 1
        return {"calls": self.calls, "record": request.get("record")}


def test_run_public_cases_go_warm_each_with_a_fresh_service_of_its_own(one_slot, tmp_path):
    services = []
    ids = itertools.count()

    @contextmanager
    def service():
        with PublicService(partial(CountingEnvironment, next(ids)), budget=2) as running:  # type: ignore[arg-type]
            services.append(running)
            yield str(running.directory)

    # Each case spends the whole budget, then reports what its service said; a service (or socket) carried
    # over from an earlier case would show more calls or a budget already spent.
    verifier = write_verifier(tmp_path / "v", """
        import json, os, socket, sys
        def ask(record):
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(os.environ["VGB_PUBLIC_SOCKET"])
                s.sendall(json.dumps({"op": "run_public", "record": record}).encode() + b"\\n")
                return json.loads(s.makefile().readline())
        replies = [ask(json.load(open(sys.argv[1]))) for _ in range(3)]
        json.dump({"decision": "PASS", "reason": json.dumps([os.listdir("/run/vgb"), replies])}, open(sys.argv[2], "w"))
    """)
    outcomes = {o.key: o for o in one_slot.run_warm(Job(verifier, i, key=str(i), public=service) for i in range(4))}
    for i in range(4):
        assert outcomes[str(i)].path == "warm", outcomes[str(i)]
        listing, replies = json.loads(outcomes[str(i)].reason)
        assert listing == ["public.sock"]
        assert replies[:2] == [{"calls": 1, "record": i}, {"calls": 2, "record": i}] and replies[2] == {"error": BUDGET_EXCEEDED}
    assert len(services) == 4 and all(s.directory is None or not s.directory.exists() for s in services)
    assert os.listdir(one_slot.root / "slots" / "0" / "public") == []


@pytest.mark.parametrize("trusted", [True, False])
def test_a_trusted_verifier_s_modules_are_imported_once_before_its_cases(bwrap_available, traversable_tmp, tmp_path, trusted):
    library = traversable_tmp / f"lib-{trusted}" / "vgbslow"
    library.mkdir(parents=True)
    library.parent.chmod(0o755)
    (library / "__init__.py").write_text("marks = []\n")
    verifier = write_verifier(tmp_path / "v", """
        import json, os, sys
        preloaded = "vgbslow" in sys.modules
        import vgbslow
        leftover = list(vgbslow.marks)
        vgbslow.marks.append(1)  # a later case must not see it: each case is a fresh fork
        json.dump({"decision": "PASS", "reason": json.dumps([preloaded, leftover])},
                  open(sys.argv[2], "w"))
    """).parent
    (verifier / "preload.json").write_text('["vgbslow"]')
    with Executor(Limits(timeout_s=5), isolation="bwrap", slots=1, libraries=((str(library), "vgbslow"),),
                  trusted_preload=trusted) as executor:
        outcomes = run_warm(executor, verifier, [0, 1, 2])
    assert all(o.decision is Decision.P for o in outcomes), outcomes[0]
    assert [json.loads(o.reason) for o in outcomes] == [[trusted, []]] * 3


@pytest.mark.parametrize("trusted", [True, False])
def test_a_trusted_verifier_s_warm_up_loads_its_data_once_before_its_cases(bwrap_available, traversable_tmp, tmp_path, trusted):
    library = traversable_tmp / f"lib-{trusted}" / "vgbdata"
    library.mkdir(parents=True)
    library.parent.chmod(0o755)
    (library / "__init__.py").write_text("loaded = []\n\n\ndef warm_up(reference):\n    loaded.append(reference['task'])\n")
    verifier = write_verifier(tmp_path / "v", """
        import json, sys
        import vgbdata
        seen = list(vgbdata.loaded)
        vgbdata.loaded.append("by a case")  # a later case must not see it: each case is a fresh fork
        json.dump({"decision": "PASS", "reason": json.dumps(seen)}, open(sys.argv[2], "w"))
    """).parent
    (verifier / "reference.json").write_text('{"task": "t-1"}')
    (verifier / "preload.json").write_text('{"modules": ["vgbdata"], "warm_up": "vgbdata:warm_up", "argument": "reference.json"}')
    with Executor(Limits(timeout_s=5), isolation="bwrap", slots=1, libraries=((str(library), "vgbdata"),),
                  trusted_preload=trusted) as executor:
        outcomes = run_warm(executor, verifier, [0, 1, 2])
    assert all(o.decision is Decision.P and o.path == "warm" for o in outcomes), outcomes[0]
    assert [json.loads(o.reason) for o in outcomes] == [["t-1"] if trusted else []] * 3


def test_trusted_verifiers_of_one_family_share_a_sandbox_that_imports_once_and_warms_up_each_task(
        bwrap_available, traversable_tmp, tmp_path):
    library = traversable_tmp / "lib-family" / "vgbfamily"
    library.mkdir(parents=True)
    library.parent.chmod(0o755)
    # The import's token: equal in every case only if one process imported the module for all tasks.
    (library / "__init__.py").write_text("import os\ntoken = os.urandom(8).hex()\nloaded = []\n\n\n"
                                         "def warm_up(reference):\n    loaded.append(reference['task'])\n")
    verifiers = []
    for task in ("t-1", "t-2", "t-3"):
        verifier = write_verifier(tmp_path / task, """
            import json, os, sys
            import vgbfamily
            mine = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")))["task"]
            seen = list(vgbfamily.loaded)
            vgbfamily.loaded.append("by a case")  # neither a later case nor another task may see it
            json.dump({"decision": "PASS", "reason": json.dumps([mine, seen, vgbfamily.token])}, open(sys.argv[2], "w"))
        """).parent
        (verifier / "reference.json").write_text(json.dumps({"task": task}))
        (verifier / "preload.json").write_text('{"modules": ["vgbfamily"], "warm_up": "vgbfamily:warm_up", "argument": "reference.json"}')
        verifiers.append(verifier)
    jobs = [Job(verifier, case, key=f"{number}-{case}") for number, verifier in enumerate(verifiers) for case in range(3)]
    with Executor(Limits(timeout_s=5), isolation="bwrap", slots=1, libraries=((str(library), "vgbfamily"),),
                  trusted_preload=True) as executor:
        outcomes = {o.key: o for o in executor.run_warm(jobs)}
    assert all(o.decision is Decision.P and o.path == "warm" for o in outcomes.values()), outcomes
    reports = {key: json.loads(o.reason) for key, o in outcomes.items()}
    assert {key: report[:2] for key, report in reports.items()} == {
        f"{number}-{case}": [task, [task]] for number, task in enumerate(("t-1", "t-2", "t-3")) for case in range(3)}
    assert len({report[2] for report in reports.values()}) == 1


def test_a_malformed_preload_list_preloads_nothing(tmp_path):
    verifier = write_verifier(tmp_path / "v", "pass\n").parent
    for number, text in enumerate(('["os; import evil"]', '{"a": 1}', "not json", '["../x"]')):
        (verifier / "preload.json").write_text(text)
        frozen = staging.stage_verifier(verifier, tmp_path / "staged" / str(number))
        assert warm.trusted_preload(frozen) == warm.Preload()
    malformed_calls = ('{"modules": ["json"], "warm_up": "os:system; x"}', '{"warm_up": "m:f", "argument": "../reference.json"}',
                       '{"argument": "reference.json"}', '{"modules": "json"}')
    for number, text in enumerate(malformed_calls):
        (verifier / "preload.json").write_text(text)
        assert warm.trusted_preload(staging.stage_verifier(verifier, tmp_path / "staged" / f"call-{number}")) == warm.Preload()
    (verifier / "preload.json").write_text('["json", "verifierbench.sources.references"]')
    assert warm.trusted_preload(staging.stage_verifier(verifier, tmp_path / "staged" / "ok")) == warm.Preload(("json", "verifierbench.sources.references"))
    (verifier / "preload.json").write_text('{"modules": ["json"], "warm_up": "verifierbench.sources.references:warm_up", "argument": "reference.json"}')
    assert warm.trusted_preload(staging.stage_verifier(verifier, tmp_path / "staged" / "call")) == warm.Preload(
        ("json",), "verifierbench.sources.references:warm_up", "reference.json")


def test_a_verifier_s_cases_share_one_sandbox_unless_they_are_more_than_a_slot_s_share():
    def sizes(groups: list[int], slots: int) -> list[int]:
        chunks = scheduler.warm_chunks([[Job("v", i) for i in range(size)] for size in groups], slots)
        return [len(chunk) for chunk in chunks]

    assert sizes([29] * 95, 2) == [29] * 95  # the tool-call suite: one sandbox a task, both slots busy
    assert sizes([400], 2) == [200, 200]  # one verifier: both slots
    assert sizes([15], 2) == [15]  # too few to pay for a second sandbox
    assert sizes([1000, 10, 10], 4) == [250] * 4 + [10, 10]



def thp_mode() -> str:
    try:
        text = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    except OSError:
        return "never"
    return text[text.index("[") + 1:text.index("]")]


@pytest.mark.parametrize("hugepages", [True, False])
def test_a_trusted_server_s_heap_is_on_huge_pages_and_a_case_s_writes_to_it_stay_in_the_case(
        bwrap_available, traversable_tmp, tmp_path, monkeypatch, hugepages):
    """The trusted server allocates on transparent huge pages (warm.HUGEPAGES), which its cases inherit; what a case
    writes to those pages is still copied on write: the next case sees the warm-up's data as it was."""
    if thp_mode() == "never":
        skip_unless_required("thp", "transparent huge pages are off on this machine")
    if not hugepages and thp_mode() == "always":  # the kernel puts any heap on huge pages: nothing to tell apart
        skip_unless_required("thp", "transparent huge pages are 'always' here: a heap on 4 KiB pages is seen in 'madvise' mode only")
    monkeypatch.setenv("VERIFIERBENCH_WARM_HUGEPAGES", "1" if hugepages else "0")  # warm.HUGEPAGES_ENV
    library = traversable_tmp / f"lib-thp-{hugepages}" / "vgbheap"
    library.mkdir(parents=True)
    library.parent.chmod(0o755)
    (library / "__init__.py").write_text("rows = []\n\n\ndef warm_up(reference):\n"
                                         "    rows.extend({'n': n, 'text': str(n) * 4} for n in range(reference['rows']))\n")
    verifier = write_verifier(tmp_path / "v", """
        import json, os, sys
        import vgbheap
        huge = sum(int(line.split()[1]) for line in open("/proc/self/smaps_rollup") if line.startswith("AnonHugePages:"))
        changed = sum(row["n"] != n or row["text"] != str(n) * 4 for n, row in enumerate(vgbheap.rows))
        for row in vgbheap.rows:  # every page of the server's data written: a later case must not see it
            row["n"] = -1
            row["text"] = "by a case"
        mine = sum(row["n"] == -1 for row in vgbheap.rows)
        tunables = [name for name in ("GLIBC_TUNABLES", "PYTHONMALLOC") if name in os.environ]
        json.dump({"decision": "PASS", "reason": json.dumps([huge, len(vgbheap.rows), changed, mine, tunables])},
                  open(sys.argv[2], "w"))
    """).parent
    rows = 100_000
    (verifier / "reference.json").write_text(json.dumps({"rows": rows}))
    (verifier / "preload.json").write_text('{"modules": ["vgbheap"], "warm_up": "vgbheap:warm_up", "argument": "reference.json"}')
    with Executor(Limits(timeout_s=20), isolation="bwrap", slots=1, libraries=((str(library), "vgbheap"),),
                  trusted_preload=True) as executor:
        outcomes = run_warm(executor, verifier, [0, 1, 2])
    assert all(o.decision is Decision.P and o.path == "warm" for o in outcomes), outcomes[0]
    reports = [json.loads(o.reason) for o in outcomes]
    # Each case: the warm-up's rows untouched by the case before, its own writes to all of them, the cold path's environment.
    assert [report[1:] for report in reports] == [[rows, 0, rows, []]] * 3
    if hugepages:
        assert all(report[0] >= 2048 for report in reports), reports  # at least one 2 MiB page of the server's heap
    else:  # 'madvise' (the skips above): nothing asked for huge pages
        assert all(report[0] == 0 for report in reports), reports


def test_a_verifier_cannot_fake_the_server_s_setup_failure(one_slot, tmp_path):
    """Issue 35, defect 4: exit 125 after printing the server's own "case setup failed" line is the case's failure (U),
    not a crash: no second, cold try at the case, and the later cases stay warm."""
    verifier = write_verifier(tmp_path / "v", """
        import json, os, sys
        if json.load(open(sys.argv[1])) == 0:
            os.write(2, b"vgb warm server: case setup failed: faked\\n")
            os._exit(125)
        json.dump({"decision": "PASS"}, open(sys.argv[2], "w"))
    """)
    outcomes = run_warm(one_slot, verifier, list(range(4)))
    assert [o.path for o in outcomes] == ["warm"] * 4
    assert [o.decision for o in outcomes] == [Decision.U] + [Decision.P] * 3
