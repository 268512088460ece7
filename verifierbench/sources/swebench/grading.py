"""SWE-bench's grading, and the hardening the reference verifier adds on top of it.

Upstream (`swebench.harness.grading`): parse the test log, then FAIL_TO_PASS tests must now pass and
PASS_TO_PASS tests must still pass ("RESOLVED_FULL"). Known exploits of that (paper App. B.1 code S,
the SWE-bench harness's own regression tests) and what closes each here:
- a skipped or xfail test counts as passing upstream: here a test passes only with outcome "passed",
  unless the gold run gave it the same outcome (a platform skip stays a skip);
- lines printed by the tested code can fake "PASSED <test>" in the log: the log's statuses must agree
  with the plugin's structured report, and pytest's exit code must be 0;
- an empty report (the process exited early, nothing collected) fails: every named test must appear;
- edits to test files or conftest.py, and production code that consults the test runner (pytest,
  PYTEST_CURRENT_TEST: code fixed only under test), are rejected from the diff itself.
Each check has a name so screening's mutants (C6) can switch one off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from verifierbench.sources.swebench import diffs
from verifierbench.sources.swebench.testrun import TestRun

CHECKS = ("static", "fail_to_pass", "pass_to_pass", "strict_outcomes", "log_agrees", "exit_code", "complete_report")
# The parts of "static" (`static_problem`), each of which a reference record's `unchecked` may switch off alone: the
# flawed verifiers of issue 37 (tests/sources/swebench/test_flawed_verifiers.py) are the reference with one of them off.
STATIC_CHECKS = ("test_edits", "startup_files", "runner_reference", "copied_input")
# Production code that looks for the test runner (pytest; django's tests/runtests.py and its test settings).
RUNNER_REFERENCE = re.compile(r"\b_?pytest\b|PYTEST_CURRENT_TEST|\bruntests\b|\btest_sqlite\b")
# Files the interpreter runs at start-up, before any test: a patch to the runner would hide there. The module may be a
# package as well as a file (`sitecustomize/__init__.py`: `import sitecustomize` finds either; issue 55).
STARTUP_FILE = re.compile(r"(^|/)(sitecustomize|usercustomize)(\.py$|/)|\.pth$")
# What the test runner loads from the repository at its start, before any test (issue 55), checked with the start-up
# files rather than as test code: django's test settings (the module the runner's `--settings=test_sqlite` names, which
# `django.setup()` imports) and pytest's root conftest.py (an initial conftest, loaded before collection).
STARTUP_SETTINGS = re.compile(r"^(tests/test_sqlite\.py|conftest\.py)$")


# Python 3.11's unittest prints `test_x (module.Class.test_x)` where the dataset (made with 3.6-3.9) has
# `test_x (module.Class)`; and a test whose docstring starts with a newline gets its name on one line and
# `<docstring line> ... ok` on the next, so the parser would give the status to the docstring line only.
PY311_NAME = re.compile(r"^(\w+) \(([\w.]+)\.\1\)", re.MULTILINE)
NAME_THEN_DOCSTRING = re.compile(r"^(\w+ \([\w.]+\))\n(.+?) \.\.\. (ok|OK|FAIL|ERROR|skipped.*)$", re.MULTILINE)
# The same, when other output lands between the docstring line and the status (the runner's start-up banner,
# "Testing against Django installed in ... (0 silenced).", printed into the first test's line): the status is alone on a
# later line, which upstream's parser gives to the docstring line only (django-13786's first test, named in
# PASS_TO_PASS). The lines between hold no other test (no " ... ").
NAME_DOCSTRING_OUTPUT_STATUS = re.compile(r"^(\w+ \([\w.]+\))\n([^\n]+?) \.\.\. ([^\n]*\n(?:(?![^\n]* \.\.\. )[^\n]*\n)*?)"
                                          r"(ok|FAIL|ERROR)$", re.MULTILINE)


def normalise_django_log(log: str) -> str:
    """The django runner's log as the dataset's Python printed it (see above); statuses are unchanged."""
    log = PY311_NAME.sub(r"\1 (\2)", log)
    log = NAME_THEN_DOCSTRING.sub(r"\1 ... \3\n\2 ... \3", log)
    return NAME_DOCSTRING_OUTPUT_STATUS.sub(r"\1 ... \3\4\n\2 ... \4", log)


def log_status(run: TestRun, runner: str = "pytest") -> dict[str, str]:
    """SWE-bench's log parser for the repository's runner: {test name: PASSED/FAILED/ERROR/SKIPPED/...}."""
    from swebench.harness.log_parsers.python import parse_log_django, parse_log_pytest

    status: dict[str, str] = (parse_log_django(normalise_django_log(run.log), None) if runner == "django"
                              else parse_log_pytest(run.log, None))
    return status


def upstream_resolved(run: TestRun, fail_to_pass: list[str], pass_to_pass: list[str], runner: str = "pytest") -> bool:
    """SWE-bench's own verdict on the run's log (RESOLVED_FULL), unhardened (django's log normalised for 3.11)."""
    from swebench.harness.constants import FAIL_TO_PASS, PASS_TO_PASS, ResolvedStatus
    from swebench.harness.grading import get_eval_tests_report, get_resolution_status

    if not run.applied:
        return False
    status = log_status(run, runner)
    report = get_eval_tests_report(status, {FAIL_TO_PASS: fail_to_pass, PASS_TO_PASS: pass_to_pass})
    resolved: bool = get_resolution_status(report) == ResolvedStatus.FULL.value
    return resolved


def static_problem(diff: str, test_files: Iterable[str], test_patch: str = "", gold: str = "",
                   disabled: frozenset[str] = frozenset()) -> str | None:
    """Why the diff is rejected before any test runs (None: it is not). With the hidden `test_patch` (and the `gold`
    patch): also production code that copies the hidden tests' own inputs (`copied_test_literal`). `disabled` switches
    off parts by their `STATIC_CHECKS` name."""
    try:
        touched = diffs.changes(diff)
    except diffs.DiffError as e:
        return str(e)
    tests = frozenset(test_files)
    for change in touched if "test_edits" not in disabled else ():
        if diffs.is_test_path(change.path, tests) and not STARTUP_SETTINGS.match(change.path):  # the start-up check's
            return f"the diff edits test code ({change.path})"
    for change in touched if "startup_files" not in disabled else ():
        if STARTUP_FILE.search(change.path):
            return f"the diff adds an interpreter start-up file ({change.path})"
        if STARTUP_SETTINGS.match(change.path):
            return f"the diff changes what the test runner loads at its start ({change.path})"
    for change in touched if "runner_reference" not in disabled else ():
        if change.path.endswith(".py") and any(RUNNER_REFERENCE.search(line) for line in change.added):
            return f"production code in {change.path} refers to the test runner"
    copied = copied_test_literal(touched, test_patch, gold) if test_patch and "copied_input" not in disabled else None
    return f"production code answers the hidden tests' own input {copied!r}" if copied else None


# A string literal this long that production code and the hidden tests share, and the gold does not, is a test's own
# input copied into the code under test (special-cased answers, paper App. B.1's "code S").
COPIED_LITERAL_MIN = 5


def copied_test_literal(touched: list[diffs.FileChange], test_patch: str, gold: str = "") -> str | None:
    """A string the candidate's production code adds that the hidden test patch adds too, which neither the gold patch
    nor the lines the candidate removes (a moved or reformatted line) hold; None: there is none."""
    try:
        test_side = diffs.changes(test_patch)
        gold_side = diffs.changes(gold) if gold.strip() else []
    except diffs.DiffError:
        return None
    tested = _string_literals(line for change in test_side for line in change.added)
    known = _string_literals(line for change in gold_side for line in (*change.added, *change.removed))
    for change in touched:
        if not change.path.endswith(".py"):
            continue
        known_here = known | _string_literals(change.removed)
        for text in sorted(_string_literals(change.added)):
            if len(text) >= COPIED_LITERAL_MIN and text in tested and text not in known_here:
                return text
    return None


def _string_literals(lines: Iterable[str]) -> set[str]:
    """The string constants written on each line, read one line at a time (part of a triple-quoted string gives none)."""
    import ast
    import io
    import tokenize

    out: set[str] = set()
    for line in lines:
        tokens: list[tokenize.TokenInfo] = []
        try:
            tokens.extend(tokenize.generate_tokens(io.StringIO(line).readline))
        except (tokenize.TokenError, SyntaxError):
            pass  # the tokens before an unclosed bracket or string still count
        for token in tokens:
            if token.type == tokenize.STRING:
                try:
                    value = ast.literal_eval(token.string)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(value, str):
                    out.add(value)
    return out


LOG_AGREES = {"passed": {"PASSED"}, "failed": {"FAILED"}, "error": {"ERROR", "FAILED"}, "skipped": {"SKIPPED"},
              "xfailed": {"XFAIL"}, "xpassed": {"XPASS", "PASSED", "FAILED"}}
# django's runner prints "expected failure" / "unexpected success", which its parser does not read as a status.
LOG_AGREES_DJANGO = {**LOG_AGREES, "xfailed": {"PASSED", "FAILED"}, "xpassed": {"PASSED", "FAILED"}}


@dataclass(frozen=True)
class Graded:
    """One test run of a candidate and what it is graded against: the input of every check in `RUN_CHECKS`."""

    run: TestRun
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    gold_outcomes: dict[str, str]
    disabled: frozenset[str]
    runner: str
    gold_exit_code: int | None

    @property
    def named(self) -> list[str]:
        return list(self.fail_to_pass) + list(self.pass_to_pass)

    @property
    def allowed_exit_codes(self) -> set[int | None]:
        """0, and the gold run's own status: where the gold exits non-zero (an unnamed test failing in this environment),
        the candidate must exit exactly as the gold did (the runner's exit status covers the whole test modules)."""
        allowed: set[int | None] = {0}
        return allowed | ({self.gold_exit_code} if isinstance(self.gold_exit_code, int) else set())


def run_failed(g: Graded) -> str | None:
    """The sandbox could not run the tests at all."""
    return f"the test run failed: {g.run.problem}" if g.run.problem else None


def diff_not_applied(g: Graded) -> str | None:
    """The candidate's diff does not apply to the checkout."""
    return None if g.run.applied else f"the diff does not apply: {g.run.apply_error}"


def stopped_at_first_failure(g: Graded) -> str | None:
    """A fail-fast run (`reference.failfast_decides`) exited badly: name the test it stopped at, not the ones never run."""
    run = g.run
    if run.failfast and isinstance(run.exit_code, int) and run.exit_code not in g.allowed_exit_codes:
        return _first_failure(run, g.fail_to_pass, g.pass_to_pass) + " (the run stopped at its first failure)"
    return None


def incomplete_report(g: Graded) -> str | None:
    """The structured report is empty or lacks a named test (the process exited early)."""
    if not g.run.outcomes:
        return "empty test report (nothing ran, or the process exited early)"
    missing = [t for t in g.named if t not in g.run.outcomes]
    return f"{len(missing)} named tests are missing from the report, e.g. {missing[0]}" if missing else None


def log_disagrees(g: Graded) -> str | None:
    """The log's status of a named test contradicts the structured report (printed fake "PASSED" lines)."""
    log, outcomes = log_status(g.run, g.runner), g.run.outcomes
    agrees = LOG_AGREES_DJANGO if g.runner == "django" else LOG_AGREES
    for test in g.named:
        if test in outcomes and test in log and log[test] not in agrees.get(outcomes[test], set()):
            return f"the log says {log[test]} for {test}, the structured report says {outcomes[test]}"
    return None


def fail_to_pass_not_passing(g: Graded) -> str | None:
    """A FAIL_TO_PASS test does not pass (`_passes`)."""
    return _first_not_passing(g, g.fail_to_pass, "FAIL_TO_PASS")


def pass_to_pass_not_passing(g: Graded) -> str | None:
    """A PASS_TO_PASS test does not pass (`_passes`)."""
    return _first_not_passing(g, g.pass_to_pass, "PASS_TO_PASS")


def bad_exit_code(g: Graded) -> str | None:
    """The test runner exited with a status the gold run did not (an unnamed failure, a crash after the tests)."""
    if g.run.exit_code not in g.allowed_exit_codes:
        return f"the test runner exited with status {g.run.exit_code} though every named test passed"
    return None


Check = Callable[[Graded], "str | None"]
# The checks of a test run by name, in the order `grade` applies them; `disabled` (screening's mutants, C6) switches a
# check off by its name, except that "exit_code" also switches off "failfast_exit_code", and "test_run" and "applies" are
# always on. Not here: "static" (`static_problem`, on the diff before any run) and "strict_outcomes" (how the test-list
# checks read a skip or xfail, `_passes`).
RUN_CHECKS: dict[str, Check] = {
    "test_run": run_failed,
    "applies": diff_not_applied,
    "failfast_exit_code": stopped_at_first_failure,
    "complete_report": incomplete_report,
    "log_agrees": log_disagrees,
    "fail_to_pass": fail_to_pass_not_passing,
    "pass_to_pass": pass_to_pass_not_passing,
    "exit_code": bad_exit_code,
}
ALWAYS_ON = frozenset({"test_run", "applies"})
SWITCHED_OFF_BY = {"failfast_exit_code": "exit_code"}


def grade(run: TestRun, fail_to_pass: list[str], pass_to_pass: list[str], gold_outcomes: dict[str, str],
          disabled: frozenset[str] = frozenset(), runner: str = "pytest", gold_exit_code: int | None = 0) -> tuple[bool, str]:
    """(PASS?, reason) for a test run of the candidate with the hidden tests applied: the first check in `RUN_CHECKS`
    that is on and finds a problem fails it."""
    graded = Graded(run, fail_to_pass, pass_to_pass, gold_outcomes, disabled, runner, gold_exit_code)
    for name, check in RUN_CHECKS.items():
        if name not in ALWAYS_ON and SWITCHED_OFF_BY.get(name, name) in disabled:
            continue
        problem = check(graded)
        if problem:
            return False, problem
    return True, "every FAIL_TO_PASS and PASS_TO_PASS test passes"


def _first_not_passing(g: Graded, tests: list[str], group: str) -> str | None:
    for test in tests:
        got = g.run.outcomes.get(test, "missing")
        if not _passes(got, g.gold_outcomes.get(test), strict="strict_outcomes" not in g.disabled,
                       missing_ok="complete_report" in g.disabled):
            return f"{group} test {test}: {got}"
    return None


def _first_failure(run: TestRun, fail_to_pass: list[str], pass_to_pass: list[str]) -> str:
    test, outcome = next(((t, o) for t, o in run.outcomes.items() if o in ("failed", "error")), (None, None))
    if test in fail_to_pass or test in pass_to_pass:
        return f"{'FAIL_TO_PASS' if test in fail_to_pass else 'PASS_TO_PASS'} test {test}: {outcome}"
    return f"the test runner exited with status {run.exit_code}" + (f" ({test}: {outcome})" if test else "")


def _passes(got: str, gold: str | None, strict: bool, missing_ok: bool) -> bool:
    if got == "passed" or (got == "missing" and missing_ok):
        return True
    if not strict:
        return got in ("skipped", "xfailed", "xpassed")  # upstream's reading
    return gold is not None and got == gold  # the gold run's own skip/xfail
