"""One empty network namespace per executor slot, made once, that the slot's sandboxes join.

bubblewrap's `--unshare-net` creates and tears down a network namespace per run; that was most of
a case's system time, and the kernel's namespace cleanup worker backs up in long runs. Instead the
harness (root only) makes one namespace per slot when the executor starts and spawns each sandbox
from inside it (`--share-net`). The namespace has only a loopback device, and it is down: nothing is
reachable, not even the namespace's own 127.0.0.1. The sandbox's own user namespace holds no
capability over it, so code inside cannot bring the loopback up.

Why one per slot, not one for all: abstract unix sockets are scoped to a network namespace, so two
cases running at once in one shared namespace could talk through them. A slot runs one case at a
time, and a case's pid namespace dies with it (every socket closed) before the slot's next case.

setns() and unshare() act on the calling thread only, so entering a namespace to spawn one process
leaves the harness's other threads on the host network.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import threading
from contextlib import contextmanager
from typing import Iterator

from verifierbench.executor.isolation import running_as_root

CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
IFF_UP = 0x1

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def supported() -> bool:
    """Creating and entering namespaces needs CAP_SYS_ADMIN: the harness runs as root."""
    return running_as_root()


def create() -> int:
    """A descriptor of a new, empty network namespace whose loopback is down; the caller closes it."""
    made: dict[str, int | BaseException] = {}

    def in_thread() -> None:  # the thread ends in the new namespace: no need to leave it
        try:
            _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
            if loopback_is_up():
                raise OSError("a new network namespace came with its loopback up")
            made["fd"] = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            made["error"] = exc

    thread = threading.Thread(target=in_thread, name="vgb-netns")
    thread.start()
    thread.join()
    if "error" in made:
        raise made["error"]  # type: ignore[misc]
    return made["fd"]  # type: ignore[return-value]


def loopback_is_up() -> bool:
    """Whether `lo` is up in the calling thread's network namespace."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(probe.fileno(), SIOCGIFFLAGS, request))[1]
    return bool(flags & IFF_UP)


@contextmanager
def entered(namespace_fd: int | None) -> Iterator[None]:
    """Runs the block (a process spawn) with the calling thread in the namespace, then returns it home.

    Args:
        namespace_fd: from `create()`; None runs the block where the thread is (bwrap makes its own namespace).
    """
    if namespace_fd is None:
        yield
        return
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    try:
        _check(_libc.setns(namespace_fd, CLONE_NEWNET), "setns into the sandbox network namespace")
        try:
            yield
        finally:
            _check(_libc.setns(home, CLONE_NEWNET), "setns back to the harness's network namespace")
    finally:
        os.close(home)



def unix_socket_table(namespace_fd: int) -> int:
    """A descriptor of the namespace's unix socket table (`/proc/net/unix` as seen from inside it); the caller closes it.

    A slot's namespace should hold no unix socket between runs: every socket a run made closes with its processes. One
    that outlives them is a socket kept alive only by its own descriptor in flight (bound to an abstract name, sent to
    itself with SCM_RIGHTS, closed), which the kernel frees only when its unix garbage collector next runs; until then
    the next case on the slot could connect to the name (one bit per name). The executor checks the table after each
    run (`unix_sockets_left`) and replaces such a namespace (`runner.Executor.slot_network`). The table read through
    this descriptor stays the namespace's, so a check needs no setns (about 60 us).
    """
    with entered(namespace_fd):
        return os.open("/proc/thread-self/net/unix", os.O_RDONLY | os.O_CLOEXEC)


def unix_sockets_left(table_fd: int) -> bool:
    """Whether the table (`unix_socket_table`) lists any socket: a line past its header."""
    return os.pread(table_fd, 4096, 0).count(b"\n") > 1
