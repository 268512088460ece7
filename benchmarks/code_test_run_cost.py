"""Cost of a code task's test run (the reference verifier's work on one case, and one `run_public`):
the sandboxed run through the executor against the same runner without the sandbox (a plain
subprocess on the host), interleaved run by run so machine noise hits both alike.

    .venv/bin/python benchmarks/code_test_run_cost.py [--repeats 10]

Uses the offline fixture (tests/sources/swebench/fixture.py): a checkout of a few files, its gold patch,
and its hidden tests (6 tests). Prints medians per run and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.sources.swebench.fixture import make_fixture  # noqa: E402
from verifierbench.sources.swebench import checkout, diffs  # noqa: E402
from verifierbench.sources.swebench.testrun import _runner_module, run_tests  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vgb-bench-", dir="/var/tmp"))
    root.chmod(0o755)
    instances, repos = make_fixture(root / "data")
    row = json.loads(instances.read_text())
    digest = checkout.materialize(repos / "vgb-fixtures__httpdate", row["base_commit"], root / "checkouts")
    repo = checkout.checkout_dir(digest)
    tests = json.loads(row["FAIL_TO_PASS"]) + json.loads(row["PASS_TO_PASS"])
    reset = [c.path for c in diffs.changes(row["test_patch"])]
    run_tests(repo, [row["patch"]], tests, row["test_patch"], reset)  # warm up: the executor, page cache
    sandboxed, plain = [], []
    for _ in range(args.repeats):
        started = time.perf_counter()
        assert run_tests(repo, [row["patch"]], tests, row["test_patch"], reset).exit_code == 0
        sandboxed.append(time.perf_counter() - started)
        started = time.perf_counter()
        assert _runner_module().run(str(repo), [row["patch"]], tests, row["test_patch"], reset)["exit_code"] == 0
        plain.append(time.perf_counter() - started)
    s, p = statistics.median(sandboxed), statistics.median(plain)
    print(f"test run of the fixture's 6 hidden tests, median of {args.repeats}: sandboxed {s * 1000:.0f} ms, "
          f"unsandboxed {p * 1000:.0f} ms, ratio {s / p:.2f}")


if __name__ == "__main__":
    main()
