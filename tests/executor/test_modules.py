"""The executor's modules: no import cycle among them, and the sandbox's paths spelled in executor/layout.py only."""

from __future__ import annotations

import ast

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "verifierbench"
EXECUTOR = PACKAGE / "executor"
# What only executor/layout.py may spell: the sandbox's mount points and the run_public socket's name.
LAYOUT_STRINGS = ("/opt/vgb", "/run/vgb", "public.sock", "/verifier", "/input", "/output")


def _executor_imports() -> dict[str, set[str]]:
    """executor module -> the executor modules it imports (module-level and function-level alike)."""
    edges: dict[str, set[str]] = {}
    for path in EXECUTOR.glob("*.py"):
        imported = edges.setdefault(path.stem, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "verifierbench.executor":
                imported |= {alias.name for alias in node.names if (EXECUTOR / f"{alias.name}.py").exists()}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("verifierbench.executor."):
                imported.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[2] for alias in node.names if alias.name.startswith("verifierbench.executor.")}
    return edges


def test_the_executor_modules_import_no_cycle():
    edges = _executor_imports()
    edges.pop("__init__", None)  # the facade imports the modules; none imports it back but through `executor import x`
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(edges.get(module, ())):
            assert state.get(other) != 1, f"import cycle: {' -> '.join([*path, module, other])}"
            if other not in state:
                visit(other, [*path, module])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [])


def _string_constants(tree: ast.AST) -> list[str]:
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_the_sandbox_layout_is_spelled_once():
    spelled = {}
    for path in PACKAGE.rglob("*.py"):
        if path == EXECUTOR / "layout.py":
            continue
        for value in _string_constants(ast.parse(path.read_text(encoding="utf-8"))):
            if any(value == s or value.startswith(s + "/") for s in LAYOUT_STRINGS):
                spelled.setdefault(str(path.relative_to(PACKAGE)), []).append(value)
    assert not spelled, f"spell these through verifierbench.executor.layout: {spelled}"
