"""`verifierbench doctor`: what isolation this machine gives untrusted code, whether it has what the harnesses and
sandboxes need (harness/prerequisites.py) and what code tasks' builds need (one line each), so a multi-hour build fails in its first second rather than its third hour."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from verifierbench.cli.options import add_executor_options, executor_from
from verifierbench.executor import Job, probe_bwrap, uid_range
from verifierbench.executor.isolation import running_as_root, slot_uid

PROBE = 'import json, sys; json.dump({"decision": "PASS", "reason": "sandbox works"}, open(sys.argv[2], "w"))\n'


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check the sandbox on this machine",
                       description="Reports whether bubblewrap isolation works here and runs one trivial verifier through the executor.")
    add_executor_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    works, why = probe_bwrap()
    print(f"bubblewrap: {'works' if works else 'unavailable: ' + why}")
    if running_as_root():
        how = f"pinned by {uid_range.BASE_ENV}" if uid_range.pinned_base() is not None else "this process's claimed range"
        print(f"sandbox uid: {slot_uid(0)} (one per slot, dropped from root; {how})")
    else:
        print(f"sandbox uid: {slot_uid(0)} (the current user)")
    with executor_from(args) as executor, tempfile.TemporaryDirectory() as tmp:
        verifier = Path(tmp) / "verify.py"
        verifier.write_text(PROBE)
        outcome = executor.run(Job(verifier, {}, key="doctor"))
    print(f"isolation level: {executor.level.value}; limits: {executor.limits}")
    print(f"probe verifier: {outcome.decision.value} in {outcome.wall_time_s:.3f} s" + (f" ({outcome.problem})" if outcome.problem else ""))
    from verifierbench.harness import prerequisites  # Inspect's imports, only when doctor runs

    for line in [*prerequisites.doctor_lines(), *code_task_lines()]:
        print(line)
    return 0 if outcome.decision.value == "P" else 1


def code_task_lines() -> list[str]:
    """One line per prerequisite of code tasks' builds: a Python 3.9 root file system (or what makes one), and the
    Debian packages matplotlib's extensions need. Reported, not required: a suite without those tasks needs neither."""
    from verifierbench.sources.swebench import extensions, python39_rootfs

    root = python39_rootfs.rootfs()
    if (root / python39_rootfs.PYTHON_IN_ROOTFS).is_file():
        py39 = f"present at {root}"
    elif not python39_rootfs.enabled():
        py39 = f"missing at {root}, and off ({python39_rootfs.SWITCH_ENV}=0): instances needing 3.9 are excluded"
    elif not shutil.which("debootstrap"):
        py39 = (f"missing at {root}, and debootstrap is not installed: instances needing 3.9 are excluded "
                "(as root: apt-get install debootstrap, or set $VERIFIERBENCH_ROOTFS_PY39 to a made one)")
    elif not running_as_root():
        py39 = f"missing at {root}; only root can make it (debootstrap, about 2 minutes): build once as root"
    else:
        py39 = f"missing at {root}; debootstrap is installed: the first build needing it makes it (about 2 minutes)"
    missing = extensions.missing_system_packages(extensions.MATPLOTLIB, "3.5")  # 3.4 on: qhull too
    matplotlib = ("all present" if not missing else
                  f"missing {' '.join(missing)} (as root: apt-get install --no-install-recommends {' '.join(missing)})")
    return [f"code tasks, Python 3.9 root file system: {py39}", f"code tasks, matplotlib's build packages: {matplotlib}"]
