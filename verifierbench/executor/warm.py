"""A warm sandbox: one verifier's sandbox, set up once, that forks a fresh process per case (issue 22).

The sandbox is today's (its slot's uid, no network, read-only inputs, rlimits, the seccomp filter),
with one difference: its first process is our fork server (executor/warm_server.py), which keeps
CAP_SYS_ADMIN inside the sandbox's own user namespace to give every case new mount, IPC and pid
namespaces, a fresh /tmp, /dev/shm and /proc, and then drops every capability before the verifier
runs. The harness side is as for a cold run: the candidate is written to the slot's in/, the
result read from and then cleared out of its out/ (host side), stderr kept per case.

Cases with a run_public service (state and code tasks) get a fresh service per case, as on the cold
path; the sandbox sees the slot's public/ directory at /run/vgb, and each case's service socket is
hard-linked there for that case only (a unix socket is reached through its inode, so the link
connects to that case's service; it is removed before the next case starts).

Anything unexpected from the server (no reply in time, a broken pipe, a setup failure it reports on a pipe of
its own, which the case cannot write) raises
WarmCrash; the executor then runs that case and the rest cold.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import select
import shutil
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from verifierbench.executor import layout, netns, process, seccomp
from verifierbench.executor.bwrap import Bind, sandbox_command
from verifierbench.executor.isolation import IsolationLevel
from verifierbench.executor.jobs import Job, Outcome, decide
from verifierbench.executor.limits import Limits
from verifierbench.executor.staging import FrozenVerifier
from verifierbench.executor.workdirs import clear, tail
from verifierbench.core.protocol import ENTRYPOINT

PRELOAD_FILE = "preload.json"  # in a trusted verifier (an exported reference): what its warm server loads once
PRELOAD_ENV = "VGB_WARM_PRELOAD"  # the server's own environment: those modules, comma-separated
WARM_UP_ENV = "VGB_WARM_UP"  # and its warm-up call: "module:function", with the path of its JSON argument
WARM_UP_ARGUMENT_ENV = "VGB_WARM_UP_ARGUMENT"
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # a file beside verify.py: no directory, no ".."
SERVER = Path(__file__).with_name("warm_server.py")  # seen at layout.WARM_SERVER_DIR
REPLY_GRACE_S = 5.0  # beyond a case's timeout, how long the server may take to answer before it counts as crashed
START_TIMEOUT_S = 20.0
TASK_START_TIMEOUT_S = 120.0  # a shared sandbox's task server: its verifier's warm-up call (a task's data)
HUGEPAGES_ENV = "VERIFIERBENCH_WARM_HUGEPAGES"  # set to 0: the server's heap on 4 KiB pages (as before; for A/B runs)
# A trusted server's heap on transparent huge pages (issue 22): fork copies, and exit tears down, one page table
# entry per 2 MiB instead of 512. Measured on a 2-core Firecracker VM (docs/performance.md): an empty fork and
# exit of a tau2 server (160 MB) 40-48 -> 8-12 ms, of an AgentDojo one (264 MB) 57-81 -> 10-18 ms. glibc's
# malloc asks for huge pages (madvise) on its heap; CPython's own allocator maps its 1 MiB arenas itself,
# without that advice, so the server allocates through malloc. Not for generated verifiers' servers: their
# heap is about 8 MB, their fork about 1 ms either way, and their cases' system time rose with it (each case's
# own allocations then fault 2 MiB pages). Only the server's environment: THP stays in the system's mode, and
# each case's environment is the cold path's (the case process clears the server's).
HUGEPAGES = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1", "PYTHONMALLOC": "malloc"}
THP_SYSFS = "/sys/kernel/mm/transparent_hugepage"  # glibc reads the mode and page size here: bound read-only

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Preload:
    """What a trusted verifier's warm server loads once before forking its cases (its preload.json)."""

    modules: tuple[str, ...] = ()  # imported
    warm_up: str | None = None  # "module:function", then called with the JSON of `argument`
    argument: str | None = None  # a file beside verify.py


