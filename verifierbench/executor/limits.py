"""Per-run resource limits for untrusted code."""

from __future__ import annotations

from dataclasses import dataclass

GiB = 1 << 30
MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 60.0  # wall clock per case
    memory_bytes: int = 2 * GiB  # address space (RLIMIT_AS)
    # Everything one sandbox holds, its processes together, kernel and socket memory included (executor.memcg).
    sandbox_memory_bytes: int = 3 * GiB
    max_processes: int = 64  # per sandbox uid (RLIMIT_NPROC)
    max_file_bytes: int = 64 * MiB  # any one file written, stdout and stderr included (RLIMIT_FSIZE)
    max_open_files: int = 256
    scratch_bytes: int = 256 * MiB  # the tmpfs at /tmp
    shm_bytes: int = 16 * MiB  # the tmpfs at /dev/shm (the rest of /dev is read-only)
    output_bytes: int = 16 * MiB  # /output, a tmpfs when the harness runs as root (a result is at most 1 MiB)
    output_files: int = 256  # and its inodes
    stderr_tail_bytes: int = 4096  # how much of stderr the diagnostics keep

    def __post_init__(self) -> None:
        for name in ("timeout_s", "memory_bytes", "sandbox_memory_bytes", "max_processes", "max_file_bytes", "max_open_files", "scratch_bytes",
                     "shm_bytes", "output_bytes", "output_files"):
            if getattr(self, name) <= 0:
                raise ValueError(f"limit {name} must be positive")

    def prlimit_args(self) -> list[str]:
        """Arguments for util-linux `prlimit`, applied before the sandbox starts and inherited inside."""
        cpu = int(self.timeout_s) + 2  # CPU time backs up the wall-clock timeout
        return [
            f"--as={self.memory_bytes}",
            f"--nproc={self.max_processes}",
            f"--fsize={self.max_file_bytes}",
            f"--nofile={self.max_open_files}",
            f"--cpu={cpu}",
            "--core=0",
        ]
