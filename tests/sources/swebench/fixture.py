"""A small SWE-bench-format instance the tests build offline: a git repository with a bug (two-digit
years in RFC 850 dates, as in django-11848), its gold patch, and a test patch with FAIL_TO_PASS tests.

`make_fixture(root)` writes `root/repos/vgb-fixtures__httpdate` (a git repository at the base commit)
and `root/instances.jsonl` (one row with SWE-bench Verified's fields), and returns both paths.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

REPO = "vgb-fixtures/httpdate"
INSTANCE_ID = "vgb-fixtures__httpdate-1"

INIT = '''\
"""HTTP date helpers."""
'''

PARSE_BASE = '''\
"""Parsing of HTTP dates (RFC 7231)."""

import datetime

MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()


def month_number(name):
    """1 for "Jan" (any case, any length from three letters on), 12 for "December"."""
    return MONTHS.index(name[:3].lower()) + 1


def weekday_name(number):
    """"Monday" for 0, "Sunday" for 6."""
    return ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")[number]


def two_digit_year(year, now=None):
    """The full year of a two-digit year in an RFC 850 date."""
    if year < 70:
        return 2000 + year
    return 1900 + year


def parse_rfc850(value, now=None):
    """Parses "Sunday, 06-Nov-94 08:49:37 GMT" into a naive UTC datetime."""
    _, rest = value.split(", ", 1)
    date, time, _zone = rest.split(" ")
    day, month, year = date.split("-")
    year = int(year)
    if year < 100:
        year = two_digit_year(year)
    hour, minute, second = (int(part) for part in time.split(":"))
    return datetime.datetime(year, month_number(month), int(day), hour, minute, second)
'''

PARSE_GOLD = PARSE_BASE.replace('''\
    """The full year of a two-digit year in an RFC 850 date."""
    if year < 70:
        return 2000 + year
    return 1900 + year
''', '''\
    """The full year of a two-digit year in an RFC 850 date.

    RFC 7231: a year that appears to be more than 50 years in the future is the most
    recent year in the past that had the same last two digits.
    """
    current = (now or datetime.datetime.now(datetime.timezone.utc)).year
    century = current - current % 100
    if century + year > current + 50:
        return century - 100 + year
    return century + year
''').replace("        year = two_digit_year(year)\n", "        year = two_digit_year(year, now)\n")

TEST_PARSE_BASE = '''\
import datetime

from httpdate.parse import parse_rfc850


def test_parse_rfc850_recent():
    assert parse_rfc850("Sunday, 06-Nov-94 08:49:37 GMT", now=datetime.datetime(2000, 1, 1)) == datetime.datetime(1994, 11, 6, 8, 49, 37)
'''

TEST_PARSE_NEW = TEST_PARSE_BASE + '''

def test_parse_rfc850_past_century():
    assert parse_rfc850("Thursday, 01-Jan-69 00:00:00 GMT", now=datetime.datetime(1990, 1, 1)).year == 1969


def test_two_digit_year_near_future():
    from httpdate.parse import two_digit_year

    assert two_digit_year(75, now=datetime.datetime(2030, 1, 1)) == 2075
    assert two_digit_year(30, now=datetime.datetime(2026, 1, 1)) == 2030


def test_two_digit_year_fifty_years_boundary():
    from httpdate.parse import two_digit_year

    assert two_digit_year(76, now=datetime.datetime(2026, 6, 1)) == 2076
    assert two_digit_year(77, now=datetime.datetime(2026, 6, 1)) == 1977
    assert two_digit_year(0, now=datetime.datetime(2051, 1, 1)) == 2000
'''

TEST_MONTHS = '''\
from httpdate.parse import month_number, weekday_name


def test_weekday_name():
    assert weekday_name(0) == "Monday"
    assert weekday_name(6) == "Sunday"


def test_month_number_short():
    assert month_number("Jan") == 1
    assert month_number("dec") == 12


def test_month_number_long():
    assert month_number("February") == 2
'''

PROBLEM = textwrap.dedent("""\
    parse_rfc850 interprets two-digit years incorrectly

    RFC 7231 says: recipients of a timestamp value in rfc850-date format, which uses a two-digit year,
    MUST interpret a timestamp that appears to be more than 50 years in the future as representing the
    most recent year in the past that had the same last two digits. The current logic is hard coded to
    consider 0-69 to be in 2000-2069 and 70-99 to be 1970-1999, instead of comparing against the current
    year (or the `now` argument, which both `two_digit_year` and `parse_rfc850` accept but ignore).
    """)


# A flaky test for the fixture repository (docs/protocol.md, "Rounds and reused test runs"): it fails or passes on a
# fresh random draw and prints the draw, so two runs of it can be told apart. Added by a diff, not committed to the
# repository, so the fixture's instance and its suite stay as they are.
FLAKY_TEST = """import os


