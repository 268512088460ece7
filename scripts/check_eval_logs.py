"""Checks the status of every Inspect eval log under a directory (CI runs it on the tests' temporary directory).

A test that runs `inspect eval` may check only the exit code; this catches a log that ended in error anyway.
Logs of interrupted runs (`cancelled`, `started`: the resume test stops one on purpose) pass; `error` and an
unreadable `.eval` fail, except in a directory holding an `EXPECTED_ERROR` file (a test that checks an eval errors,
or that a corrupt log is reported, puts it there).

Usage: python scripts/check_eval_logs.py DIR
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

ACCEPTED = ("success", "cancelled", "started")
# Inspect names its logs `<ISO time with dashes>_<task>_<id>.eval|.json`. Only such files are read: the tests'
# directories also hold other JSON, some of it hostile on purpose (a verifier's result file nested 10^6 deep
# took 24 GB to parse as a log and was killed).
LOG_NAME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}[^/]*_[^/]+\.(eval|json)")


def check(directory: Path) -> list[str]:
    """One line per log whose status is not accepted; prints the status counts.

    Args:
      directory: Searched recursively for eval logs (files named as Inspect names them).
    """
    from inspect_ai.log import read_eval_log

    counts: Counter[str] = Counter()
    failures = []
    for path in sorted(p for p in directory.rglob("*") if LOG_NAME.fullmatch(p.name) and p.is_file()):
        expected_error = (path.parent / "EXPECTED_ERROR").exists()
        try:
            log = read_eval_log(str(path), header_only=True)
        except Exception:  # noqa: BLE001 - a JSON file that is not an eval log
            if path.suffix == ".eval" and not expected_error:
                failures.append(f"{path}: unreadable eval log")
            continue
        counts[log.status] += 1
        if log.status not in ACCEPTED and not expected_error:
            message = log.error.message.splitlines()[0] if log.error and log.error.message else "no error recorded"
            failures.append(f"{path}: status {log.status}: {message[:300]}")
    print("eval logs by status: " + (", ".join(f"{s} {n}" for s, n in sorted(counts.items())) or "none"))
    return failures


def main() -> int:
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print("usage: check_eval_logs.py DIR (an existing directory)", file=sys.stderr)
        return 2
    failures = check(Path(sys.argv[1]))
    for line in failures:
        print(line, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
