"""Host-side file access below a directory that untrusted code can change (a sample's workspace, a
verifier's output, a verifier handed to us), done as root without being led astray.

Paths are walked one component at a time from a directory descriptor (openat with O_NOFOLLOW), so
a link planted anywhere on the way is refused, never followed, and nothing is created or chowned
before the whole way has been checked. A file is used only after fstat on its own descriptor says
it is a regular file: it is opened non-blocking, so a FIFO cannot stall the caller, and read with a
cap, so /dev/zero or a growing file cannot exhaust memory.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Iterable

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class UnsafePath(PermissionError):
    """A link, a FIFO, device or socket, or a '..' where a plain file or directory was expected."""


class FileTooLarge(OSError):
    def __init__(self, name: str, limit: int) -> None:
        super().__init__(errno.EFBIG, f"{name}: larger than {limit} bytes")
        self.limit = limit


def kind(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "a special file"


def check_name(name: str) -> None:
    if name in ("", ".", "..") or "/" in name or "\0" in name:
        raise UnsafePath(f"{name!r}: not a plain path component")


def open_dir(path: str | os.PathLike) -> int:
    """A descriptor for a trusted directory (ours), the start of every walk."""
    return os.open(path, DIR_FLAGS)


def walk(root_fd: int, parts: Iterable[str], create: bool = False, owner: int | None = None) -> int:
    """A new descriptor for the directory `parts` below `root_fd`. With `create`, missing directories
    are made, and given to `owner` (uid and gid) through their descriptor, never through a path."""
    fd = os.dup(root_fd)
    try:
        for part in parts:
            check_name(part)
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass  # made meanwhile (by the sandbox?): opened below like any other, links refused
                child = _open_child_dir(fd, part)
                if owner is not None:
                    os.fchown(child, owner, owner)
            except OSError as exc:
                raise _refusal(exc, fd, part) from None
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def _open_child_dir(fd: int, part: str) -> int:
    try:
        return os.open(part, DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        raise _refusal(exc, fd, part) from None


def _refusal(exc: OSError, dir_fd: int, name: str) -> OSError:
    """The error to raise for a failed open of `name`: links and special files named as such."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENXIO, errno.EISDIR):
        try:
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except OSError:
            return exc
        if stat.S_ISDIR(mode) and exc.errno == errno.EISDIR:
            return IsADirectoryError(f"{name} is a directory")
        if stat.S_ISREG(mode) and exc.errno == errno.ENOTDIR:
            return NotADirectoryError(f"{name} is not a directory")
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            return UnsafePath(f"{name} is {kind(mode)}, not a regular file or directory")
    return exc


def open_regular(dir_fd: int, name: str, write: bool = False, mode: int = 0o644) -> int:
    """A descriptor for the regular file `name` in `dir_fd` (created when writing), or UnsafePath."""
    check_name(name)
    try:
        existing = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        if not write:
            raise
        existing = None
    if existing is not None and stat.S_ISDIR(existing):
        raise IsADirectoryError(f"{name} is a directory")
    if existing is not None and not stat.S_ISREG(existing):  # checked before opening: no open of a device at all
        raise UnsafePath(f"{name} is {kind(existing)}, not a regular file")
    flags = FILE_FLAGS | (os.O_WRONLY | os.O_CREAT if write else os.O_RDONLY)
    try:
        fd = os.open(name, flags, mode, dir_fd=dir_fd)
    except OSError as exc:
        raise _refusal(exc, dir_fd, name) from None
    found = os.fstat(fd).st_mode
    if not stat.S_ISREG(found):  # replaced between the check and the open
        os.close(fd)
        raise UnsafePath(f"{name} is {kind(found)}, not a regular file")
    return fd


def read_regular(dir_fd: int, name: str, limit: int) -> bytes:
    fd = open_regular(dir_fd, name)
    with os.fdopen(fd, "rb") as handle:
        if os.fstat(fd).st_size > limit:
            raise FileTooLarge(name, limit)
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew while we read
        raise FileTooLarge(name, limit)
    return data


def write_regular(dir_fd: int, name: str, data: bytes, owner: int | None = None) -> None:
    fd = open_regular(dir_fd, name, write=True)
    with os.fdopen(fd, "wb") as handle:
        os.ftruncate(fd, 0)  # only now: never truncate what is not a regular file
        if owner is not None:
            os.fchown(fd, owner, owner)
        handle.write(data)


def read_below(root: str | os.PathLike, parts: list[str], limit: int) -> bytes:
    """The regular file at `parts` below the trusted directory `root`, at most `limit` bytes."""
    if not parts:
        raise IsADirectoryError(f"{os.fspath(root)} is a directory")
    root_fd = open_dir(root)
    try:
        parent = walk(root_fd, parts[:-1])
    finally:
        os.close(root_fd)
    try:
        return read_regular(parent, parts[-1], limit)
    finally:
        os.close(parent)


def write_below(root: str | os.PathLike, parts: list[str], data: bytes, owner: int | None = None) -> None:
    """Writes the regular file at `parts` below `root`, making missing directories (all for `owner`)."""
    if not parts:
        raise IsADirectoryError(f"{os.fspath(root)} is a directory")
    root_fd = open_dir(root)
    try:
        parent = walk(root_fd, parts[:-1], create=True, owner=owner)
    finally:
        os.close(root_fd)
    try:
        write_regular(parent, parts[-1], data, owner)
    finally:
        os.close(parent)


def read_named_file(path: str | os.PathLike, limit: int) -> bytes:
    """A file a user named (a candidate, a verifier): links on the way are theirs and followed, but it
    must be a regular file (not /dev/zero, not a FIFO) of at most `limit` bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        mode, size = os.fstat(fd).st_mode, os.fstat(fd).st_size
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"{os.fspath(path)} is a directory")
        if not stat.S_ISREG(mode):
            raise UnsafePath(f"{os.fspath(path)} is {kind(mode)}, not a regular file")
        if size > limit:
            raise FileTooLarge(os.fspath(path), limit)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(os.fspath(path), limit)
    return data
