"""An executor's private work directory on the host: staged verifiers and each slot's directories.

<root>/verifiers/<n>/ holds the staged verifiers (executor.staging), <root>/slots/<n>/ a slot's in/ (the candidate,
read-only inside), out/ (/output: the result) and scratch/, and <root>/hosts the loopback runs' /etc/hosts. The root
is named after the harness's pid (ROOT_PREFIX), so a later harness can sweep what a killed one left mounted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from verifierbench.core.errors import UserError
from verifierbench.executor import tmpfs
from verifierbench.executor.bwrap import hosts_file
from verifierbench.executor.isolation import IsolationLevel, running_as_root
from verifierbench.executor.limits import Limits

ROOT_PREFIX = "verifierbench-exec-"  # then the harness's pid, so a later run can sweep a killed one's mounts
OUTPUT_SOURCE = "vgb-output"  # the name of the slots' /output tmpfs mounts
WORKDIR_ENV = "VERIFIERBENCH_WORKDIR"


class WorkDirs:
    """One executor's root (readable by the sandbox uids) and its slots' directories, made when first used."""

    def __init__(self, base: "str | os.PathLike[str] | None", level: IsolationLevel, limits: Limits) -> None:
        """Makes the root under `base` (default: $VERIFIERBENCH_WORKDIR, else the system's temporary directory),
        after sweeping the roots of harnesses that no longer exist.

        Raises:
            UserError: the sandbox uids cannot reach `base`.
        """
        base_path = Path(base or os.environ.get(WORKDIR_ENV) or tempfile.gettempdir())
        require_traversable(base_path)
        sweep_stale_outputs()
        self.level, self.limits = level, limits
        self.root = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-", dir=base_path))
        os.chmod(self.root, 0o755)
        self.hosts = hosts_file(self.root)  # /etc/hosts of loopback runs (Job.loopback)
        self.mounts: list[str] = []  # the slots' /output tmpfs mounts, unmounted before the root goes (`remove`)

    @property
    def verifiers(self) -> Path:
        """Where the staged verifiers go (executor.staging.VerifierStage)."""
        return self.root / "verifiers"

    def slot_dir(self, slot: int, uid: int) -> Path:
        """A slot's directories, made once: in/ (read-only inside), out/ and scratch/ (the slot uid's).

        As root, out/ (the sandbox's /output) is a tmpfs capped in bytes and files, so a verifier
        cannot fill the host's disk through it; otherwise only each file is capped (RLIMIT_FSIZE).

        Args:
            slot: the slot's number.
            uid: the slot's sandbox uid, which owns out/ and scratch/.
        """
        run_dir = self.root / "slots" / str(slot)
        if not run_dir.exists():
            for name, mode in (("in", 0o755), ("out", 0o700), ("scratch", 0o700)):
                (run_dir / name).mkdir(parents=True)
                if name != "in" and running_as_root():
                    os.chown(run_dir / name, uid, uid)
                os.chmod(run_dir / name, mode)
            if running_as_root() and self.level is IsolationLevel.bwrap:
                out = run_dir / "out"
                if tmpfs.mount(out, self.limits.output_bytes, self.limits.output_files, uid, OUTPUT_SOURCE):
                    self.mounts.append(str(out))
            os.chmod(run_dir, 0o755)
            os.chmod(run_dir.parent, 0o755)
        return run_dir


def remove(root: str, mounts: list[str]) -> None:
    """Unmounts a root's slot mounts and removes it (an executor's finalizer: takes no WorkDirs)."""
    for mount_point in mounts:
        tmpfs.unmount(mount_point)
    shutil.rmtree(root, ignore_errors=True)


def sweep_stale_outputs() -> list[str]:
    """Unmounts the slots' /output mounts of harnesses that no longer exist and removes their roots."""
    if not running_as_root():
        return []
    removed = []
    for mount_point in tmpfs.mount_points(OUTPUT_SOURCE):
        root = Path(mount_point).parents[2]  # <root>/slots/<n>/out
        if root.name.startswith(ROOT_PREFIX) and not tmpfs.owner_alive(root.name, ROOT_PREFIX):
            tmpfs.unmount(mount_point)
            shutil.rmtree(root, ignore_errors=True)
            removed.append(str(root))
    return removed


def require_traversable(base: Path) -> None:
    """The sandbox uid must reach files under the work directory: every ancestor needs o+x."""
    if not running_as_root():
        return
    for part in [base.resolve(), *base.resolve().parents]:
        if not os.stat(part).st_mode & 0o001:
            raise UserError(f"work directory {base}: {part} is not searchable by other users; choose another with {WORKDIR_ENV}")


def clear(directory: Path) -> None:
    """Empties a directory without following links the sandbox may have planted."""
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)


def tail(path: Path, limit: int) -> str:
    """The last `limit` bytes of a file (a run's stderr), decoded leniently."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - limit))
        return handle.read().decode("utf-8", errors="replace")
