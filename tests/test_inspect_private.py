"""The private inspect_ai names the package uses live in verifierbench/inspect_api/private.py alone, each pinned here: an
Inspect release that moves or changes one fails the test naming it, not a harness at run time. The harness package
imports no private inspect_ai module at all."""

from __future__ import annotations

import ast
import inspect

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "verifierbench"
CONFINED = PACKAGE / "inspect_api" / "private.py"


def private_inspect_imports(path) -> list[str]:
    """The `_`-prefixed inspect_ai modules a file imports (function-level imports too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
        found += [name for name in names if name.split(".")[0] == "inspect_ai" and any(p.startswith("_") for p in name.split("."))]
    return found


def test_no_module_but_inspect_private_imports_a_private_inspect_module():
    offending = {str(path.relative_to(REPO_ROOT)): names for path in sorted(PACKAGE.rglob("*.py"))
                 if path != CONFINED and (names := private_inspect_imports(path))}
    assert offending == {}
    assert not any(private_inspect_imports(path) for path in (PACKAGE / "harness").rglob("*.py"))
    assert len(private_inspect_imports(CONFINED)) == 3  # each pinned below


def test_the_other_private_names_are_what_their_users_expect():
    from inspect_ai.util import SandboxEnvironment

    from verifierbench.inspect_api.private import DockerSandboxEnvironment, PrerequisiteError, scorer_register

    assert issubclass(DockerSandboxEnvironment, SandboxEnvironment)
    assert issubclass(PrerequisiteError, Exception)
    assert {"name", "metadata"} <= set(inspect.signature(scorer_register).parameters)


@pytest.mark.parametrize("nesting", [0, 1, 2])
def test_pi_vgb_raises_what_the_bridge_raised_out_of_its_task_group(nesting):
    from verifierbench.harness.pi_vgb import first_leaf

    raised: BaseException = LookupError("limit")
    exc: BaseException = raised
    for _ in range(nesting):
        exc = BaseExceptionGroup("task group", [exc, ValueError("other")])
    assert first_leaf(exc) is raised
