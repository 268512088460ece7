"""Capped tmpfs mounts on the host for directories that sandboxed code writes (root only): a full
one says ENOSPC to the writer instead of filling the host's disk. And the sweep of the mounts a
killed harness left behind."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

logger = logging.getLogger(__name__)


def mount(path: Path, size_bytes: int, inodes: int, uid: int, source: str) -> bool:
    """Mounts a tmpfs of at most `size_bytes` and `inodes` files at `path`, owned by `uid`."""
    options = f"size={size_bytes},nr_inodes={inodes},mode=0700,uid={uid},gid={uid},nosuid,nodev,noexec"
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", options, source, str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        logger.warning("%s is not size-capped (mount failed: %s)", path, result.stderr.strip())
        return False
    return True


def unmount(path: str | Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def mount_points(source: str) -> list[str]:
    """Where tmpfs mounts named `source` are mounted."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return []
    return [fields[1].replace("\\040", " ") for fields in map(str.split, lines) if len(fields) > 1 and fields[0] == source]


def owner_alive(name: str, prefix: str) -> bool:
    """Whether the process whose pid follows `prefix` in a directory name still exists."""
    owner = name[len(prefix):].split("-", 1)[0] if name.startswith(prefix) else ""
    return not owner.isdigit() or os.path.exists(f"/proc/{owner}")
