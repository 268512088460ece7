"""Candidate formats (sources/formats/): one object per format owns what differs between formats, a source declares
its format, and a task's type is its format's, declared nowhere else."""

from __future__ import annotations

import pytest

from verifierbench.core.schema import CandidateFormat, Task, TaskType
from verifierbench.sources import registry
from verifierbench.sources.base import Source, register_source
from verifierbench.sources.formats.base import FORMATS, Format, PublicRun, register_format
from verifierbench.sources.formats.code import CODE
from verifierbench.sources.formats.diff import DIFF
from verifierbench.sources.formats.interaction_record import INTERACTION_RECORD
from verifierbench.sources.formats.registry import BUILT_IN, TASK_TYPES, format_named, format_of, sample_public_format
from verifierbench.sources.formats.tool_calls import TOOL_CALLS

ALL = (TOOL_CALLS, INTERACTION_RECORD, CODE, DIFF)


def test_the_built_in_formats_are_registered_and_their_types_are_the_task_types():
    assert BUILT_IN == ALL and set(FORMATS) >= {f.name for f in ALL}
    assert set(TASK_TYPES) == {t.value for t in TaskType} and TASK_TYPES == ("tool-call", "state", "code")
    for known in ALL:
        found = format_named(known.name)
        assert found is known and isinstance(found, Format)
    with pytest.raises(KeyError, match="no candidate format 'tool-call'"):
        format_named("tool-call")
    with pytest.raises(ValueError, match="registered twice"):
        class Impostor(Format):
            name = "diff"

            def well_formed(self, candidate):
                return True

        register_format(Impostor())


def test_every_source_declares_the_format_its_tasks_have():
    declared = {name: registry.source(name).format for name in registry.NAMES}
    assert declared == {"bfcl": TOOL_CALLS, "acebench": TOOL_CALLS, "tau2": INTERACTION_RECORD,
                        "agentdojo": INTERACTION_RECORD, "swebench": DIFF, "appworld": CODE}
    with pytest.raises(ValueError, match="declares no candidate format"):
        @register_source
        class Formless(Source):
            name = "formless"

            def select(self, seed, paths, say):
                raise AssertionError

            def decide(self, reference, candidate):
                return True, "always"


def test_the_task_type_is_derived_from_the_format():
    task = Task.create(source="bfcl", source_id="x", format=CODE, instruction="", environment={}, reference={})
    assert (task.type, task.candidate_format) == (TaskType.state, "code") and format_of(task) is CODE
    assert isinstance(task.candidate_format, CandidateFormat)  # a name the format registry checks, as a source's
    unknown = Task.create(source="bfcl", source_id="y", type="state", candidate_format="nonesuch", instruction="", environment={})
    with pytest.raises(KeyError, match="no candidate format 'nonesuch'"):
        format_of(unknown)
    with pytest.raises(ValueError, match="pass neither"):
        Task.create(source="bfcl", source_id="x", format=CODE, type="state", instruction="", environment={})


def test_the_formats_keep_the_values_the_core_branched_on():
    tool_calls, record, code, diff = ALL
    assert [f.judge_rounds(3) for f in ALL] == [1, 3, 3, 3]
    assert [f.repeat_runs for f in ALL] == [2, 3, 3, 3]
    assert [f.runs_tests for f in ALL] == [False, False, False, True]
    assert [f.replays_proposed_results for f in ALL] == [False, True, False, False]
    assert [f.public_run is not None for f in ALL] == [False, True, False, True]
    assert [f.audit_batch_size(5, 2) for f in ALL] == [5, 8, 8, 5]
    assert record.audit_batch_size(1, 4) == 16 and diff.audit_batch_size(0, 4) == 1
    assert isinstance(record.public_run, PublicRun) and isinstance(diff.public_run, PublicRun)
    assert [record.public_run.empty_request(), diff.public_run.empty_request()] == [{"calls": []}, {"diff": "", "tests": []}]
    assert record.public_run.message({"calls": [1]}) == {"op": "run_public", "calls": [1]}
    with pytest.raises(ValueError, match="a code task takes"):
        diff.public_run.message([])
    assert diff.well_formed({"diff": ""}) and not diff.well_formed({"diff": "", "tests": []})
    assert tool_calls.well_formed({"raw": "", "parsed": []}) and not tool_calls.well_formed({"raw": ""})
    assert code.well_formed({"code": ""}) and not code.well_formed({"diff": ""})
    for f in ALL:
        assert f.well_formed(f.example), f.name  # the prompt's example has the shape the format promises


def test_format_pieces_and_a_source_s_own():
    assert [len(f.mutation_operators()) > 0 for f in ALL] == [True, True, False, False]
    assert [f.auditor() is not None for f in ALL] == [True, True, False, False]
    assert [f.naive_checks() is not None for f in ALL] == [True, True, False, False]
    swebench, agentdojo = registry.source("swebench"), registry.source("agentdojo")
    assert swebench.auditor() is not None and swebench.naive_checks() is not None and swebench.mutation_operators()
    # AgentDojo adds its own operators to the interaction record's
    assert set(INTERACTION_RECORD.mutation_operators()) < set(agentdojo.mutation_operators())


