"""`vgb`: the no-Docker Inspect sandbox environment (docs/isolation.md), built on bubblewrap.

Each sample gets a private host directory mounted read-write at `/workspace`. Every `exec` is a
fresh bubblewrap process run as an unprivileged uid: no network, read-only system, a tmpfs at
/tmp, rlimits, the process tree killed when the command ends or times out. Only `/workspace`
persists between calls. The in-sandbox helper module `vgb_env` is mounted read-only. Nothing
else of the host is visible: not the suite, not the hidden cases, not the reference verifiers.

`read_file`/`write_file` reach `/workspace` only, follow no link at all (a planted one could lead the
root-side walk out of it), and use regular files only (a FIFO would block the harness).

When the harness runs as root, `/workspace` is a size-capped tmpfs (`$VERIFIERBENCH_WORKSPACE_MB`,
default 1024), so an agent cannot fill the host's disk; otherwise only each file is capped (RLIMIT_FSIZE).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path, PurePosixPath
from typing import Any, Literal, Union, overload

from inspect_ai.util import (
    ExecResult,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    SandboxEnvironmentLimits,
    SandboxUserUnsupportedError,
    sandboxenv,
)
from typing_extensions import override

from verifierbench.core import safe_fs
from verifierbench.executor import memcg, process, uid_range
from verifierbench.executor.bwrap import Bind, hosts_file
from verifierbench.executor.isolation import IsolationLevel, resolve_isolation, running_as_root
from verifierbench.executor.limits import Limits
from verifierbench.executor.layout import LIBRARY_ROOT as VGB_LIB, PUBLIC_DIR
from verifierbench.sources.formats.registry import sample_public_format
from verifierbench.public_env.service import SOCKET_NAME, PublicService
from verifierbench.sandboxes import IN_SANDBOX_LIB

SANDBOX_TYPE = "vgb"  # what eval logs record as the sample's sandbox
WORKSPACE = "/workspace"
OUTPUT_LIMIT = SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE  # per stream, the end kept (Inspect's documented behaviour)
READ_LIMIT = SandboxEnvironmentLimits.MAX_READ_FILE_SIZE  # read_file: then OutputLimitExceededError
# Generation commands get more room than one verifier run: agents run tests and installs of stdlib code.
GENERATION_LIMITS = Limits(timeout_s=600, memory_bytes=4 << 30, sandbox_memory_bytes=4 << 30, max_processes=256, max_file_bytes=256 << 20, max_open_files=1024,
                           shm_bytes=64 << 20)

WORKSPACE_MB = int(os.environ.get("VERIFIERBENCH_WORKSPACE_MB", "1024"))
ROOT_PREFIX = "verifierbench-sample-"
MOUNT_SOURCE = "vgb-workspace"
logger = logging.getLogger(__name__)

_uids = itertools.count()
_uid_lock = threading.Lock()


def _next_uid() -> int:
    if not running_as_root():
        return os.getuid()
    with _uid_lock:
        # In this harness process's own uid range (executor.uid_range), apart from the executor's slot uids.
        return uid_range.base() + uid_range.GENERATION_OFFSET + next(_uids) % (uid_range.RANGE_SIZE - uid_range.GENERATION_OFFSET)


@sandboxenv(name=SANDBOX_TYPE)
class VgbSandboxEnvironment(SandboxEnvironment):
    """One sample's sandbox: a host directory plus the bubblewrap settings to enter it."""

    @classmethod
    @override
    def default_concurrency(cls) -> int | None:
        return 2 * (os.cpu_count() or 1)

    @classmethod
    @override
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        """Once per task, before any sample: refuses (with the reason) when bubblewrap cannot run here, and
        removes the workspaces that killed harness processes left (sweep_stale_workspaces).

        Args:
            task_name: the task about to run.
            config: the sandbox config (vgb takes none).
        """
        resolve_isolation("auto")
        swept = sweep_stale_workspaces()
        if swept:
            logger.info("vgb sandbox: removed %d workspace(s) of harness processes that no longer exist", len(swept))

    @classmethod
    @override
    async def cli_cleanup(cls, id: str | None) -> None:
        """`inspect sandbox cleanup vgb`: removes the workspaces of harness processes that no longer exist. A
        running harness's workspaces are its own (its sample cleanup removes them), so they stay, whatever `id`.

        Args:
            id: the environment Inspect names, if any (vgb keeps no environment beyond its process).
        """
        swept = sweep_stale_workspaces()
        print(f"vgb sandbox: removed {len(swept)} stale workspace(s)" + "".join(f"\n  {root}" for root in swept))

    @classmethod
    @override
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        level = resolve_isolation("auto")  # task_init probed bubblewrap already; the probe's answer is cached

        def make() -> VgbSandboxEnvironment:
            public, read_only = _task_environment(metadata)
            return cls(level, task_type=str(metadata.get("task_type", "")), public=public, read_only=read_only)

        # In a thread: the suite's loading and the workspace's mount are not the event loop's (every other sample's) time.
        return {"default": await asyncio.to_thread(make)}

    @classmethod
    @override
    async def sample_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment], interrupted: bool) -> None:
        for environment in environments.values():
            # In a thread: the unmount and the workspace's removal must not stall every other sample (issue 51).
            await asyncio.to_thread(environment.as_type(VgbSandboxEnvironment).remove)

    def __init__(self, level: IsolationLevel, task_type: str = "", limits: Limits = GENERATION_LIMITS,
                 public: PublicService | None = None, read_only: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__()
        self.read_only = read_only  # (host path, sandbox path): a code task's checkout at /repo
        self.public = public  # the task's run_public service (state tasks): tools and sandboxed code share its budget
        self.level = level
        self.limits = limits
        self.task_type = task_type
        self.uid = _next_uid()
        base = Path(os.environ.get("VERIFIERBENCH_WORKDIR") or tempfile.gettempdir())
        # The pid in the name lets a later run clean up after a harness that was killed (sweep_stale_workspaces).
        self.root = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-", dir=base))
        os.chmod(self.root, 0o755)
        self.hosts = hosts_file(self.root)  # each command's /etc/hosts (it has its own loopback: bwrap's network namespace)
        self.workspace = self.root / "workspace"
        self.workspace.mkdir(mode=0o700)
        self.capped = self._mount_capped_workspace()
        self._own(self.workspace)

    def _mount_capped_workspace(self) -> bool:
        if not running_as_root():
            return False
        options = f"size={WORKSPACE_MB}m,mode=0700,uid={self.uid},gid={self.uid},nosuid,nodev"
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", options, MOUNT_SOURCE, str(self.workspace)], capture_output=True, text=True)
        if result.returncode != 0:
            logger.warning("vgb sandbox: /workspace is not size-capped (mount failed: %s)", result.stderr.strip())
            return False
        return True

    def remove(self) -> None:
        """Stops the sample's service (at once: a request still running has its worker killed) and removes the
        workspace. Blocking: sample_cleanup runs it in a thread."""
        if self.public is not None:
            self.public.stop()
        if self.capped:
            subprocess.run(["umount", "-l", str(self.workspace)], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)
        memcg.forget(self.uid)  # its memory cgroup (one per sandbox uid, executor.memcg); the uid is not reused soon

    # -- exec -------------------------------------------------------------------------------

    @override
    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        return await self.exec_with_binds(cmd, (), input, cwd, env, user, timeout)

    async def exec_with_binds(self, cmd: list[str], binds: tuple[Bind, ...], input: str | bytes | None = None,
                              cwd: str | None = None, env: dict[str, str] | None = None, user: str | None = None,
                              timeout: int | None = None) -> ExecResult[str]:
        """`exec`, with `binds` (host paths, read-only ones only) mounted for this command alone: harness/pi_vgb.py's
        toolchain and bridge socket. Bubblewrap only: the degraded mode has no mounts to give."""
        if any(bind.writable for bind in binds):
            raise PermissionError("exec_with_binds mounts read-only paths only")
        if binds and self.level is not IsolationLevel.bwrap:
            raise PermissionError("exec_with_binds needs bubblewrap isolation")
        if user not in (None, "", "root", "agent"):
            raise SandboxUserUnsupportedError(f"the vgb sandbox runs every command as its one unprivileged user, not {user!r}")
        inside_cwd = self._inside_path(cwd or WORKSPACE)
        environment = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": WORKSPACE,
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONPATH": VGB_LIB,
            "VGB_TASK_TYPE": self.task_type,
            **(self._public_env(self.public) if self.public else {}),
            **(env or {}),
        }
        data = input.encode() if isinstance(input, str) else input
        returncode, stdout, stderr = await process.run_async(self._command(cmd, environment, str(inside_cwd), binds), self.level, self.uid,
                                                             str(self.root), data, timeout or self.limits.timeout_s, OUTPUT_LIMIT)
        return ExecResult(success=returncode == 0, returncode=returncode,
                          stdout=stdout.decode("utf-8", errors="replace"), stderr=stderr.decode("utf-8", errors="replace"))

    def _command(self, cmd: list[str], environment: dict[str, str], cwd: str, extra: tuple[Bind, ...] = ()) -> process.Command:
        if self.level is IsolationLevel.bwrap:
            binds = [Bind(str(self.workspace), WORKSPACE, writable=True), Bind(str(IN_SANDBOX_LIB), VGB_LIB)]
            if self.public is not None:
                binds.append(Bind(str(self.public.directory), PUBLIC_DIR))
            binds += [Bind(host, inside) for host, inside in self.read_only]
            binds.append(Bind(self.hosts, "/etc/hosts"))
            binds += extra
            return process.Command(cmd, environment, self.limits, binds, chdir=cwd)
        # degraded mode, opted into by the user: real paths, rlimits only
        return process.Command(cmd, {**environment, "HOME": str(self.workspace), "PYTHONPATH": str(IN_SANDBOX_LIB)}, self.limits)

    def _public_env(self, public: PublicService) -> dict[str, str]:
        inside = PUBLIC_DIR if self.level is IsolationLevel.bwrap else str(public.directory)
        return {"VGB_PUBLIC_SOCKET": f"{inside}/{SOCKET_NAME}"}

    # -- files ------------------------------------------------------------------------------

    @override
    async def write_file(self, file: str, contents: str | bytes) -> None:
        parts = self._relative_parts(file)
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        owner = self.uid if running_as_root() else None
        # In a thread: the event loop (every other sample) never waits on this sample's file system.
        await asyncio.to_thread(safe_fs.write_below, self.workspace, parts, data, owner)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    @override
    async def read_file(self, file: str, text: bool = True) -> Union[str, bytes]:
        parts = self._relative_parts(file)
        try:
            data = await asyncio.to_thread(safe_fs.read_below, self.workspace, parts, READ_LIMIT)
        except FileNotFoundError:
            raise FileNotFoundError(f"{file}: no such file in the sandbox") from None
        except safe_fs.FileTooLarge:
            from inspect_ai.util import OutputLimitExceededError

            raise OutputLimitExceededError(limit_str=SandboxEnvironmentLimits.MAX_READ_FILE_SIZE_STR, truncated_output=None) from None
        return data.decode("utf-8") if text else data

    # -- paths ------------------------------------------------------------------------------

    def _inside_path(self, path: str) -> PurePosixPath:
        inside = PurePosixPath(path)
        return inside if inside.is_absolute() else PurePosixPath(WORKSPACE) / inside

    def _relative_parts(self, file: str) -> list[str]:
        """The components of `file` below /workspace; the walk (safe_fs) refuses links on the way."""
        inside = self._inside_path(file)
        try:
            relative = inside.relative_to(WORKSPACE)
        except ValueError:
            raise PermissionError(f"{file}: read_file and write_file reach {WORKSPACE} only") from None
        if ".." in relative.parts:
            raise PermissionError(f"{file}: '..' is not allowed")
        return list(relative.parts)

    def _own(self, path: Path) -> None:
        if running_as_root():
            os.lchown(path, self.uid, self.uid)