def test_coin():
    draw = os.urandom(8).hex()
    print("draw", draw)
    assert int(draw, 16) % 2 == 0, draw
"""


def new_file_diff(path: str, text: str) -> str:
    """A git diff adding `path` with `text` (what a verifier may send to run_public)."""
    lines = text.splitlines()
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n"
            + "".join(f"+{line}\n" for line in lines))


FLAKY_TEST_DIFF = new_file_diff("tests/test_flaky.py", FLAKY_TEST)


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "fixture", "GIT_AUTHOR_EMAIL": "f@example.org", "GIT_COMMITTER_NAME": "fixture",
           "GIT_COMMITTER_EMAIL": "f@example.org", "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def make_fixture(root: Path) -> tuple[Path, Path]:
    repos = root / "repos"
    repo = repos / REPO.replace("/", "__")
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _write(repo, {"httpdate/__init__.py": INIT, "httpdate/parse.py": PARSE_BASE, "tests/__init__.py": "",
                  "tests/test_parse.py": TEST_PARSE_BASE, "tests/test_months.py": TEST_MONTHS,
                  "README.rst": "httpdate\n========\n\nHTTP date helpers.\n", "CHANGES.rst": "Changes\n=======\n"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD").strip()
    # The gold and test patches, as SWE-bench stores them: diffs against the base commit.
    _write(repo, {"httpdate/parse.py": PARSE_GOLD})
    patch = _git(repo, "diff", base)
    _git(repo, "checkout", "-q", "--", ".")
    _write(repo, {"tests/test_parse.py": TEST_PARSE_NEW})
    test_patch = _git(repo, "diff", base)
    _git(repo, "checkout", "-q", "--", ".")
    instance = {
        "repo": REPO, "instance_id": INSTANCE_ID, "base_commit": base, "patch": patch, "test_patch": test_patch,
        "problem_statement": PROBLEM, "hints_text": "", "created_at": "2020-01-01T00:00:00Z", "version": "1.0",
        "FAIL_TO_PASS": json.dumps(["tests/test_parse.py::test_parse_rfc850_past_century",
                                    "tests/test_parse.py::test_two_digit_year_near_future",
                                    "tests/test_parse.py::test_two_digit_year_fifty_years_boundary"]),
        "PASS_TO_PASS": json.dumps(["tests/test_parse.py::test_parse_rfc850_recent", "tests/test_months.py::test_weekday_name",
                                    "tests/test_months.py::test_month_number_short",
                                    "tests/test_months.py::test_month_number_long"]),
        "environment_setup_commit": base, "difficulty": "<15 min fix",
    }
    instances = root / "instances.jsonl"
    instances.write_text(json.dumps(instance) + "\n")
    return instances, repos


if __name__ == "__main__":  # python -m tests.sources.swebench.fixture DIR: the fixture for trying code tasks by hand
    import sys

    made = make_fixture(Path(sys.argv[1]))
    print(f"--swebench-instances {made[0]} --swebench-repos {made[1]}")
