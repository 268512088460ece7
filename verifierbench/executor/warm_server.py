"""The fork server inside a warm sandbox (executor.warm): ours, run by the sandbox's interpreter.

Standard library only: it runs as /opt/vgb/warm/warm_server.py under bubblewrap, started once per
(verifier, task), or for trusted references once per source and slot (a task server per reference, serve_cases). It keeps CAP_SYS_ADMIN (and CAP_SETPCAP) in the sandbox's own user namespace (nothing on the host)
only to give each case fresh namespaces; the case's process drops every capability before any
verifier code runs.

Requests arrive one JSON line at a time on fd 0: {"argv": [...], "env": {...}, "timeout_s": s}.
For each, the server forks the case process into a pid namespace of its own, as its pid 1 (as with
bwrap --as-pid-1 today; `fork_case`), which unshares its own mount and IPC
namespaces and gets a fresh tmpfs at /tmp and /dev/shm, its own /proc, the request's environment,
no capability, and the verifier run as `verify.py CANDIDATE RESULT`. When
that process ends, the kernel kills everything it left in its pid namespace; the mounts and IPC
objects go with the namespaces. The reply, one JSON line on fd 1: {"status": exit status as bwrap
reports it, "timed_out": bool, and "setup_failed": why, when the case could not be set up (from a pipe
the case closes before its verifier runs)}.

Where a case's time went (issue 22, profiled on a 2-core VM): a forked interpreter pays a page fault for
every page of the server's heap it writes to, and the interpreter's own shutdown writes to nearly all
of them (reference counts, the collector's headers): 30-70 ms a case against 4 ms for the fork itself.
So the server freezes its objects out of the collector's reach (gc.freeze) and the case process ends
the way the interpreter's shutdown does for everything a verifier can observe (`finish`), without
tearing down the interpreter page by page. And each case is one fork of the server (`fork_case`), not
two: the intermediate process that made the case's pid namespace cost about 2 ms of CPU a case.
"""

from __future__ import annotations  # annotations are never evaluated: whatever the sandbox's interpreter

import atexit
import ctypes
import gc
import io
import json
import os
import resource
import select
import signal
import sys

# The preloaded interpreter: what most verifiers import, imported once (random, and what imports it
# such as tempfile and secrets, is left out: each case must seed its own). pkgutil is what
# runpy.run_path imports on each call (with typing); hashlib's OpenSSL start alone cost a case 8 ms.
import ast  # noqa: F401
import collections  # noqa: F401
import difflib  # noqa: F401
import hashlib  # noqa: F401
import math  # noqa: F401
import pathlib  # noqa: F401
import pkgutil  # noqa: F401
import re  # noqa: F401
import runpy
from typing import IO, Any, NoReturn  # typing: already loaded by pkgutil

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 1, 4, 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
LAST_CAP = 63

libc = ctypes.CDLL(None, use_errno=True)
Request = dict[str, Any]  # a JSON request from the harness (executor.warm)


def check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def drop_capabilities() -> None:
    """No capability left, none to regain: ambient, bounding, effective, permitted, inheritable."""
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    for cap in range(LAST_CAP + 1):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:  # EINVAL: no such cap
            check(-1, f"drop capability {cap} from the bounding set")
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()  # two (effective, permitted, inheritable) triples, all zero
    check(libc.capset(header, data), "capset")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def mount_tmpfs(target: str, size: int, mode: int) -> None:
    options = f"size={size},mode={mode:o}".encode()
    check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options), f"mount tmpfs on {target}")


