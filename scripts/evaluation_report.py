"""Prints the README's evaluation report from Inspect logs: one Markdown row per configuration with BA_norm, its
95% bootstrap confidence interval (tasks resampled), TPR, TNR, the task count, the logs' date and the version.

    .venv/bin/python scripts/evaluation_report.py results/quickstart/logs
"""

from __future__ import annotations

import sys

from verifierbench import __version__
from verifierbench.leaderboard.logs import inventory, read_runs, score_run


def main(log_dir: str) -> None:
    runs = read_runs(log_dir)
    tasks = inventory(runs)
    rows = []
    for run in runs.values():
        result = score_run(run, tasks)
        low, high = result["BA_norm_ci"]
        day = max(run.created.values())[:10]
        rows.append((result["BA_norm"], f"| {run.name} | {result['BA_norm']:.1f} [{low:.1f}, {high:.1f}] | {result['TPR']:.1f} | "
                     f"{result['TNR']:.1f} | {result['n_tasks']} | {day} | {__version__} |"))
    print("| configuration | BA_norm [95% CI] | TPR | TNR | tasks | date | version |")
    print("|---|---|---|---|---|---|---|")
    for _, row in sorted(rows, key=lambda r: -r[0]):
        print(row)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
