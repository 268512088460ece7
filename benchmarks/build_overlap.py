"""Does overlapping a SWE-bench build's independent work shorten it? (needs the offline copy beside the project)

The build of each instance is: its checkout, its test environment (pip: about one core), the gold's and the empty
diff's hidden test runs (one test process each), then its cases' runs (two at a time, one per core). On 2 cores,
the first three leave a core idle. `swebench.instance_build` fills it with the empty diff's run beside the gold's
(`OVERLAP_RUNS`). (Making the next instance's environment while this one built was measured here too, found no clear
win, and removed.)

This script builds the same instances both ways in one run, alternating, each time with empty environment and
build caches (cold, like a first build of the 47), and prints each build's wall time, each instance's profile
line, and the ratio overlapped / sequential. The machine's load is printed at each start: it is shared.

    .venv/bin/python benchmarks/build_overlap.py --ids django__django-15572,django__django-16136 [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.sources.swebench import instance_build, instances, reference, selection, venv_store  # noqa: E402


def one_build(ids: str, overlap: bool, root: Path, warm: bool = False) -> float:
    """Wall seconds of `selection.build` of `ids` with a cold build memo under `root`, overlapping or not.

    Args:
        ids: comma-separated instance ids.
        overlap: the overlaps on (True) or off.
        root: a fresh directory for the environments, the build memo and the checkouts.
        warm: link the usual cache's environments in (only the runs are compared).
    """
    os.environ.pop(venv_store.ROOT_ENV, None)
    usual = venv_store.root()
    os.environ[venv_store.ROOT_ENV] = str(root / "envs")  # the build memo sits beside it (root/builds): cold too
    if warm:
        (root / "envs").mkdir()
        for made in usual.iterdir():
            if (made / "verifierbench-env.json").is_file():
                (root / "envs" / made.name).symlink_to(made)
    instance_build.OVERLAP_RUNS = overlap
    # The reference keeps its test runs in memory by (reference, diff): the second build would reuse the first's.
    reference._cached_run.cache_clear()
    print(f"--- {'overlapped' if overlap else 'sequential'}: load {os.getloadavg()[0]:.1f}", flush=True)
    started = time.perf_counter()
    result = selection.build(0, None, None, root / "checkouts", ids, say=lambda line: print("   ", line, flush=True))
    seconds = time.perf_counter() - started
    print(f"    {len(result.retained)} retained, {len(result.excluded)} excluded: {seconds:.0f} s", flush=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", default="django__django-15572,django__django-16136")
    parser.add_argument("--rounds", type=int, default=1, help="pairs of builds (sequential, then overlapped)")
    parser.add_argument("--warm", action="store_true", help="environments from the usual cache: compare the runs' overlap only")
    args = parser.parse_args()
    if instances.default_instances() is None:
        sys.exit("benchmark: the offline SWE-bench copy is not beside the project")
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.rounds):
        for overlap in (False, True):
            root = Path(tempfile.mkdtemp(prefix="vgb-overlap-", dir="/var/tmp"))
            root.chmod(0o755)
            try:
                times[overlap].append(one_build(args.ids, overlap, root, args.warm))
            finally:
                shutil.rmtree(root, ignore_errors=True)
    sequential, overlapped = sum(times[False]), sum(times[True])
    print(f"sequential {sequential:.0f} s, overlapped {overlapped:.0f} s: ratio {overlapped / sequential:.2f} "
          f"({args.rounds} round(s), {os.cpu_count()} cores, load now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