def test_a_sample_promises_run_public_only_with_a_public_environment():
    assert sample_public_format({}) is None and sample_public_format({"task_type": "state"}) is None
    assert sample_public_format({"candidate_format": "interaction_record", "public_environment": True}) is INTERACTION_RECORD
    assert sample_public_format({"candidate_format": "code", "public_environment": False}) is None
    # a format without run_public messages has no public environment, whatever the metadata says
    assert sample_public_format({"candidate_format": "tool_calls", "public_environment": True}) is None
    assert [registry.source(n).public_environment for n in registry.NAMES] == [False, False, True, True, True, False]


RUN_NOTE = ("`run_public` executes in the task's public environment and `reset` restores its initial state. During "
            "generation you have 7 `run_public` executions in all (tool calls and calls through `vgb_env`); past that "
            "it answers `BudgetExceeded: run_public`.")


@pytest.mark.parametrize("checker, format, environment, note", [
    ("bfcl", TOOL_CALLS, {}, "This is a tool-call task: there is no public environment to execute, so `run_public` and "
                             "`reset` are unavailable."),
    ("tau2", INTERACTION_RECORD, {}, RUN_NOTE),
    ("swebench", DIFF, {"test_environment": "x"},
     "The repository checkout is mounted read-only at /repo, here and in every run of your verifier; `run_public` copies "
     "it, applies a diff and runs the named tests. The repository's test environment (its Python and test requirements) "
     "is mounted read-only at /env. " + RUN_NOTE),
    ("appworld", CODE, {}, "This is a state task: there is no public environment to execute, so `run_public` and "
                           "`reset` are unavailable."),
])
def test_the_prompt_promises_run_public_where_the_source_serves_it(checker, format, environment, note):
    from verifierbench.harness.prompt import environment_note

    task = Task.create(source=checker, source_id="x", format=format, instruction="", environment=environment,
                       reference={"checker": checker})
    assert environment_note(task, 7) == note


def test_the_build_refuses_a_task_whose_format_is_not_its_source_s():
    from types import SimpleNamespace

    from verifierbench.suite.build import _check_formats

    record = Task.create(source="tau2", source_id="x", format=INTERACTION_RECORD, instruction="", environment={})
    _check_formats("tau2", SimpleNamespace(retained=[SimpleNamespace(task=record)]))  # type: ignore[arg-type]
    code = Task.create(source="tau2", source_id="y", format=CODE, instruction="", environment={})
    with pytest.raises(ValueError, match="declares the interaction_record format .* is code"):
        _check_formats("tau2", SimpleNamespace(retained=[SimpleNamespace(task=code)]))  # type: ignore[arg-type]


def test_an_exact_match_compares_what_the_format_names_in_process_and_in_the_exported_verifier(tmp_path):
    """C5's exact-match baseline asks the task's format (a tool call's raw reply; else the whole candidate), and the
    exported exact-match verifier computes the same text in the sandbox from `exact_match.json`."""
    from verifierbench.suite import export

    same_calls = {"raw": "[f(a=1)]", "parsed": [{"name": "f", "arguments": {"a": 1}}]}
    rewritten = {"raw": "[f(a = 1)]", "parsed": same_calls["parsed"]}
    assert TOOL_CALLS.exact_match_field == "raw" and all(f.exact_match_field is None for f in ALL[1:])
    assert TOOL_CALLS.exact_match_text(same_calls) != TOOL_CALLS.exact_match_text(rewritten)
    record = {"messages": [{"role": "assistant", "content": "x"}]}
    assert INTERACTION_RECORD.exact_match_text(record) == INTERACTION_RECORD.exact_match_text(dict(reversed(record.items())))
    # The template's text function, run as the sandbox would, against the format's, for both kinds of field.
    namespace: dict = {"json": __import__("json")}
    template = export.TEMPLATES["exact-match"]
    exec(template[template.index("def text("):template.index("field = beside")], namespace)
    for fmt, candidate in ((TOOL_CALLS, rewritten), (INTERACTION_RECORD, record), (CODE, {"diff": "--- a\n"})):
        assert namespace["text"](candidate, fmt.exact_match_field) == fmt.exact_match_text(candidate)


def test_reference_decisions_run_a_few_at_a_time_only_where_each_runs_the_tests():
    """`Format.run_each`: a diff task's decisions overlap (two meet at a barrier they could not both reach one after
    the other); a tool-call task's run in order in the calling thread; both return in the items' order."""
    import threading

    barrier = threading.Barrier(2, timeout=10)

    def meets(item: int) -> tuple[int, str]:
        if item < 2:
            barrier.wait()  # raises BrokenBarrierError after 10 s when the other never comes
        return item, threading.current_thread().name

    assert DIFF.runs_tests and [item for item, _ in DIFF.run_each(meets, range(6))] == list(range(6))
    here = threading.current_thread().name
    assert TOOL_CALLS.run_each(lambda item: (item, threading.current_thread().name), [3, 1, 2]) == [(3, here), (1, here), (2, here)]
