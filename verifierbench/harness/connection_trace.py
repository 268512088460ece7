"""The connection check of the CLI harnesses: every address a CLI (and anything it starts) tries to reach.

In a network-none container a name lookup fails inside the container (its resolv.conf names the host's resolver,
unreachable) and a connect to an outside address fails with ENETUNREACH before any packet, so neither a packet
capture nor a loopback DNS stand-in sees every attempt; the system calls do. With VERIFIERBENCH_TRACE_CONNECTIONS=1
in the environment of the process running the eval, a CLI harness replaces its CLI's executable in the sample's
container by a wrapper that runs it under `strace -f` (connect, sendto, sendmsg, sendmmsg: TCP connects, DNS
queries over UDP, whether the socket is connected or not), and after the run stores the trace's lines that name
an address (TRACE_KEY) and the bridge ports (BRIDGE_PORTS_KEY) in the sample's store. `unexpected_destinations`
says which of them are not the bridge. It needs strace in the image: scripts/harness-trace-image.sh builds
`verifierbench-harness:trace` (select it with VERIFIERBENCH_HARNESS_IMAGE). See docs/docker.md.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import sandbox, store

TRACE_ENV = "VERIFIERBENCH_TRACE_CONNECTIONS"
TRACE_IMAGE_COMMAND = "scripts/harness-trace-image.sh"
TRACE_KEY = "verifierbench:connection_trace"  # store: the traced lines that name an address
BRIDGE_PORTS_KEY = "verifierbench:bridge_ports"  # store: the ports the sample's bridges listened on
TRACE_DIR = "/tmp/vgb-connections"
SYSCALLS = "connect,sendto,sendmsg,sendmmsg"
MAX_TRACE_LINES = 2000
# Where each harness's agent records its bridge's port in the store (inspect-swe's keys, and bridged_clis').
PORT_KEYS = ("claude_code_model_port", "codex_cli_model_port", "gemini_cli_model_port", "mini_swe_agent_model_port",
             "verifierbench:bridged_cli_port")
# Local sockets a traced process may reach, and why that is no way out of the sandbox.
ACCEPTED_UNIX_SOCKETS = {
    # glibc asks the name-service cache daemon first for every passwd/group/hosts lookup; the image runs none
    # (ENOENT). A host name lookup then goes on to the resolver, which shows as a port-53 destination.
    "/var/run/nscd/socket": "glibc's name-service cache (no daemon in the image)",
}


def trace_requested() -> bool:
    return os.environ.get(TRACE_ENV) == "1"


@solver
def traced_connections(executable: str, inner: Solver) -> Solver:
    """Runs `inner` (a CLI harness) with its CLI under strace when TRACE_ENV is set; else `inner` as it is.

    Args:
      executable: What the harness starts in the sandbox (its record's `traced_executable`: node for a JavaScript CLI).
      inner: The harness's solver.
    """
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if not trace_requested():
            return await inner(state, generate)
        await install_tracer(executable)
        try:
            return await inner(state, generate)
        finally:
            await collect_trace()

    return solve


def wrapper_script(real: str) -> str:
    """The wrapper that takes the executable's place: strace around the real one, unless already traced (a CLI that
    starts node again is followed by the strace above it, and a process can have one tracer only)."""
    trace = f'{TRACE_DIR}/$(basename "$0").$$'
    return "\n".join([
        "#!/bin/sh",
        "if grep -q '^TracerPid:[[:space:]]*0$' /proc/self/status; then",
        f"  exec strace -f -qq -yy -s 96 -e trace={SYSCALLS} -o \"{trace}\" {shlex.quote(real)} \"$@\"",
        "fi",
        f'exec {shlex.quote(real)} "$@"', ""])


async def install_tracer(executable: str) -> None:
    box = sandbox()
    if not (await box.exec(["sh", "-c", "command -v strace"])).success:
        raise RuntimeError(f"{TRACE_ENV}=1 needs strace in the sandbox image: build it with {TRACE_IMAGE_COMMAND} and "
                           "set VERIFIERBENCH_HARNESS_IMAGE=verifierbench-harness:trace")
    found = await box.exec(["sh", "-c", f"command -v {executable}"])
    path = found.stdout.strip()
    if not found.success or not path.startswith("/"):
        raise RuntimeError(f"{TRACE_ENV}=1: no `{executable}` on the sandbox's $PATH to trace")
    real = f"{path}.vgb-untraced"
    # As root (the image's /usr/local/bin is root's); the container is the sample's own.
    script = (f"mkdir -p {TRACE_DIR} && chmod 1777 {TRACE_DIR} && mv {shlex.quote(path)} {shlex.quote(real)} && "
              f"cat > {shlex.quote(path)} && chmod 755 {shlex.quote(path)}")
    result = await box.exec(["sh", "-c", script], input=wrapper_script(real), user="root")
    if not result.success:
        raise RuntimeError(f"{TRACE_ENV}=1: could not wrap {path}: {result.stderr.strip()}")


async def collect_trace() -> None:
    """Keeps the traced lines that name an address (TRACE_KEY) and the bridge ports (BRIDGE_PORTS_KEY)."""
    # Only the lines with an address leave the container (a CLI's HTTP writes can fill megabytes of trace).
    listed = await sandbox().exec(["sh", "-c", f"grep -h sa_family= {TRACE_DIR}/* 2>/dev/null || true"])
    store().set(TRACE_KEY, bounded(listed.stdout.splitlines()))
    store().set(BRIDGE_PORTS_KEY, sorted({store().get(key) for key in PORT_KEYS if store().get(key) is not None}))


def bounded(lines: list[str]) -> list[str]:
    """The lines, at most MAX_TRACE_LINES of them but always the first naming each destination (none is lost)."""
    kept: list[str] = []
    seen: set[Destination] = set()
    for line in lines:
        new = set(destinations([line])) - seen
        if new or len(kept) < MAX_TRACE_LINES:
            kept.append(line)
            seen |= new
    return kept


@dataclass(frozen=True)
class Destination:
    """One address a traced call names: family (AF_INET, AF_INET6, AF_UNIX, ...), address, port (0 if none), the
    call (connect, sendto, ...) and the socket's protocol as strace -yy names it (TCP, UDPv6, UNIX-STREAM, ...)."""

    family: str
    address: str
    port: int = 0
    call: str = "connect"
    protocol: str = ""

    def __str__(self) -> str:
        where = f"{self.family} {self.address}" + (f":{self.port}" if self.port else "")
        return f"{where} ({self.call}{' ' + self.protocol if self.protocol else ''})"


