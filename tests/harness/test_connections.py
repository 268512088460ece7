"""No CLI harness tries to reach anything but its bridge (issue 41): each CLI runs under strace
(VERIFIERBENCH_TRACE_CONNECTIONS=1, harness/connection_trace.py) on one tool-call task, and every address it or
a process it started tried (TCP connects, DNS queries) must be the bridge's loopback port or an accepted local socket.

The parser's tests run anywhere, on trace lines recorded in this image: a CLI resolving a host name or connecting
out is flagged. The eval tests need the Docker engine and the images (see test_harnesses.py); CI runs Pi's and
Claude Code's, VERIFIERBENCH_ALL_HARNESSES=1 the others.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.harness.test_harnesses import OFFLINE_HARNESSES, _assert_delivered, _eval, _run_in_this_session
from verifierbench.harness.connection_trace import (
    BRIDGE_PORTS_KEY,
    TRACE_ENV,
    MAX_TRACE_LINES,
    TRACE_KEY,
    Destination,
    bounded,
    destinations,
    unexpected_destinations,
    wrapper_script,
)

# Lines strace (-yy) wrote in the harness image (network none): `node -e` resolving a name, fetching a page and
# reaching a server on localhost; Codex 0.149.0 run without `features.plugins=false` (its DNS queries, sent without
# connect); a model call through the bridge.
NSCD = '20    connect(18<UNIX-STREAM:[7463325]>, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)'
DNS = ('17    connect(19<UDP:[7463327]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) '
       '= -1 ENETUNREACH (Network is unreachable)')
OUTSIDE = ('10    connect(18<TCP:[7463340]>, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("93.184.216.34")}, 16) '
           '= -1 ENETUNREACH (Network is unreachable)')
NETLINK = ('20    sendto(18<NETLINK:[ROUTE:10]>, [{nlmsg_len=20, nlmsg_type=RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, '
           'nlmsg_seq=1796415849, nlmsg_pid=0}, {ifa_family=AF_UNSPEC, ...}], 20, 0, {sa_family=AF_NETLINK, nl_pid=0, '
           'nl_groups=00000000}, 12) = 20')
SORT_PROBE = '20    connect(18<UDP:[7463329]>, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}, 16) = 0'
SORT_PROBE6 = ('20    connect(18<UDPv6:[7463332]>, {sa_family=AF_INET6, sin6_port=htons(0), sin6_flowinfo=htonl(0), '
               'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0')
BRIDGE = ('10    connect(18<TCP:[7463339]>, {sa_family=AF_INET, sin_port=htons(3001), sin_addr=inet_addr("127.0.0.1")}, 16) '
          '= -1 EINPROGRESS (Operation now in progress)')
BRIDGE6 = ('10    connect(18<TCPv6:[7463335]>, {sa_family=AF_INET6, sin6_port=htons(3001), sin6_flowinfo=htonl(0), '
           'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 EINPROGRESS (Operation now in progress)')
CODEX_DNS = ('451   sendto(43<UDP:[7401122]>, "\\253\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\7chatgpt\\3com\\0\\0\\1\\0\\1", 29, '
             'MSG_NOSIGNAL, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = -1 '
             'ENETUNREACH (Network is unreachable)')


def test_the_parser_reads_every_address_family_strace_prints():
    assert destinations([NSCD, DNS, OUTSIDE, NETLINK, SORT_PROBE, SORT_PROBE6, BRIDGE, BRIDGE6, CODEX_DNS, DNS]) == [
        Destination("AF_UNIX", "/var/run/nscd/socket", 0, "connect", "UNIX-STREAM"),
        Destination("AF_INET", "10.255.255.53", 53, "connect", "UDP"),
        Destination("AF_INET", "93.184.216.34", 80, "connect", "TCP"),
        Destination("AF_NETLINK", "nl_pid=0", 0, "sendto", "NETLINK"),
        Destination("AF_INET", "127.0.0.1", 0, "connect", "UDP"), Destination("AF_INET6", "::1", 0, "connect", "UDPv6"),
        Destination("AF_INET", "127.0.0.1", 3001, "connect", "TCP"), Destination("AF_INET6", "::1", 3001, "connect", "TCPv6"),
        Destination("AF_INET", "10.255.255.53", 53, "sendto", "UDP")]


def test_the_bridge_and_the_local_sockets_pass():
    assert unexpected_destinations([BRIDGE, BRIDGE6, NSCD, NETLINK, SORT_PROBE, SORT_PROBE6], bridge_ports=[3001]) == []


def test_a_name_lookup_an_outside_address_and_another_loopback_port_are_flagged():
    assert unexpected_destinations([NSCD, DNS, OUTSIDE, BRIDGE], bridge_ports=[3001]) == [
        "AF_INET 10.255.255.53:53 (connect UDP): a DNS server",
        "AF_INET 93.184.216.34:80 (connect TCP): an address outside the container"]
    assert unexpected_destinations([CODEX_DNS], bridge_ports=[3001]) == ["AF_INET 10.255.255.53:53 (sendto UDP): a DNS server"]
    # The bridge of another run (or a server of the CLI's own on loopback) is not this sample's bridge.
    assert unexpected_destinations([BRIDGE], bridge_ports=[13231]) == [
        "AF_INET 127.0.0.1:3001 (connect TCP): a loopback port other than the bridge's [13231]"]
    # A datagram socket on loopback is no sorting probe when it is a DNS server's port.
    loopback_dns = SORT_PROBE.replace("htons(0)", "htons(53)")
    assert unexpected_destinations([loopback_dns], [3001]) == ["AF_INET 127.0.0.1:53 (connect UDP): a DNS server on loopback"]
    unknown_socket = NSCD.replace("/var/run/nscd/socket", "/run/dbus/system_bus_socket")
    assert unexpected_destinations([unknown_socket], []) == [
        "AF_UNIX /run/dbus/system_bus_socket (connect UNIX-STREAM): a local socket not known to be the CLI's own"]


def test_a_long_trace_is_cut_but_keeps_every_destination():
    kept = bounded([BRIDGE] * (MAX_TRACE_LINES + 10) + [DNS, BRIDGE])
    assert len(kept) == MAX_TRACE_LINES + 1 and kept[-1] == DNS


@pytest.mark.usefixtures("docker_engine")
def test_the_wrapper_traces_a_lookup_in_the_container(trace_image):
    """The wrapper the harness installs, around `node`, in a container as the harness runs it: a name lookup and a
    connect out are in its trace and the check flags them (what a CLI without its switches would show)."""
    lookup = "require('dns').lookup('registry.npmjs.org', () => require('http').get('http://93.184.216.34/').on('error', () => {}))"
    run = "\n".join(["set -e", "mkdir -p /tmp/vgb-connections", "mv /usr/local/bin/node /usr/local/bin/node.vgb-untraced",
                     "cat > /usr/local/bin/node <<'WRAPPER'", wrapper_script("/usr/local/bin/node.vgb-untraced"), "WRAPPER",
                     "chmod 755 /usr/local/bin/node", f"node -e \"{lookup}\"", "cat /tmp/vgb-connections/*"])
    result = subprocess.run(["docker", "run", "--rm", "--network", "none", "--user", "root", "--tmpfs", "/tmp",
                             trace_image, "sh", "-c", run], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    flagged = unexpected_destinations(result.stdout.splitlines(), bridge_ports=[13231])
    assert any(line.endswith(": a DNS server") for line in flagged), result.stdout
    assert "AF_INET 93.184.216.34:80 (connect TCP): an address outside the container" in flagged, result.stdout


@pytest.mark.timeout(900)
@pytest.mark.usefixtures("bwrap_available")
@pytest.mark.parametrize("harness", sorted(OFFLINE_HARNESSES))
def test_no_cli_attempts_a_connection_other_than_to_its_bridge(harness, trace_image, tmp_path, bfcl_suite):
    _run_in_this_session(harness)
    result, log = _eval(tmp_path, harness, bfcl_suite, ("--limit", "1"),
                        env={TRACE_ENV: "1", "VERIFIERBENCH_HARNESS_IMAGE": trace_image})
    _assert_delivered(result, log, OFFLINE_HARNESSES[harness])  # the traced CLI did its work
    (sample,) = log.samples
    lines, ports = sample.store[TRACE_KEY], sample.store[BRIDGE_PORTS_KEY]
    # The trace saw the CLI's model calls: at least one connect to the bridge.
    assert any(d.port in ports for d in destinations(lines)), (ports, lines[:20])
    assert unexpected_destinations(lines, ports) == [], [str(d) for d in destinations(lines)]
