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


def open_dir(path: str | os.PathLike[str]) -> int:
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


def read_below(root: str | os.PathLike[str], parts: list[str], limit: int) -> bytes:
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


def write_below(root: str | os.PathLike[str], parts: list[str], data: bytes, owner: int | None = None) -> None:
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


def read_named_file(path: str | os.PathLike[str], limit: int) -> bytes:
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


# -- stores: the directories the project keeps between runs (environments, checkouts, run cache, ...) ------------------

MAX_LINKS = 40  # as the kernel's limit on links followed in one lookup


class UntrustedStore(UnsafePath):
    """A store, or a directory on its way, that someone other than this user (or root) could have made or can change."""


def _owner_name(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (KeyError, ImportError):
        return f"uid {uid}"


def trusted_store(path: str | os.PathLike[str], create: bool = True) -> str:
    """The store directory `path`, made (0755) when missing, once it is safe to trust what it holds; its canonical path.

    Every directory from / down is opened without following links (O_NOFOLLOW, one component at a time from the last
    one's descriptor). Each on the way must belong to root or to this user and be writable by no one else, except
    a sticky one (/tmp, /var/tmp), where others cannot rename or delete what is not theirs; the store itself must be
    this user's (or root's: a non-root harness may use what root made) and writable by no one else. A link on the way is followed only when it is root's or this user's
    (its target is then walked the same way). Anything else is refused with UntrustedStore naming the path and its
    owner: a store another local user made first (in /var/tmp, say) could hold planted entries or links.
    """
    me = os.geteuid()
    pending = [part for part in os.path.abspath(os.fspath(path)).split("/") if part]
    walked: list[str] = []
    links = 0
    fd = os.open("/", DIR_FLAGS)
    try:
        _check_store_dir(os.fstat(fd), "/", me, last=not pending)
        while pending:
            part = pending.pop(0)
            here = "/" + "/".join([*walked, part])
            try:
                info = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                info = os.stat(part, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                if info.st_uid not in (0, me):
                    raise UntrustedStore(f"store {os.fspath(path)}: {here} is a link owned by {_owner_name(info.st_uid)}")
                links += 1
                if links > MAX_LINKS:
                    raise UntrustedStore(f"store {os.fspath(path)}: too many links on the way")
                target = os.readlink(part, dir_fd=fd)
                if target.startswith("/"):
                    walked = []
                    os.close(fd)
                    fd = os.open("/", DIR_FLAGS)
                pending = [p for p in target.split("/") if p] + pending
                continue
            if part == "..":
                walked = walked[:-1]
            elif part != ".":
                walked.append(part)
            child = _open_child_dir(fd, part)
            os.close(fd)
            fd = child
            _check_store_dir(os.fstat(fd), here, me, last=not pending)
        return "/" + "/".join(walked)
    finally:
        os.close(fd)


def _check_store_dir(info: os.stat_result, where: str, me: int, last: bool) -> None:
    if not stat.S_ISDIR(info.st_mode):
        raise UntrustedStore(f"{where} is {kind(info.st_mode)}, not a directory")
    if last and info.st_uid not in (me, 0):
        raise UntrustedStore(f"store {where} is owned by {_owner_name(info.st_uid)}, not by {_owner_name(me)}; "
                             "remove it or choose another place")
    if info.st_uid not in (0, me):
        raise UntrustedStore(f"store path {where} is owned by {_owner_name(info.st_uid)}; choose a place of root's or yours")
    if info.st_mode & 0o022 and (last or not info.st_mode & stat.S_ISVTX):
        raise UntrustedStore(f"store path {where} (owned by {_owner_name(info.st_uid)}) is writable by "
                             f"{'group and others' if info.st_mode & 0o022 == 0o022 else 'group' if info.st_mode & 0o020 else 'others'}"
                             "; choose another place or `chmod go-w` it")


def trusted_entry(store: str | os.PathLike[str], name: str) -> os.stat_result | None:
    """lstat of the entry `name` of a trusted store, or None when absent; UntrustedStore when it is a link, or not
    this user's, or writable by group or others (never made by us: someone else planted it)."""
    check_name(name)
    try:
        info = os.lstat(os.path.join(os.fspath(store), name))
    except FileNotFoundError:
        return None
    where = os.path.join(os.fspath(store), name)
    if stat.S_ISLNK(info.st_mode) or not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
        raise UntrustedStore(f"store entry {where} is {kind(info.st_mode)}, not a file or directory we made")
    if info.st_uid != os.geteuid():
        raise UntrustedStore(f"store entry {where} is owned by {_owner_name(info.st_uid)}, not by {_owner_name(os.geteuid())}")
    if info.st_mode & 0o022:
        raise UntrustedStore(f"store entry {where} (owned by {_owner_name(info.st_uid)}) is writable by group or others")
    return info


def open_store_file(store: str | os.PathLike[str], name: str, flags: int = os.O_RDWR | os.O_CREAT, mode: int = 0o600) -> int:
    """A descriptor for the regular file `name` directly in a trusted store (a lock, a log): never through a link
    (a planted `.key.lock -> /etc/shadow` would otherwise be truncated by root), and only when it is this user's."""
    check_name(name)
    dir_fd = open_dir(store)
    try:
        try:
            fd = os.open(name, flags | FILE_FLAGS, mode, dir_fd=dir_fd)
        except OSError as exc:
            raise _refusal(exc, dir_fd, name) from None
    finally:
        os.close(dir_fd)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        os.close(fd)
        raise UntrustedStore(f"store file {os.path.join(os.fspath(store), name)} is {kind(info.st_mode) if not stat.S_ISREG(info.st_mode) else 'a file'} "
                             f"owned by {_owner_name(info.st_uid)}, mode {stat.S_IMODE(info.st_mode):o}: not one we made")
    return fd
