"""`verifierbench` command line: one module per command, registered here."""

from __future__ import annotations

import argparse
import sys

from verifierbench import __version__
from verifierbench.cli import audit_cmd, build_cmd, doctor_cmd, export_cmd, judge_cmd, leaderboard_cmd, metrics_cmd, paper_cmd, run_cmd, screen_cmd, suite_cmd
from verifierbench.core.errors import UserError

COMMANDS = (build_cmd, export_cmd, judge_cmd, metrics_cmd, leaderboard_cmd, paper_cmd, audit_cmd, run_cmd, screen_cmd, suite_cmd, doctor_cmd)


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, like every other user error (subcommand parsers inherit the class)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="verifierbench",
        description="VerifierBench: score agent-written verifiers on hidden test cases.",
    )
    parser.add_argument("--version", action="version", version=f"verifierbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 with a one-line error on bad options
    try:
        return args.handler(args) or 0
    except UserError as exc:
        print(f"verifierbench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"verifierbench {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
