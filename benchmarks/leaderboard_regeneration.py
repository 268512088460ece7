"""Regenerating the leaderboard from 36 configurations' logs of the full offline suite (issue 7).

    .venv/bin/python benchmarks/leaderboard_regeneration.py [--template LOG.eval] [--configs 36]

Synthetic logs: a real VerifierBench log (default: the newest full-suite log under
results/quickstart/logs, from scripts/quickstart.sh) is copied once per configuration with its
model renamed and every per-case decision redrawn (seeded, with some U), then written with
Inspect's own `write_eval_log`. The timed part is what `verifierbench leaderboard` does: read
every log through Inspect's API, merge, score, build all tables and figures, write every file.
Target: <= 30 s for 36 configurations.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log  # noqa: E402

from verifierbench.leaderboard.figures import all_figures  # noqa: E402
from verifierbench.leaderboard.logs import scored_runs  # noqa: E402
from verifierbench.leaderboard.render import write_all  # noqa: E402
from verifierbench.leaderboard.tables import all_tables  # noqa: E402


def newest_full_log(directory: Path):
    logs = [read_eval_log(info, header_only=True) for info in list_eval_logs(str(directory), recursive=True)]
    logs = [log for log in logs if log.status == "success" and log.results and log.results.completed_samples >= 90]
    if not logs:
        raise SystemExit(f"no full-suite log under {directory}: run scripts/quickstart.sh first, or pass --template")
    return max(logs, key=lambda log: log.eval.created).location


def synthesize(template: str, out: Path, configs: int) -> int:
    log = read_eval_log(template)
    rng = random.Random(0)
    cases = 0
    for i in range(configs):
        log.eval.model = f"synthetic/config-{i:02d}"
        log.eval.eval_id = f"synthetic-{i:02d}"
        skill = rng.random()
        for sample in log.samples:
            meta = sample.scores["hidden_cases"].metadata
            for case in meta["cases"]:
                right = "P" if case["label"] == "PASS" else "F"
                wrong = "F" if right == "P" else "P"
                draw = rng.random()
                case["decisions"] = ["U" if draw < 0.02 else right if draw < 0.02 + 0.98 * skill else wrong]
            cases += len(meta["cases"])
        write_eval_log(log, str(out / f"config-{i:02d}.eval"))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--template", help="a VerifierBench .eval log of the full suite")
    parser.add_argument("--configs", type=int, default=36)
    args = parser.parse_args()
    template = args.template or newest_full_log(Path("results/quickstart/logs"))
    with tempfile.TemporaryDirectory(prefix="vgb-leaderboard-bench-") as tmp:
        logs, out = Path(tmp) / "logs", Path(tmp) / "out"
        logs.mkdir()
        started = time.perf_counter()
        cases = synthesize(template, logs, args.configs)
        print(f"synthesized {args.configs} logs ({cases} case decisions) in {time.perf_counter() - started:.1f} s from {template}")
        started = time.perf_counter()
        scored = scored_runs(logs)
        read = time.perf_counter() - started
        written = write_all(all_tables(scored), all_figures(scored), out / "tables", out / "figures", "benchmark", "")
        total = time.perf_counter() - started
    print(f"read and scored {len(scored)} configurations in {read:.1f} s; all {len(written)} artifacts in {total:.1f} s (target <= 30 s)")
    return 0 if total <= 30 else 1


if __name__ == "__main__":
    raise SystemExit(main())
