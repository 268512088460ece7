"""Task kinds (verifierbench/kinds.py) own what differs between task types: one kind per type, and no core file
branches on a task type itself."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import REPO_ROOT
from verifierbench.kinds import KINDS, CodeKind, StateKind, TaskKind, ToolCallKind, kind_named, kind_of, sample_kind
from verifierbench.schema import TaskType

PACKAGE = REPO_ROOT / "verifierbench"
TYPE_VALUES = frozenset(t.value for t in TaskType)
BRANCHING = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq, ast.In, ast.NotIn)
# Sources may know their own type; the kinds module is where the types are told apart.
EXEMPT = ("sources/", "kinds.py")
# (file, the expression) that names a type value without branching on a task type. Each says why it may stay.
ALLOWED = {
    # The paper numbers its per-type tables (16: tool-call, 17: state, 18: code): data, not behaviour.
    ("leaderboard/tables.py", "{'tool-call': 16, 'state': 17, 'code': 18}"),
    # A key of the public service's reset reply, not a task type.
    ("harness/tools.py", "'state' not in reply"),
}


def _names_type(node: ast.AST) -> bool:
    """`TaskType.<member>` (or its `.value`), a type value as a string literal, or a collection holding one."""
    if isinstance(node, ast.Attribute) and node.attr == "value":
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "TaskType":
        return True
    if isinstance(node, ast.Constant):
        return node.value in TYPE_VALUES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_type(e) for e in node.elts)
    return False


def _keys_by_type(key: ast.AST) -> bool:
    """A dict key that is a task type: `TaskType.<member>`, or "tool-call" ("state" and "code" key much else)."""
    return _names_type(key) and not (isinstance(key, ast.Constant) and key.value != TaskType.tool_call.value)


def type_branches(tree: ast.AST) -> list[ast.AST]:
    """Comparisons (is, ==, in and their negations) against a task type, and dicts keyed by task types."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(op, BRANCHING) and (_names_type(operands[i]) or _names_type(operands[i + 1]))
                   for i, op in enumerate(node.ops)):
                found.append(node)
        elif isinstance(node, ast.Dict) and any(k is not None and _keys_by_type(k) for k in node.keys):
            found.append(node)
    return found


def core_type_branches() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(EXEMPT):
            continue
        for node in type_branches(ast.parse(path.read_text(encoding="utf-8"))):
            found.add((relative, ast.unparse(node)))
    return found


def test_no_core_file_branches_on_a_task_type():
    branches = core_type_branches()
    assert branches <= ALLOWED, f"branch on a task type outside kinds.py (ask the task's kind instead): {sorted(branches - ALLOWED)}"
    assert ALLOWED <= branches, f"allowlist entries no longer found, remove them: {sorted(ALLOWED - branches)}"


@pytest.mark.parametrize("source, caught", [
    ("if task.type is TaskType.code: pass", True),
    ("x = t.type.value != TaskType.tool_call.value", True),
    ("x = task_type in ('', 'tool-call')", True),
    ("x = {TaskType.state: 1}", True),
    ("x = {'tool-call': 1, 'state': 2}", True),
    ("x = {'code': 1, 'state': 2}", False),
    ("x = kind_of(task).runs_tests", False),
    ("x = reply.get('checker') == 'tau2'", False),
])
def test_the_check_sees_type_branches(source, caught):
    assert bool(type_branches(ast.parse(source))) is caught


def test_one_kind_per_task_type():
    assert set(KINDS) == TYPE_VALUES
    for member in TaskType:
        kind = kind_named(member)
        assert isinstance(kind, TaskKind) and kind.name == member.value and kind_named(member.value) is kind
    with pytest.raises(KeyError):
        kind_named("tool_call")


def test_a_sample_without_a_type_is_a_tool_call_sample():
    assert sample_kind(None) is sample_kind("") is KINDS["tool-call"]
    assert sample_kind("code") is KINDS["code"]


def test_kinds_keep_the_values_the_core_branched_on():
    tool_call, state, code = KINDS["tool-call"], KINDS["state"], KINDS["code"]
    assert (type(tool_call), type(state), type(code)) == (ToolCallKind, StateKind, CodeKind)
    assert [k.judge_rounds(3) for k in (tool_call, state, code)] == [1, 3, 3]
    assert [k.repeat_runs for k in (tool_call, state, code)] == [2, 3, 3]
    assert [k.runs_tests for k in (tool_call, state, code)] == [False, False, True]
    assert [k.has_public_environment for k in (tool_call, state, code)] == [False, True, True]
    assert [k.empty_public_request() for k in (tool_call, state, code)] == [None, {"calls": []}, {"diff": "", "tests": []}]
    assert [k.audit_batch_size(5, 2) for k in (tool_call, state, code)] == [5, 8, 5]
    assert state.audit_batch_size(1, 4) == 16 and code.audit_batch_size(0, 4) == 1
    assert code.well_formed({"diff": ""}) and not code.well_formed({"diff": "", "tests": []})
    assert tool_call.well_formed({"raw": "", "parsed": []}) and not tool_call.well_formed({"raw": ""})


def test_kind_of_reads_the_task_type():
    class Fake:
        type = TaskType.state
        environment: dict = {}

    assert kind_of(Fake()) is KINDS["state"]
