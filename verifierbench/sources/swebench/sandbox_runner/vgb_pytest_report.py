"""A pytest plugin (stdlib + pytest only) that writes {node id: outcome} when the session ends.

The report path is taken from the environment and removed from it at import, before any tested
code is imported, so code under test is not told where the report goes. Outcomes: passed, failed,
error (setup/teardown), skipped, xfailed, xpassed. A node id with whitespace in it (a parameter such as
`test_stem[png-w/ line collection]`) is also recorded under the name SWE-bench's log parser gives it, and
the dataset uses: the node id up to its first whitespace; where several share that name, the worst outcome.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import vgb_reach

if TYPE_CHECKING:
    import pytest

_PATH = os.environ.pop("VGB_REPORT_PATH", None)
_OUTCOMES: dict[str, str] = {}
vgb_reach.install()  # the build's reach map, when the run asks for one: from before any conftest.py is imported


def pytest_runtest_logreport(report: pytest.TestReport) -> None:  # pytest hook
    node = report.nodeid
    if getattr(report, "wasxfail", None) is not None:
        _OUTCOMES[node] = "xfailed" if report.skipped else "xpassed"
    elif report.when == "call":
        _OUTCOMES[node] = report.outcome
    elif report.failed:
        _OUTCOMES[node] = "error"
    elif report.skipped:
        _OUTCOMES[node] = "skipped"
    elif report.when == "setup" and node not in _OUTCOMES:
        _OUTCOMES[node] = "setup-passed"


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:  # pytest hook
    short = nodeid.split()[0] if nodeid.strip() else nodeid
    vgb_reach.start([nodeid] + ([short] if short != nodeid else []))


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:  # pytest hook
    vgb_reach.stop()


def pytest_collectreport(report: pytest.CollectReport) -> None:  # pytest hook
    if report.failed:
        _OUTCOMES[report.nodeid or "<collection>"] = "collection-error"


_RANK = {"passed": 0, "xfailed": 1, "skipped": 2, "xpassed": 3, "failed": 4, "error": 5, "collection-error": 6}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int | pytest.ExitCode) -> None:  # pytest hook
    vgb_reach.write()
    if _PATH:
        outcomes = {k: ("error" if v == "setup-passed" else v) for k, v in _OUTCOMES.items()}
        shortened: dict[str, str] = {}
        for node, outcome in outcomes.items():
            short = node.split()[0] if node.strip() else node
            if short != node and short not in _OUTCOMES:  # a real node id of that name keeps its own outcome
                kept = shortened.get(short)
                shortened[short] = outcome if kept is None or _RANK.get(outcome, 6) > _RANK.get(kept, 6) else kept
        outcomes.update(shortened)
        with open(_PATH, "w", encoding="utf-8") as handle:
            json.dump({"outcomes": outcomes, "exitstatus": int(exitstatus)}, handle)
