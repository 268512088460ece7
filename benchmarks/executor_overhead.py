"""Executor overhead against bare `python3 -c pass`, measured in the same run (issue 2).

    .venv/bin/python benchmarks/executor_overhead.py [--samples 60] [--cases 1000]

Prints the median per-case time of both, their ratio (target <= 2.0) and the wall time of
`--cases` trivial cases through `Executor.run_many` on all cores (target <= 30 s for 1,000).
Samples alternate between the two so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.executor import Executor, Job  # noqa: E402
from verifierbench.executor.runner import DEFAULT_INTERPRETER  # noqa: E402

# The trivial verifier avoids `import json` (which pulls in `re`, ~6 ms here): the benchmark
# measures what the executor adds, not the cost of the verifier's own imports.
TRIVIAL = 'import sys\nopen(sys.argv[2], "w").write(\'{"decision": "PASS"}\')\n'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--cases", type=int, default=1000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, Executor() as executor:
        verifier = Path(tmp) / "verify.py"
        verifier.write_text(TRIVIAL)
        frozen = executor.freeze(verifier)
        executor.run(Job(frozen, {}, key="warm-up"))

        bare, sandboxed = [], []
        for i in range(args.samples):
            started = time.perf_counter()
            subprocess.run([DEFAULT_INTERPRETER, "-c", "pass"], check=True)
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            outcome = executor.run(Job(frozen, {"i": i}, key=str(i)))
            sandboxed.append(time.perf_counter() - started)
            assert outcome.decision.value == "P", outcome

        started = time.perf_counter()
        outcomes = list(executor.run_many(Job(frozen, {"i": i}, key=str(i)) for i in range(args.cases)))
        batch = time.perf_counter() - started
        assert all(o.decision.value == "P" for o in outcomes)

    median_bare, median_sandboxed = statistics.median(bare), statistics.median(sandboxed)
    ratio = median_sandboxed / median_bare
    print(f"isolation: {executor.level.value}, slots: {executor.slots}")
    print(f"bare `python3 -c pass`: median {median_bare * 1000:.1f} ms over {args.samples}")
    print(f"executor, one case:     median {median_sandboxed * 1000:.1f} ms over {args.samples}")
    print(f"ratio: {ratio:.2f} (target <= 2.0)")
    print(f"{args.cases} trivial cases through run_many: {batch:.1f} s (target <= 30 s for 1000)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
