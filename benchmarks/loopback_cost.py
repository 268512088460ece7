"""What a code task's own loopback costs a run (executor `Job.loopback`): a trivial verifier run in its slot's shared
empty network namespace against the same run in a namespace bubblewrap makes for it (loopback up, /etc/hosts bound),
alternating run by run so machine noise hits both alike.

    .venv/bin/python benchmarks/loopback_cost.py [--samples 40]

Prints the median per-run time of both and the difference; a code task's test run takes seconds (django 2-10 s), so
the difference is read against that.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.executor import Executor, Job  # noqa: E402

TRIVIAL = 'import sys\nopen(sys.argv[2], "w").write(\'{"decision": "PASS"}\')\n'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Executor(slots=1) as executor:
        verifier = Path(tmp) / "verify.py"
        verifier.write_text(TRIVIAL)
        frozen = executor.freeze(verifier)
        times: dict[bool, list[float]] = {False: [], True: []}
        for loopback in (False, True):  # warm-up: the slot's namespace and the hosts file exist before timing
            executor.run(Job(frozen, {}, key="warm-up", loopback=loopback))
        for i in range(args.samples * 2):
            loopback = bool(i % 2)
            started = time.perf_counter()
            outcome = executor.run(Job(frozen, {}, key=str(i), loopback=loopback))
            times[loopback].append(time.perf_counter() - started)
            if outcome.decision.value != "P":
                print(f"run {i} failed: {outcome}", file=sys.stderr)
                return 1
    shared, own = (statistics.median(times[k]) * 1000 for k in (False, True))
    print(f"slot's namespace: median {shared:.1f} ms; own namespace with loopback: median {own:.1f} ms; "
          f"difference {own - shared:+.1f} ms a run ({args.samples} runs each, alternating)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