def become_case(request: Request) -> None:
    """In the case process (pid 1 of its pid namespace, capabilities still held): the case's world."""
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare the case's mount and IPC namespaces")
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make the case's mounts private")
    mount_tmpfs("/tmp", request["scratch_bytes"], 0o755)  # as bwrap's --tmpfs /tmp: the sandbox uid's
    mount_tmpfs("/dev/shm", request["shm_bytes"], 0o1777)
    check(libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")
    resource.setrlimit(resource.RLIMIT_CPU, (request["cpu_s"], request["cpu_s"]))  # as prlimit --cpu on a cold run
    drop_capabilities()
    check(libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")  # as any fresh process; the server stays not
    os.chdir(request["chdir"])
    os.environ.clear()
    os.environ.update(request["env"])
    for name in list(sys.modules):
        if name == "random" or name.startswith("random."):
            del sys.modules[name]  # never imported here; defensive: a fresh seed per case


def fork_case() -> int:
    """os.fork(), the child pid 1 of a new pid namespace: one fork per case (issue 22).

    unshare(CLONE_NEWPID) makes a process's next child the first of a new pid namespace, and is allowed
    only while its children would otherwise go to its own; once that first child has ended, no other can
    join the namespace. So after each case's fork the server points its children back at its own
    namespace (setns on SERVER_PID_NS). Before, an intermediate child unshared and forked the case: two
    forks and two exits of the server's heap per case, and the intermediate's copy-on-write faults.
    """
    check(libc.unshare(CLONE_NEWPID), "unshare the case's pid namespace")
    pid = -1
    try:
        pid = os.fork()
        return pid
    finally:
        if pid != 0:  # the server (the case process keeps its own namespace for its children)
            check(libc.setns(SERVER_PID_NS, CLONE_NEWPID), "point the server's children back at its pid namespace")


def own_pid_namespace() -> int:
    """Makes the server the first process of a pid namespace of its own and returns a descriptor of it.

    fork_case needs to point the server's children back at the server's pid namespace (setns), which the
    kernel allows only with CAP_SYS_ADMIN over that namespace's user namespace. bubblewrap's pid namespace
    belongs to its outer user namespace (the one it maps root in to mount devpts), where the server has no
    capability; one the server makes belongs to its own. The process bubblewrap started only waits and
    passes on the server's status; it is the sandbox's pid 1, so the whole sandbox ends with it.
    """
    check(libc.unshare(CLONE_NEWPID), "unshare the server's pid namespace")
    pid = os.fork()
    if pid != 0:
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0)  # the harness's pipes stay with the server alone
        os.dup2(null, 1)
        os._exit(wait_status(pid))
    return os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)


def wait_status(pid: int) -> int:
    """The child's status as bwrap reports it: its exit code, or 128 + the signal that killed it."""
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def become_case_pid1(request: Request) -> Request:
    """In the forked case process, pid 1 of its own pid namespace: the case's world. Returns the request."""
    # If the server kills it (a timeout) or ends, the kernel kills what it left in its namespace.
    check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")
    become_case(request)
    return request