def trusted_preload(frozen: FrozenVerifier) -> Preload:
    """What a trusted verifier's preload.json asks for (nothing when it has none or it is malformed).

    preload.json is a list of module names, or {"modules": [...], "warm_up": "module:function",
    "argument": "file.json"} (suite/export.py writes the latter for references: the source's warm-up hook
    loads the task's data). Only an executor made for trusted verifiers (`Executor(trusted_preload=True)`,
    `judge --reference-libs`) asks: the server imports and calls them with its capabilities still held,
    from the mounted libraries (the verifier's own directory is not on its path), and a warm sandbox
    serves only its one verifier.
    """
    try:
        declared = json.loads((frozen.directory / PRELOAD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Preload()
    if isinstance(declared, list):
        declared = {"modules": declared}
    modules = declared.get("modules", []) if isinstance(declared, dict) else None
    warm_up = declared.get("warm_up") if isinstance(declared, dict) else None
    argument = declared.get("argument") if isinstance(declared, dict) else None
    if (not isinstance(modules, list) or not all(isinstance(n, str) and MODULE_NAME.fullmatch(n) for n in modules)
            or not (warm_up is None or isinstance(warm_up, str) and FUNCTION_NAME.fullmatch(warm_up))
            or not (argument is None or warm_up is not None and isinstance(argument, str) and FILE_NAME.fullmatch(argument))):
        logger.warning("%s: %s is not a list of module names (or those and a warm-up call); nothing preloaded",
                       frozen.source, PRELOAD_FILE)
        return Preload()
    return Preload(tuple(modules), warm_up, argument)


def hugepages_from_environment() -> bool:
    """Whether warm servers allocate on huge pages (HUGEPAGES): yes unless VERIFIERBENCH_WARM_HUGEPAGES is 0."""
    return os.environ.get(HUGEPAGES_ENV, "").strip().lower() not in ("0", "false", "no")


class WarmCrash(Exception):
    """The warm sandbox stopped working; the remaining cases go the cold path."""


class SlotHost(Protocol):
    """What a warm sandbox uses of the executor that holds its slot (executor.runner.Executor)."""

    limits: Limits
    level: IsolationLevel
    interpreter: str
    libraries: tuple[tuple[str, str], ...]  # mounted for trusted verifiers (layout.binds)
    site_packages: tuple[str, ...]
    trusted_preload: bool  # the verifiers are ours: their preload.json is honoured

    def slot_uid(self, slot: int) -> int:
        """The uid `slot` runs untrusted code as."""
        ...

    def slot_dir(self, slot: int) -> Path:
        """The slot's directories (executor.workdirs.WorkDirs.slot_dir), made on first use."""
        ...

    def slot_network(self, slot: int) -> int | None:
        """The slot's network namespace descriptor, or None when bubblewrap makes one per sandbox."""
        ...

    def slot_left_a_socket(self, slot: int) -> bool:
        """Whether a unix socket outlived the slot's last case in its network namespace."""
        ...


class WarmSandbox:
    """One frozen verifier's sandbox on one slot, kept up while its cases run one after another."""

    def __init__(self, executor: SlotHost, frozen: FrozenVerifier, template: Job, slot: int, shared: bool = False) -> None:
        """Starts the sandbox.

        Args:
            executor: owns the slot, its directories, limits and network namespace.
            frozen: the verifier every case of this sandbox runs (shared: the first one).
            template: a job of the batch: its read-only inputs (extra_ro) are those of every case.
            slot: held by the caller for the sandbox's whole life.
            shared: several verifiers, one after another: each in turn is copied into the slot's verifier/ (seen at
                /verifier) and served by a task server forked for it (warm_server). Trusted verifiers (exported
                references) all have `frozen`'s preloaded modules, which the server imports once, and each task server
                runs its verifier's warm-up call. Generated ones have neither: the server never imports or calls
                anything of theirs, so sharing saves only the sandbox's start per verifier (issue 38), and every case
                is still a fresh fork of a process that never ran a verifier's code.
        """
        self.executor, self.slot, self.shared = executor, slot, shared
        self.frozen: FrozenVerifier | None = None if shared else frozen  # the verifier /verifier holds now
        self.uid = executor.slot_uid(slot)
        self.run_dir = executor.slot_dir(slot)
        self.stderr_path = self.run_dir / "stderr"
        self.extra_ro = template.extra_ro
        # Whether its cases have a run_public service: those of one sandbox all have one or none.
        self.public = template.public is not None or template.public_socket_dir is not None
        self.public_dir = self.run_dir / "public"
        self.verifier_dir = self.run_dir / "verifier"
        if shared:
            self.verifier_dir.mkdir(mode=0o755, exist_ok=True)
            clear(self.verifier_dir)
        if self.public:
            self.public_dir.mkdir(mode=0o755, exist_ok=True)
            clear(self.public_dir)
        binds = layout.binds(str(self.verifier_dir if shared else frozen.directory), self.run_dir, template.extra_ro,
                             str(self.public_dir) if self.public else None, None, executor.libraries, executor.site_packages,
                             warm_server_dir=str(SERVER.parent))
        # The server's own environment; each case gets exactly the cold path's (`_case_environment`).
        env = {key: value for key, value in self._case_environment("", "").items() if not key.startswith("VGB_")}
        if executor.trusted_preload and hugepages_from_environment() and os.path.isdir(THP_SYSFS):  # see HUGEPAGES
            env.update(HUGEPAGES)
            binds.append(Bind(THP_SYSFS, THP_SYSFS))
        preload = trusted_preload(frozen) if executor.trusted_preload else Preload()
        if preload.modules:
            env[PRELOAD_ENV] = ",".join(preload.modules)
        if preload.warm_up and not shared:  # shared: each task server makes its verifier's call (switch)
            env[WARM_UP_ENV] = preload.warm_up
            if preload.argument:
                env[WARM_UP_ARGUMENT_ENV] = f"{layout.VERIFIER_DIR}/{preload.argument}"
        network = executor.slot_network(slot)
        filter_fd = seccomp.filter_fd()
        argv = sandbox_command([executor.interpreter, f"{layout.WARM_SERVER_DIR}/{SERVER.name}"], binds, env, executor.limits.scratch_bytes,
                               shm_bytes=executor.limits.shm_bytes, seccomp_fd=filter_fd, join_network=network is not None,
                               keep_sys_admin=True)
        # The server's CPU time grows with the batch; each case gets its own CPU limit (warm_server).
        limits = [arg for arg in executor.limits.prlimit_args() if not arg.startswith("--cpu=")] + ["--cpu=unlimited"]
        self.stderr = open(self.stderr_path, "ab")  # appended to: truncated between cases, each starts at 0
        try:
            with process.spawning(["prlimit", *limits, "--", *argv], self.uid, executor.limits,
                                  () if filter_fd is None else (filter_fd,)) as (host_argv, options), netns.entered(network):
                self.proc = subprocess.Popen(host_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                             cwd=str(self.run_dir), **options)
        except BaseException:
            self.stderr.close()
            raise
        finally:
            if filter_fd is not None:
                os.close(filter_fd)

    def left_a_socket(self) -> bool:
        """Whether a unix socket outlived the last case in the slot's network namespace (netns.unix_socket_table): the
        executor then ends this sandbox, and the next one gets a fresh namespace (runner.Executor.slot_network)."""
        return self.executor.slot_left_a_socket(self.slot)

    def run(self, job: Job) -> Outcome:
        """One case: the verifier as `verify.py CANDIDATE RESULT` in a fresh process; WarmCrash if the server fails.

        Args:
            job: a case of this sandbox's verifier and inputs; with a run_public service, already started
                (`public_socket_dir`, as the executor hands it to a cold run), and only then.
        """
        executor = self.executor
        if self.shared and job.verifier != self.frozen:
            self._switch(job.verifier)  # type: ignore[arg-type]
        if job.extra_ro != self.extra_ro or job.public is not None or (job.public_socket_dir is not None) != self.public:
            raise ValueError("a warm sandbox runs only cases with its own inputs and its kind of run_public service, started")
        limits = executor.limits if job.timeout_s is None else replace(executor.limits, timeout_s=job.timeout_s)
        token = secrets.token_hex(8)
        in_dir, out_dir = self.run_dir / "in", self.run_dir / "out"
        candidate_file = in_dir / layout.CANDIDATE_FILE
        candidate_file.write_text(json.dumps(job.candidate), encoding="utf-8")
        os.chmod(candidate_file, 0o644)
        result_path = layout.result_path(token)
        request = {
            "argv": [f"{layout.VERIFIER_DIR}/{ENTRYPOINT}", layout.CANDIDATE, result_path],
            "env": {**self._case_environment(layout.CANDIDATE, result_path), "PWD": layout.SCRATCH},  # bwrap --chdir sets PWD
            "chdir": layout.SCRATCH, "timeout_s": limits.timeout_s, "cpu_s": int(limits.timeout_s) + 2,
            "scratch_bytes": executor.limits.scratch_bytes, "shm_bytes": executor.limits.shm_bytes,
        }
        os.truncate(self.stderr_path, 0)
        if job.public_socket_dir is not None:
            self._link_service(Path(job.public_socket_dir) / layout.PUBLIC_SOCKET)
        started = time.monotonic()
        try:
            reply = self._exchange(request, limits.timeout_s + REPLY_GRACE_S)
            wall = time.monotonic() - started
            stderr_tail = tail(self.stderr_path, executor.limits.stderr_tail_bytes)
            if reply.get("setup_failed"):  # the server's own channel: never the case's stderr or status (issue 35)
                raise WarmCrash(str(reply["setup_failed"]))
            timed_out = bool(reply["timed_out"])
            status = -9 if timed_out else int(reply["status"])
            return decide(job, limits, executor.level.value, status, timed_out, wall, stderr_tail, out_dir, token, path="warm")
        finally:
            clear(out_dir)
            if self.public:
                clear(self.public_dir)

    def _case_environment(self, candidate: str, result: str) -> dict[str, str]:
        """A case's environment: the cold path's (runner), its service at layout.PUBLIC_DIR if it has one."""
        executor = self.executor
        return layout.environment(executor.level, candidate, result, home=layout.SCRATCH,
                                  public=layout.PUBLIC_DIR if self.public else None, libraries=executor.libraries,
                                  site_packages=executor.site_packages)

    def _switch(self, frozen: FrozenVerifier) -> None:
        """Shared sandbox: ends the current verifier's task server, puts `frozen` at /verifier and starts its task
        server (its warm-up call); WarmCrash if the server does not confirm both."""
        if self.frozen is not None:
            if "ended" not in self._exchange({"end_task": True}, REPLY_GRACE_S):
                raise WarmCrash("the warm sandbox's server did not end its task")
            self.frozen = None
        clear(self.verifier_dir)
        shutil.copytree(frozen.directory, self.verifier_dir, symlinks=True, dirs_exist_ok=True)
        # A generated verifier's preload.json is never honoured: its warm-up call would run with the server's capabilities.
        preload = trusted_preload(frozen) if self.executor.trusted_preload else Preload()
        task = {"warm_up": preload.warm_up, "argument": f"{layout.VERIFIER_DIR}/{preload.argument}" if preload.argument else None}
        if not self._exchange({"task": task}, TASK_START_TIMEOUT_S).get("ready"):
            raise WarmCrash("the warm sandbox's server did not start a task")
        self.frozen = frozen

    def _link_service(self, socket_path: Path) -> None:
        """This case's run_public socket at /run/vgb/public.sock; WarmCrash (cold from here on) if it cannot be linked."""
        try:
            os.link(socket_path, self.public_dir / layout.PUBLIC_SOCKET)
        except OSError as exc:  # e.g. the service's directory on another filesystem than the executor's root
            raise WarmCrash(f"cannot link the run_public socket into the warm sandbox ({exc.strerror})") from None

    def _exchange(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except OSError as exc:
            raise WarmCrash(f"the warm sandbox's server is gone ({exc})") from None
        poller = select.poll()
        poller.register(self.proc.stdout, select.POLLIN)
        if not poller.poll(timeout_s * 1000):
            raise WarmCrash(f"the warm sandbox's server gave no answer within {timeout_s:g} s")
        line = self.proc.stdout.readline()
        try:
            reply: dict[str, Any] = json.loads(line)
        except ValueError:
            raise WarmCrash("the warm sandbox's server ended" if not line else "the warm sandbox's server answered garbage") from None
        return reply

    def close(self) -> None:
        """Ends the sandbox (its whole pid namespace goes with the server) and waits for it."""
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill(self.proc)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.stderr.close()
        clear(self.run_dir / "out")
        clear(self.run_dir / "scratch")
        if self.shared:
            clear(self.verifier_dir)
        if self.public:
            clear(self.public_dir)
