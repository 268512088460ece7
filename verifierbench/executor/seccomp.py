"""A seccomp filter for sandboxed code: it refuses (EPERM) the calls that hold host memory outside
every cap we set, and the kernel's key store. RLIMIT_AS counts what a process maps, not memfd files
it writes to, SysV shared memory it has detached or SysV message queues; tmpfs sizes cap the rest.
Keys (add_key, request_key, keyctl, as Docker's default profile refuses them) live in keyrings that
outlast the process: the user keyring is per uid and user namespace, so a warm sandbox's cases (one
user namespace) would share it (issue 51), and the session keyring is inherited from whoever started
bubblewrap. Everything else is allowed, and code for another ABI (32-bit, x32) is refused outright.

The program is classic BPF, passed to bubblewrap through a descriptor (`--seccomp FD`).
"""

from __future__ import annotations

import functools
import os
import platform
import struct

LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS: load a 32-bit field of struct seccomp_data
JUMP_EQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JUMP_GE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
RETURN = 0x06  # BPF_RET | BPF_K
ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
DENY = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
NR_OFFSET, ARCH_OFFSET = 0, 4

# machine: (AUDIT_ARCH_*, the refused calls' numbers, first x32 number or None); the numbers are
# asm/unistd_64.h's (x86_64) and asm-generic/unistd.h's (aarch64)
ARCHES = {
    "x86_64": (0xC000003E, {"memfd_create": 319, "shmget": 29, "msgget": 68, "add_key": 248, "request_key": 249,
                            "keyctl": 250}, 0x40000000),
    "aarch64": (0xC00000B7, {"memfd_create": 279, "shmget": 194, "msgget": 186, "add_key": 217, "request_key": 218,
                             "keyctl": 219}, None),
}


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


@functools.lru_cache(maxsize=1)
def program() -> bytes | None:
    """The filter for this machine, or None where we do not know the call numbers."""
    arch = ARCHES.get(platform.machine())
    if arch is None:
        return None
    audit_arch, numbers, x32 = arch
    checks = [(JUMP_GE, x32)] if x32 is not None else []
    checks += [(JUMP_EQ, number) for number in sorted(numbers.values())]
    code = [_insn(LOAD_WORD, ARCH_OFFSET), _insn(JUMP_EQ, audit_arch, jt=1), _insn(RETURN, DENY), _insn(LOAD_WORD, NR_OFFSET)]
    for i, (op, value) in enumerate(checks):
        code.append(_insn(op, value, jt=len(checks) - i))  # a match jumps past the other checks and ALLOW
    code += [_insn(RETURN, ALLOW), _insn(RETURN, DENY)]
    return b"".join(code)


def filter_fd() -> int | None:
    """A fresh descriptor holding the program (bubblewrap reads it to the end); the caller closes it."""
    data = program()
    if data is None:
        return None
    fd = os.memfd_create("vgb-seccomp", os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
