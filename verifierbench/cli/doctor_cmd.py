"""`verifierbench doctor`: what isolation this machine gives untrusted code, whether it has what the harnesses and
sandboxes need (harness/prerequisites.py) and what code tasks' builds need (one line each), so a multi-hour build fails in its first second rather than its third hour."""

from __future__ import annotations

import argparse
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

    from verifierbench.sources import registry

    for line in [*prerequisites.doctor_lines(), *(line for source in registry.SOURCES.values() for line in source.doctor_lines())]:
        print(line)
    return 0 if outcome.decision.value == "P" else 1
