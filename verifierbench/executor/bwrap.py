"""The bubblewrap command line: a minimal read-only root, no network, tmpfs scratch."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from verifierbench.executor.staging import reachable

# Only what an interpreter needs; nothing under /run, /tmp, /root or $HOME (host sockets, secrets).
SYSTEM_RO = ("/usr", "/etc/ld.so.cache", "/etc/alternatives")
MERGED_USR_LINKS = {"/bin": "usr/bin", "/sbin": "usr/sbin", "/lib": "usr/lib", "/lib64": "usr/lib64"}


# /etc/hosts of a sandbox with a loopback of its own (code tasks: tests that start a local server look up localhost).
HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"


def hosts_file(directory: "os.PathLike[str] | str") -> str:
    """`directory`/hosts holding HOSTS (world-readable), to bind read-only at /etc/hosts; written to a staging file of
    its own and renamed, so concurrent callers each see a whole file."""
    path = os.path.join(directory, "hosts")
    if not os.path.isfile(path):
        fd, staging = tempfile.mkstemp(prefix=".hosts-", dir=directory)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(HOSTS)
        os.chmod(staging, 0o644)
        os.replace(staging, path)
    return path


@dataclass(frozen=True)
class Bind:
    source: str
    dest: str
    writable: bool = False


def sandbox_command(argv: list[str], binds: list[Bind], env: dict[str, str], scratch_bytes: int = 64 << 20,
                    chdir: str = "/tmp", shm_bytes: int = 16 << 20, seccomp_fd: int | None = None,
                    join_network: bool = False, keep_sys_admin: bool = False) -> list[str]:
    """The bwrap argv that runs `argv` sandboxed.

    Args:
        join_network: keep the network namespace bwrap is started in (executor.netns: an empty one
            with its loopback down, made once per slot) instead of creating a fresh one.
        keep_sys_admin: keep CAP_SYS_ADMIN (and CAP_SETPCAP, to empty the bounding set) in the sandbox's
            own user namespace, for the warm fork server (executor.warm_server), which gives each case
            fresh namespaces and then drops both.
    """
    cmd = [
        "bwrap",
        "--unshare-all",  # user, ipc, pid, net, uts, cgroup: no network at all, loopback included
        *(["--share-net"] if join_network else []),
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",  # no reaper zombie counting against the process limit
        "--cap-drop", "ALL",
        *(["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"] if keep_sys_admin else []),
        "--clearenv",
        "--hostname", "sandbox",
    ]
    for path in SYSTEM_RO:
        if os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    for link, target in MERGED_USR_LINKS.items():
        if os.path.islink(link):
            cmd += ["--symlink", target, link]
        elif os.path.isdir(link):
            cmd += ["--ro-bind", link, link]
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    # --dev's /dev is a tmpfs sized at half the host's RAM: read-only, with a small tmpfs for /dev/shm.
    # The device nodes are mounts of their own and stay usable.
    cmd += ["--perms", "1777", "--size", str(shm_bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    cmd += ["--size", str(scratch_bytes), "--tmpfs", "/tmp"]
    for bind in binds:  # a source under a directory the sandbox uid cannot search is bound from its staged copy
        cmd += ["--bind" if bind.writable else "--ro-bind", reachable(bind.source, bind.writable), bind.dest]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    if seccomp_fd is not None:  # executor.seccomp: the calls that hold memory outside every cap
        cmd += ["--seccomp", str(seccomp_fd)]
    cmd += ["--remount-ro", "/", "--chdir", chdir, "--"]
    return cmd + argv