def _task_environment(metadata: dict[str, Any]) -> tuple[PublicService | None, tuple[tuple[str, str], ...]]:
    """The sample's run_public service (started: its socket is bound into every command), and its read-only inputs."""
    service, read_only = task_environment(metadata)
    return (service.start() if service is not None else None), read_only


def task_environment(metadata: dict[str, Any]) -> tuple[PublicService | None, tuple[tuple[str, str], ...]]:
    """The sample's run_public service, not yet started, when its task has a public environment, and its
    read-only inputs. Container sandboxes serve it through harness/public_channel.py instead of the socket."""
    if sample_public_format(metadata) is None or not metadata.get("suite_dir"):
        return None, ()
    from verifierbench.suite.resolver import open_suite
    from verifierbench.public_env.registry import has_environment, read_only_inputs, recipe_for, request_timeout

    _, suite = open_suite(str(metadata["suite_dir"]))
    task = suite.tasks.get(str(metadata.get("task_id")))
    if task is None or not has_environment(task):
        return None, ()
    return (PublicService(recipe_for(task), int(metadata.get("run_public_budget", 20)), request_timeout(task)),
            read_only_inputs(task))


def sweep_stale_workspaces() -> list[str]:
    """Unmounts and removes the capped workspaces of harness processes that no longer exist (killed
    before their sample cleanup ran). Returns the roots removed."""
    if not running_as_root():
        return []
    removed = []
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return []
    for line in mounts:
        fields = line.split()
        if len(fields) < 2 or fields[0] != MOUNT_SOURCE:
            continue
        root = Path(fields[1].replace("\\040", " ")).parent
        owner = root.name[len(ROOT_PREFIX):].split("-", 1)[0] if root.name.startswith(ROOT_PREFIX) else ""
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            subprocess.run(["umount", "-l", fields[1]], capture_output=True)
            shutil.rmtree(root, ignore_errors=True)
            removed.append(str(root))
    return removed