CALL = re.compile(r"^\s*(?:\d+\s+)?(\w+)\(\d+(?:<([\w-]+))?")  # [pid] call(fd<PROTOCOL:[inode]>, ...
SOCKADDR = re.compile(r"\{sa_family=(AF_\w+)(.*?)\}")
PORT = re.compile(r"sin6?_port=htons\((\d+)\)")
INET_ADDRESS = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"')
UNIX_PATH = re.compile(r'sun_path=(@?"[^"]*"|@[^,}]*)')
NETLINK_PID = re.compile(r"nl_pid=(\d+)")


def destinations(lines: list[str]) -> list[Destination]:
    """Every address the traced calls name, in order of first appearance."""
    found: dict[Destination, None] = {}
    for line in lines:
        call = CALL.match(line)
        how = {"call": call.group(1), "protocol": call.group(2) or ""} if call else {"call": "?"}
        for family, rest in SOCKADDR.findall(line):
            if family in ("AF_INET", "AF_INET6"):
                address, port = INET_ADDRESS.search(rest), PORT.search(rest)
                found[Destination(family, next(filter(None, address.groups())) if address else "?",
                                  int(port.group(1)) if port else 0, **how)] = None
            elif family == "AF_UNIX":
                path = UNIX_PATH.search(rest)
                found[Destination(family, path.group(1).replace('"', "") if path else "?", **how)] = None
            elif family == "AF_NETLINK":
                pid = NETLINK_PID.search(rest)
                found[Destination(family, f"nl_pid={pid.group(1) if pid else '?'}", **how)] = None
            else:
                found[Destination(family, rest.strip(", "), **how)] = None
    return list(found)


LOOPBACK = re.compile(r"^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$")


def unexpected_destinations(lines: list[str], bridge_ports: list[int]) -> list[str]:
    """The destinations that are not the bridge nor an accepted local socket, each with why it is flagged."""
    flagged = []
    for destination in destinations(lines):
        family, address, port = destination.family, destination.address, destination.port
        if family in ("AF_INET", "AF_INET6"):
            if not LOOPBACK.match(address):
                why = "a DNS server" if port == 53 else "an address outside the container"
            elif port != 53 and destination.call == "connect" and destination.protocol.startswith("UDP"):
                # getaddrinfo sorting the addresses of "localhost" (RFC 3484): a datagram socket connected to each
                # to learn its source address; nothing is sent.
                continue
            elif port not in bridge_ports:
                why = "a DNS server on loopback" if port == 53 else f"a loopback port other than the bridge's {bridge_ports}"
            else:
                continue
        elif family == "AF_UNIX":
            if address in ACCEPTED_UNIX_SOCKETS:
                continue
            why = "a local socket not known to be the CLI's own"
        elif family == "AF_NETLINK" and address == "nl_pid=0":
            continue  # the kernel (interface and route queries of getaddrinfo): nothing leaves the container
        elif family == "AF_UNSPEC":
            continue  # dissolves a UDP socket's association: no destination
        else:
            why = "an unexpected address family"
        flagged.append(f"{destination}: {why}")
    return flagged
