"""Costs of real SWE-bench Verified code tasks (needs the offline copy beside the project):

1. a test environment's build, cold (an empty $VERIFIERBENCH_ENVS) and warm (found by key);
2. a case's test run in the sandbox (executor, bubblewrap, /env and /repo read-only) against the same
   runner and environment without the sandbox, interleaved run by run so machine noise hits both alike
   (target ratio <= 1.3). Both copy the checkout to a tmpfs scratch: the sandbox's /tmp is one, so the
   unsandboxed run gets a directory in /dev/shm (`--plain-scratch` to change it). Copying django's checkout
   (9,115 files) to this machine's ext4 /tmp and removing it takes 20-35 s under load against 2 s on tmpfs,
   which is what made the unsandboxed run look 3x slower (6.6 s against 21.2 s, ratio 0.31) before;
   `--plain-scratch /tmp` measures that again;
3. with --suite-ids, `verifierbench build` + `verifierbench screen` of those instances (cold caches).

    .venv/bin/python benchmarks/code_real_instances.py [--instance django__django-11848] [--repeats 5]
        [--suite-ids ID,ID,...] [--reuse-envs] [--plain-scratch DIR]

--reuse-envs times the environment in the usual cache ($VERIFIERBENCH_ENVS or /var/tmp/verifierbench/envs) instead
of an empty one: "cold" is then a lookup when it is already there (astropy's and matplotlib's cold builds compile
for 8-15 minutes; the build's own log line gives that time).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifierbench.sources.swebench import checkout, diffs, venv_store, instances  # noqa: E402
from verifierbench.sources.swebench.testrun import _runner_module, run_tests  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instance", default="django__django-11848")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--suite-ids", help="also time build + screen of these instances")
    parser.add_argument("--reuse-envs", action="store_true", help="use the usual environment cache, not an empty one")
    parser.add_argument("--plain-scratch", default="/dev/shm",
                        help="where the unsandboxed run copies the checkout (default: a tmpfs, as the sandbox's /tmp)")
    args = parser.parse_args()
    if instances.default_instances() is None:
        sys.exit("benchmark: the offline SWE-bench copy is not beside the project")
    root = Path(tempfile.mkdtemp(prefix="vgb-bench-", dir="/var/tmp"))
    root.chmod(0o755)
    plain_scratch = tempfile.mkdtemp(prefix="vgb-bench-scratch-", dir=args.plain_scratch)
    try:
        measure(args, root, plain_scratch)
    finally:
        shutil.rmtree(plain_scratch, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


def measure(args: argparse.Namespace, root: Path, plain_scratch: str) -> None:
    """The three measurements, with checkouts (and without --reuse-envs, environments) under `root`."""
    if not args.reuse_envs:
        os.environ[venv_store.ROOT_ENV] = str(root / "envs")
    (inst,) = [i for i in instances.load(None) if i.instance_id == args.instance]
    clone = instances.local_clone(instances.repos_dir(None), inst.repo)
    repo = checkout.checkout_dir(checkout.materialize(clone, inst.base_commit, root / "checkouts"))
    spec = venv_store.spec_for(inst.repo, inst.version, repo)

    started = time.perf_counter()
    environment = venv_store.ensure(spec, repo, say=lambda line: None)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    venv_store.ensure(spec, repo)
    warm = time.perf_counter() - started
    print(f"environment {spec.key}: cold {cold:.1f} s, warm {warm * 1000:.1f} ms")

    tests = venv_store.django_directives([c.path for c in diffs.changes(inst.test_patch)]) if spec.runner == "django" \
        else inst.fail_to_pass + inst.pass_to_pass
    reset = [c.path for c in diffs.changes(inst.test_patch)]
    job = ([inst.patch], tests, inst.test_patch, reset)
    run_tests(repo, *job, environment=environment, runner=spec.runner)  # warm up: the executor, page cache
    sandboxed, plain = [], []
    for _ in range(args.repeats):
        started = time.perf_counter()
        assert run_tests(repo, *job, environment=environment, runner=spec.runner).outcomes
        sandboxed.append(time.perf_counter() - started)
        started = time.perf_counter()
        assert _runner_module().run(str(repo), *job, scratch=plain_scratch, runner=spec.runner,
                                    python=str(environment / "bin" / "python"))["report"]
        plain.append(time.perf_counter() - started)
    s, p = statistics.median(sandboxed), statistics.median(plain)
    print(f"{args.instance} hidden test run ({' '.join(tests)}), median of {args.repeats}: sandboxed {s:.2f} s, "
          f"unsandboxed {p:.2f} s (scratch in {args.plain_scratch}), ratio {s / p:.2f}; load {os.getloadavg()[0]:.1f}")

    if args.suite_ids:
        cli = [str(Path(sys.executable).parent / "verifierbench")]
        started = time.perf_counter()
        subprocess.run([*cli, "build", "--out", str(root / "suite"), "--source", "swebench", "--swebench-ids", args.suite_ids],
                       check=True, env={**os.environ, venv_store.ROOT_ENV: str(root / "suite-envs")})
        built = time.perf_counter() - started
        started = time.perf_counter()
        subprocess.run([*cli, "screen", "--suite", str(root / "suite"), "--out", str(root / "screening")], check=True,
                       env={**os.environ, venv_store.ROOT_ENV: str(root / "suite-envs")})
        print(f"{len(args.suite_ids.split(','))} instances: build {built:.0f} s (environments included), "
              f"screen {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
