"""AppWorld's tasks have the code format (sources/formats/code.py): state tasks whose candidates are programs. The
format gives their checks; nothing promises them a public environment (AppWorld serves none), no interaction-record
operator screens them, and the audit certifies their candidates (it rejected every one while the well-formedness
check was the state type's, an interaction record's)."""

from __future__ import annotations

from typing import Any

from verifierbench.audit import certification, deterministic
from verifierbench.core.proposals import Proposal
from verifierbench.harness.dataset import task_sample
from verifierbench.harness.prompt import build_prompt, task_files
from verifierbench.core.schema import Label
from verifierbench.sources import registry
from verifierbench.sources.appworld import build, runtime
from verifierbench.sources.formats.code import CODE
from verifierbench.sources.formats.registry import format_of, sample_public_format

ENTRY = {"task_id": "abc_1", "instruction": "Like my three most played songs.", "allowed_apps": ["spotify"],
         "supervisor": {"first_name": "Ann", "last_name": "Lee", "email": "ann@lee.test"}, "datetime": "2023-05-18"}
CODE_CANDIDATE = {"code": "apis.supervisor.complete_task()"}


def appworld_task():
    return build.make_task(ENTRY, "0.1.3")


def test_its_tasks_are_state_tasks_of_the_code_format():
    task = appworld_task()
    assert registry.source("appworld").format is CODE and format_of(task) is CODE
    assert (task.type.value, task.candidate_format.value) == ("state", "code")
    assert CODE.well_formed(CODE_CANDIDATE) and not CODE.well_formed({"messages": [], "final_response": ""})
    assert "interaction record" not in CODE.audit_failure_modes and CODE.audit_format_note == ""


def test_no_public_environment_is_promised():
    task = appworld_task()
    assert not registry.source("appworld").public_environment
    prompt = build_prompt(task, run_public_budget=20)
    assert "there is no public environment to execute, so `run_public` and `reset` are unavailable" in prompt
    assert "`run_public` executes" not in prompt
    sample = task_sample(task, 20, has_tools=True)
    assert sample.metadata is not None and sample.metadata["public_environment"] is False
    assert sample_public_format(sample.metadata) is None  # so the harnesses offer no run_public or reset tool
    assert '"code": "print(\'example\')"' in task_files(task)["/workspace/task/example_candidate.json"]


def test_no_interaction_record_operators_or_auditor():
    appworld = registry.source("appworld")
    assert appworld.mutation_operators() == () and appworld.naive_checks() is None
    assert not deterministic.supports(appworld_task())


def test_the_audit_certifies_its_candidates(monkeypatch):
    """AppWorld's evaluation stands in for its runtime (not installed here); the rest is the audit's own path."""
    evaluated: list[dict[str, Any]] = []

    def evaluate(message: dict[str, Any]) -> dict[str, Any]:
        evaluated.append(message)
        success = "complete_task" in message["code"]
        return {"success": success, "pass_count": 2, "failures": [] if success else ["task not completed"]}

    monkeypatch.setattr(runtime, "call", evaluate)
    task = appworld_task()
    proposals = [Proposal(CODE_CANDIDATE, Label.PASS, "completes the task", "llm", "llm"),
                 Proposal({"code": "x = 1"}, Label.FAIL, "does nothing", "llm", "llm"),
                 Proposal({"code": "x = 1"}, Label.PASS, "does nothing", "llm", "llm"),
                 Proposal({"messages": [], "final_response": "done"}, Label.PASS, "a record", "llm", "llm")]
    witnesses, dropped = certification.screen(task, proposals, set())
    assert [(w.candidate, w.label) for w in witnesses] == [(CODE_CANDIDATE, Label.PASS), ({"code": "x = 1"}, Label.FAIL)]
    assert [reason for _, reason in dropped] == ["already in the hidden suite or the witness pool", "not in the code candidate format"]
    assert [m["task_id"] for m in evaluated] == ["abc_1", "abc_1"]
