"""What differs between task types is the candidate format's (sources/formats/; tests/sources/test_formats.py):
no core file branches on a task type itself."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import REPO_ROOT
from verifierbench.core.schema import TaskType

PACKAGE = REPO_ROOT / "verifierbench"
TYPE_VALUES = frozenset(t.value for t in TaskType)
BRANCHING = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq, ast.In, ast.NotIn)
# Sources may know their own type; the formats (sources/formats/) are where the types are told apart.
EXEMPT = ("sources/",)
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
    assert branches <= ALLOWED, f"branch on a task type outside sources/ (ask the task's format instead): {sorted(branches - ALLOWED)}"
    assert ALLOWED <= branches, f"allowlist entries no longer found, remove them: {sorted(ALLOWED - branches)}"


@pytest.mark.parametrize("source, caught", [
    ("if task.type is TaskType.code: pass", True),
    ("x = t.type.value != TaskType.tool_call.value", True),
    ("x = task_type in ('', 'tool-call')", True),
    ("x = {TaskType.state: 1}", True),
    ("x = {'tool-call': 1, 'state': 2}", True),
    ("x = {'code': 1, 'state': 2}", False),
    ("x = format_of(task).runs_tests", False),
    ("x = reply.get('checker') == 'tau2'", False),
])
def test_the_check_sees_type_branches(source, caught):
    assert bool(type_branches(ast.parse(source))) is caught

