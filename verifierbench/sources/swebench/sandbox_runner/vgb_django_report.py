"""Runs django's `tests/runtests.py` (argv[1:]) and writes {test name: outcome} when it ends (stdlib only).

The structured counterpart of the log for django's runner, as `vgb_pytest_report` is for pytest: every
unittest result is recorded under the names SWE-bench's django log parser gives (`test_x (module.Class)`,
and a docstring's first line where the runner prints one). The report path is taken from the
environment and removed from it before any tested code is imported. Outcomes: passed, failed, error,
skipped, xfailed, xpassed. A process that exits without passing through here writes no report.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import unittest
from typing import Any, Callable

import vgb_reach

# A TestResult method, as the hooks below wrap it.
_Method = Callable[..., Any]

_PATH = os.environ.pop("VGB_REPORT_PATH", None)
_OUTCOMES: dict[str, str] = {}


def _names(test: unittest.TestCase) -> list[str]:
    # A subtest's skip reaches addSkip with the subtest object ("runTest (unittest.case._SubTest)"), and its
    # test then reports no outcome at all: record it under the test's own names.
    test = getattr(test, "test_case", test)
    method = getattr(test, "_testMethodName", None)
    cls = type(test)
    names = [f"{method} ({cls.__module__}.{cls.__qualname__})"] if method else [str(test)]
    describe = getattr(test, "shortDescription", None)
    first = describe() if callable(describe) else None
    if first:
        names.append(first.strip())
    return names


def _record(outcome: str, overwrite: bool = True, keep: tuple[str, ...] = ()) -> Callable[[_Method], _Method]:
    def hook(original: _Method) -> _Method:
        def wrapper(self: unittest.TestResult, test: unittest.TestCase, *args: Any) -> Any:
            for name in _names(test):
                if _OUTCOMES.get(name) in keep:
                    continue
                if overwrite or name not in _OUTCOMES or _OUTCOMES[name] == "passed":
                    _OUTCOMES[name] = outcome
            return original(self, test, *args)
        return wrapper
    return hook


def _sub_test(original: _Method) -> _Method:
    def wrapper(self: unittest.TestResult, test: unittest.TestCase, subtest: unittest.TestCase,
                err: tuple[type[BaseException], BaseException, Any] | None) -> Any:
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            for name in _names(test):
                _OUTCOMES[name] = "failed" if failed else "error"
        return original(self, test, subtest, err)
    return wrapper


_result = unittest.TestResult
_result.addSuccess = _record("passed", overwrite=False)(_result.addSuccess)
_result.addFailure = _record("failed")(_result.addFailure)
_result.addError = _record("error")(_result.addError)
_result.addSkip = _record("skipped", keep=("failed", "error"))(_result.addSkip)  # a skipped subtest after a failed one
_result.addExpectedFailure = _record("xfailed")(_result.addExpectedFailure)
_result.addUnexpectedSuccess = _record("xpassed")(_result.addUnexpectedSuccess)
_result.addSubTest = _sub_test(_result.addSubTest)


def _start(original: _Method) -> _Method:
    def wrapper(self: unittest.TestResult, test: unittest.TestCase) -> Any:
        vgb_reach.start(_names(test))
        return original(self, test)
    return wrapper


def _stop(original: _Method) -> _Method:
    def wrapper(self: unittest.TestResult, test: unittest.TestCase) -> Any:
        vgb_reach.stop()
        return original(self, test)
    return wrapper


if vgb_reach.enabled():  # the build's reach map (`vgb_reach`): only then are tests' starts and stops watched
    _result.startTest = _start(_result.startTest)
    _result.stopTest = _stop(_result.stopTest)


def _write(status: int) -> None:
    if _PATH:
        with open(_PATH, "w", encoding="utf-8") as handle:
            json.dump({"outcomes": _OUTCOMES, "exitstatus": status}, handle)


def main() -> None:
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    status = 0
    vgb_reach.install()
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    vgb_reach.write()
    _write(status)
    sys.exit(status)


if __name__ == "__main__":
    main()
