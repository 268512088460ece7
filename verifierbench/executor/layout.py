"""What a verifier's sandbox holds and where: its paths, mounts and environment, for cold and warm runs alike.

Every in-sandbox path the executor uses is spelled here once. A run's sandbox (executor.runner: one per case;
executor.warm: one per slot that forks its cases) sees the verifier at /verifier, the slot's in/ at /input (read-only),
its out/ at /output (writable: the result), the read-only inputs of the job (a checkout), a run_public service's
socket directory at /run/vgb, trusted verifiers' libraries under /opt/vgb/lib and /opt/vgb/site, and, for the warm
fork server, the executor's own directory at /opt/vgb/warm.
"""

from __future__ import annotations

import os
from pathlib import Path

from verifierbench.executor.bwrap import Bind
from verifierbench.executor.isolation import IsolationLevel

VERIFIER_DIR = "/verifier"  # the staged verifier (its verify.py and files)
INPUT_DIR = "/input"  # the slot's in/: the candidate file
OUTPUT_DIR = "/output"  # the slot's out/: the result file
CANDIDATE = f"{INPUT_DIR}/candidate.json"
CANDIDATE_FILE = "candidate.json"  # its name in the slot's in/ (host side)
SCRATCH = "/tmp"  # a fresh tmpfs per run: the verifier's home and working directory
HOSTS = "/etc/hosts"  # a loopback run's own (bwrap.hosts_file)
LIBRARY_ROOT = "/opt/vgb/lib"  # trusted verifiers' packages, one directory each, on PYTHONPATH
SITE_ROOT = "/opt/vgb/site"  # trusted verifiers' whole site-packages directories, SITE_ROOT/<i>, on PYTHONPATH
WARM_SERVER_DIR = "/opt/vgb/warm"  # the warm fork server's directory (executor.warm)
PUBLIC_DIR = "/run/vgb"  # where a run_public service's socket directory appears inside the sandbox
PUBLIC_SOCKET = "public.sock"  # the service's socket in that directory (public_env.service)
PATH = "/usr/local/bin:/usr/bin:/bin"


def result_name(token: str) -> str:
    """A run's result file in the slot's out/: a fresh name per run, so a stale file never counts."""
    return f"result-{token}.json"


def result_path(token: str) -> str:
    """That file as the sandbox sees it."""
    return f"{OUTPUT_DIR}/{result_name(token)}"


def binds(verifier_dir: str, slot_dir: Path, extra_ro: tuple[tuple[str, str], ...] = (), public_dir: str | None = None,
          hosts: str | None = None, libraries: tuple[tuple[str, str], ...] = (), site_packages: tuple[str, ...] = (),
          warm_server_dir: str | None = None) -> list[Bind]:
    """A verifier sandbox's mounts, in bubblewrap's order.

    Args:
        verifier_dir: the host directory holding verify.py (a staged verifier, or a warm slot's verifier/).
        slot_dir: the slot's directory (executor.workdirs): its in/ and out/ are mounted.
        extra_ro: the job's (host path, sandbox path) read-only inputs.
        public_dir: the host directory of a run_public service's socket, mounted at PUBLIC_DIR.
        hosts: an /etc/hosts file (loopback runs).
        libraries: (host package directory, package name) pairs, mounted under LIBRARY_ROOT.
        site_packages: host site-packages directories, mounted under SITE_ROOT.
        warm_server_dir: the host directory of the warm fork server, mounted at WARM_SERVER_DIR.

    Returns:
        The binds, read-only but for the output directory.
    """
    mounts = [Bind(verifier_dir, VERIFIER_DIR), Bind(str(slot_dir / "in"), INPUT_DIR),
              Bind(str(slot_dir / "out"), OUTPUT_DIR, writable=True)]
    if warm_server_dir is not None:
        mounts.append(Bind(warm_server_dir, WARM_SERVER_DIR))
    mounts += [Bind(host, inside) for host, inside in extra_ro]
    if public_dir:
        mounts.append(Bind(public_dir, PUBLIC_DIR))
    if hosts is not None:
        mounts.append(Bind(hosts, HOSTS))
    mounts += [Bind(host, f"{LIBRARY_ROOT}/{name}") for host, name in libraries]
    mounts += [Bind(host, f"{SITE_ROOT}/{i}") for i, host in enumerate(site_packages)]
    return mounts


def environment(level: IsolationLevel, candidate: str, result: str, home: str, public: str | None = None,
                libraries: tuple[tuple[str, str], ...] = (), site_packages: tuple[str, ...] = ()) -> dict[str, str]:
    """A verifier run's whole environment (nothing else is inherited).

    Args:
        level: the isolation: under bubblewrap TMPDIR is the sandbox's /tmp, else `home`.
        candidate: the candidate file's path as the verifier sees it.
        result: the result file's path as the verifier sees it.
        home: its HOME.
        public: the run_public service's socket directory as the verifier sees it, if any.
        libraries: as for `binds` (only whether there are any, and their host parents in degraded mode).
        site_packages: as for `binds`.

    Returns:
        The variables, in a fixed order.
    """
    return {
        **({"VGB_PUBLIC_SOCKET": f"{public}/{PUBLIC_SOCKET}"} if public else {}),
        "PATH": PATH,
        "HOME": home,
        "TMPDIR": SCRATCH if level is IsolationLevel.bwrap else home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "VGB_CANDIDATE": candidate,
        "VGB_RESULT": result,
        **({"PYTHONPATH": python_path(level, libraries, site_packages)} if libraries or site_packages else {}),
    }


def python_path(level: IsolationLevel, libraries: tuple[tuple[str, str], ...], site_packages: tuple[str, ...]) -> str:
    """PYTHONPATH for trusted verifiers' libraries: the mount points, or in degraded mode the host paths."""
    if level is IsolationLevel.bwrap:
        return os.pathsep.join([LIBRARY_ROOT, *(f"{SITE_ROOT}/{i}" for i in range(len(site_packages)))])
    return os.pathsep.join([*sorted({str(Path(host).parent) for host, _ in libraries}), *site_packages])
