"""`verifierbench paper`: every paper table and figure our data supports, and a side-by-side
comparison with the published values."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from verifierbench.cli.leaderboard_cmd import PAD_HELP, print_table, report
from verifierbench.cli.options import SUITE_HELP, output_dir
from verifierbench.core.errors import UserError

DEFAULT_LOGS = "results/quickstart/logs"

def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "paper",
        help="regenerate the paper's tables and figures from a suite and Inspect logs, and compare with the published values",
        description="Writes Tables 1, 6, 8, 9 and 10 from the suite and its screening records, Tables 2, 11-23 and the figures "
        "from the logs, and comparison tables against the paper's Tables 2, 12 and 16-18 (transcribed in "
        "verifierbench/leaderboard/paper_values.py); prints the comparisons. Like `leaderboard`, it ranks on the tasks "
        "every configuration scored and accounts for every log read.",
    )
    p.add_argument("log_dir", nargs="?", default=None, metavar="LOG_DIR", help="Inspect logs, as `leaderboard LOG_DIR` (or --logs)")
    p.add_argument("--logs", default=None, metavar="DIR", help=f"Inspect logs (default {DEFAULT_LOGS})")
    p.add_argument("--suite", default=None, metavar="DIR", help=SUITE_HELP)
    p.add_argument("--screening", default="results/screening", metavar="DIR", help="`verifierbench screen` output (default %(default)s)")
    p.add_argument("--audit", default=None, metavar="SUMMARY", help="audited scores from this `verifierbench audit` summary.json "
                   "instead of the logs' testjack_audit scores")
    p.add_argument("--out", default="results/paper", metavar="DIR", help="tables and index.html (default %(default)s)")
    p.add_argument("--figures", default="paper_figures", metavar="DIR", help="figure PNGs (default %(default)s)")
    p.add_argument("--pad-missing", action="store_true", help=PAD_HELP)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from verifierbench.leaderboard.compare import comparisons
    from verifierbench.leaderboard.figures import all_figures
    from verifierbench.leaderboard.logs import read_board
    from verifierbench.leaderboard.render import write_all
    from verifierbench.suite.resolver import open_logged_suite, open_suite
    from verifierbench.leaderboard.suite_tables import suite_tables
    from verifierbench.leaderboard.tables import all_tables, table_runs

    if args.log_dir is not None and args.logs is not None and args.log_dir != args.logs:
        raise UserError(f"two log directories given ({args.log_dir} and --logs {args.logs}): give one")
    args.logs = args.log_dir or args.logs or DEFAULT_LOGS
    output_dir(args.out, "--out"), output_dir(args.figures, "--figures")
    summary_path = Path(args.screening) / "summary.json"
    screen_summary = _screening_summary(summary_path)
    if screen_summary is None:
        print(f"paper: Table 9 not generated: no screening summary at {summary_path} (run `verifierbench screen`)", file=sys.stderr)
    suite_dir, suite = open_logged_suite(args.suite, args.logs) if Path(args.logs).is_dir() else open_suite(args.suite)
    try:
        tables = suite_tables(suite, suite_dir, screen_summary)
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:  # a hand-edited or foreign record
        raise UserError(f"{summary_path} or {suite_dir / 'screening.json'}: unexpected content ({type(exc).__name__}: {exc})") from None
    figures: dict[str, bytes] = {}
    compared = []
    if Path(args.logs).is_dir():
        try:
            board = read_board(args.logs, args.audit, args.pad_missing)
        except UserError as exc:
            if str(exc).startswith("--audit"):  # a bad summary is the user's to fix, not a reason to drop the log tables
                raise
            print(f"paper: {exc}; only the suite tables are written", file=sys.stderr)
        else:
            report(board, "paper")
            compared = comparisons(board.scored, board.task_set)
            tables += [table_runs(board), *all_tables(board.scored, board.task_set), *compared]
            figures = all_figures(board.scored)
    else:
        print(f"paper: no logs at {args.logs} (run scripts/quickstart.sh or inspect eval first); only the suite tables are written",
              file=sys.stderr)
    written = write_all(tables, figures, Path(args.out), Path(args.figures), "VerifierBench: the paper's tables and figures",
                        f"suite {suite_dir}, logs {args.logs}")
    for table in compared:
        print_table(table)
    print(f"paper: wrote {len(written)} files to {args.out} and {args.figures}", file=sys.stderr)
    return 0


def _screening_summary(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # unreadable, not UTF-8, not JSON
        raise UserError(f"--screening {path}: not a readable `verifierbench screen` summary ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise UserError(f"--screening {path}: not a `verifierbench screen` summary (expected a JSON object)")
    return data