def reap_everything() -> None:
    """Kills and reaps whatever is left in the sandbox but this server (its pid 1): nothing should be."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def serve() -> Request | None:
    """Handles requests until fd 0 ends. In the server returns None; in a case process, its request."""
    check(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")  # no case may ptrace or read this process
    requests = os.fdopen(os.dup(0), "rb")  # buffered: one read per request, not one per byte
    replies = os.dup(1)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # Everything the server holds now stays out of every collection, in the server and in each case:
    # a case's collector then never writes to (and so never copies) the server's pages.
    gc.freeze()
    return serve_cases(requests, replies)


def serve_cases(requests: IO[bytes], replies: int, task_server: bool = False) -> Request | None:
    """The request loop: a case per request, forked. A trusted sandbox serving several verifiers (executor.warm)
    also sends {"task": {...}}: a task server is forked for it, loads that task's data (`start_task`) and serves its
    cases until {"end_task": true}, while this process waits, then answers {"ended": status}. Each task's data thus
    lives in a child of the server that never had another task's: no task sees another's, no case another case's.
    Returns None in a server; in a case process, its request."""
    for line in requests:
        request = json.loads(line)
        if "end_task" in request:
            if task_server:
                os._exit(0)
            os.write(replies, b'{"ended": null}\n')
            continue
        if "task" in request:
            pid = os.fork()
            if pid == 0:
                start_task(request["task"], replies)
                return serve_cases(requests, replies, task_server=True)
            os.write(replies, (json.dumps({"ended": wait_status(pid)}) + "\n").encode())
            continue
        # A setup failure is reported on a pipe of its own, closed in the case before any verifier code runs: the case
        # cannot fake one (its stderr and exit status are its own to write; issue 35).
        setup_r, setup_w = os.pipe()
        pid = fork_case()
        if pid == 0:
            try:
                os.closerange(3, setup_w)  # the control channel (and SERVER_PID_NS) never reach verifier code
                os.closerange(setup_w + 1, 1 << 16)
                request = become_case_pid1(request)
                os.close(setup_w)
                return request
            except BaseException as exc:  # noqa: BLE001 - the setup failed: report it as a crash
                message = f"vgb warm server: case setup failed: {exc}"
                os.write(2, (message + "\n").encode())
                os.write(setup_w, message.encode()[:4096])
                os._exit(125)
        os.close(setup_w)
        pidfd = os.pidfd_open(pid)
        ready = select.poll()
        ready.register(pidfd, select.POLLIN)
        timed_out = not ready.poll(request["timeout_s"] * 1000)
        os.close(pidfd)
        if timed_out:
            os.kill(pid, signal.SIGKILL)  # its pid namespace's init: the kernel kills the rest of it
        status = wait_status(pid)
        reap_everything()
        setup_failed = os.read(setup_r, 4096).decode(errors="replace")  # the case's write end is gone: no wait
        os.close(setup_r)
        reply = {"status": status, "timed_out": timed_out, **({"setup_failed": setup_failed} if setup_failed else {})}
        os.write(replies, (json.dumps(reply) + "\n").encode())
    return None


def preload() -> None:
    """A trusted verifier's modules and warm-up call (executor.warm.trusted_preload), once for all its cases.

    The warm-up (an exported reference's: its source's hook) loads the task's data into the module's
    caches; every case then starts from a copy of them (a fork), never from another case's.
    """
    import importlib

    for name in filter(None, os.environ.pop("VGB_WARM_PRELOAD", "").split(",")):
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - the case imports it again and reports its own failure
            os.write(2, f"vgb warm server: preloading {name} failed: {exc}\n".encode())
    warm_up(os.environ.pop("VGB_WARM_UP", ""), os.environ.pop("VGB_WARM_UP_ARGUMENT", ""))


def start_task(task: Request, replies: int) -> None:
    """In a task server: the task's warm-up call, its objects frozen out of the collector's reach as the server's
    are, then {"ready": true}."""
    warm_up(task.get("warm_up") or "", task.get("argument") or "")
    gc.freeze()
    os.write(replies, b'{"ready": true}\n')


def warm_up(call: str, argument: str) -> None:
    """Calls `call` ("module:function") with the JSON of the file `argument` (if any); a failure is only reported."""
    import importlib

    if call:
        try:
            module, _, function = call.partition(":")
            args = []
            if argument:
                with open(argument, encoding="utf-8") as source:
                    args.append(json.load(source))
            getattr(importlib.import_module(module), function)(*args)
        except Exception as exc:  # noqa: BLE001 - the case loads its data itself and reports its own failure
            os.write(2, f"vgb warm server: warm-up {call} failed: {exc}\n".encode())


def exit_status(exc: BaseException | None) -> int:
    """The status the interpreter exits with when `exc` (None: none) ends the main module; prints as it does."""
    if exc is None:
        return 0
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code & 0xFF if -(1 << 31) <= code < (1 << 31) else 0xFF  # as the kernel truncates a C int
        print(code, file=sys.stderr)
        return 1
    sys.excepthook(type(exc), exc, exc.__traceback__)
    return 1


def finish(status: int) -> NoReturn:
    """Ends the case process as the interpreter's shutdown would for what a verifier can observe.

    In the interpreter's order: wait for non-daemon threads, run atexit handlers, flush every file
    object still open (a result written without close() is flushed at shutdown too: the collector,
    frozen in the server, lists only the case's own objects), flush stdout and stderr, exit.
    """
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()
        atexit._run_exitfuncs()
    except BaseException as exc:  # noqa: BLE001 - as at shutdown: reported, the status stays
        sys.excepthook(type(exc), exc, exc.__traceback__)
    for obj in gc.get_objects():
        if isinstance(obj, io.IOBase):
            try:
                if not obj.closed:
                    obj.flush()
            except Exception:  # noqa: BLE001, S110 - as at shutdown: a failed flush does not change the status
                pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110
            pass
    os._exit(status)


SERVER_PID_NS = own_pid_namespace()
preload()
case = serve()
if case is None:
    sys.exit(0)
sys.argv = list(case["argv"])
sys.path[0] = os.path.dirname(case["argv"][0])
del case
ended = None
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except BaseException as exc:  # noqa: BLE001 - its status and message, as the interpreter gives them
    ended = exc
finally:
    # This process is pid 1 of the case's pid namespace: end whatever the verifier left running now,
    # before the shutdown steps, which a fork bomb's spinning children would otherwise starve of CPU
    # until the case timed out (the kernel would kill them only once this process ends).
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
finish(exit_status(ended))
