"""No isolation available: untrusted code is refused unless the user opts in, and the level is recorded."""

from __future__ import annotations

import pytest

from verifierbench.core.errors import IsolationUnavailable
from verifierbench.executor import Executor, IsolationLevel, Job, Limits, isolation
from verifierbench.core.protocol import Decision
from tests.conftest import write_verifier


@pytest.fixture()
def no_bwrap(monkeypatch):
    monkeypatch.setattr(isolation, "probe_bwrap", lambda: (False, "bubblewrap (bwrap) is not installed"))
    monkeypatch.delenv(isolation.ALLOW_ENV, raising=False)


def test_refuses_without_isolation(no_bwrap):
    with pytest.raises(IsolationUnavailable, match="refusing to run untrusted code.*--allow-unsandboxed"):
        Executor()


def test_none_needs_explicit_consent(monkeypatch):
    monkeypatch.delenv(isolation.ALLOW_ENV, raising=False)
    with pytest.raises(IsolationUnavailable, match="confirm"):
        Executor(isolation="none")


@pytest.mark.parametrize("how", ["flag", "env"])
def test_opt_in_runs_degraded_and_records_it(no_bwrap, monkeypatch, tmp_path, how):
    if how == "env":
        monkeypatch.setenv(isolation.ALLOW_ENV, "1")
    verifier = write_verifier(tmp_path / "v", 'import json, sys\njson.dump({"decision": "PASS"}, open(sys.argv[2], "w"))\n')
    with Executor(Limits(timeout_s=5), allow_unsandboxed=(how == "flag")) as executor:
        assert executor.level is IsolationLevel.none
        outcome = executor.run(Job(verifier, {}, key="k"))
    assert outcome.decision is Decision.P and outcome.isolation == "none"


def test_degraded_mode_still_enforces_the_timeout(no_bwrap, tmp_path):
    verifier = write_verifier(tmp_path / "v", "while True:\n    pass\n")
    with Executor(Limits(timeout_s=1), allow_unsandboxed=True) as executor:
        outcome = executor.run(Job(verifier, {}, key="k"))
    assert outcome.decision is Decision.U and outcome.timed_out


def test_forced_bwrap_without_bwrap_is_refused_even_with_consent(no_bwrap):
    with pytest.raises(IsolationUnavailable):
        Executor(isolation="bwrap", allow_unsandboxed=True)
