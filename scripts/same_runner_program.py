"""Do two commits' sandbox runners run the same program? Compares every file of
`verifierbench/sources/swebench/sandbox_runner` at two git revisions after removing what only type checkers read:
annotations, imports from `typing` and `__future__`, `if TYPE_CHECKING:` blocks and `Callable[...]` aliases.

Why: the run cache keys a test run by the runner's bytes (`runcache.runner_digest`), so a change of annotations alone
discards every cached run. Where this script says "program same" for every file, a build at the older commit may be
given the newer commit's runner files and reuse the newer build's runs; comparing its output with the newer build's
is then the identity check of everything else (issue 36: the 47 rebuilt before and after the redesign, docs/testing.md).

    python scripts/same_runner_program.py 6237d6a 0be819f     # exit status 0 when every file is the same program
"""

from __future__ import annotations

import ast
import subprocess
import sys

RUNNER = "verifierbench/sources/swebench/sandbox_runner"


class _TypesOnly(ast.NodeTransformer):
    """Drops what only a type checker reads."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        node.returns = None
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AsyncFunctionDef:
        self.generic_visit(node)
        node.returns = None
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.ImportFrom | None:
        return None if node.module in ("typing", "__future__") else node

    def visit_If(self, node: ast.If) -> ast.AST | None:
        return None if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING" else self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.Assign | None:
        value = node.value
        alias = isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == "Callable"
        return None if alias else node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.Assign | None:
        return None if node.value is None else ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def normalized(text: str) -> str:
    """A Python file's program: its syntax tree without type-only parts, comments and layout."""
    return ast.dump(_TypesOnly().visit(ast.parse(text)))


def program(rev: str, name: str) -> str:
    """The file's program at `rev` (other files than Python's: their text)."""
    text = _git("show", f"{rev}:{RUNNER}/{name}")
    return normalized(text) if name.endswith(".py") else text


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    old, new = argv
    names = [sorted(_git("ls-tree", "--name-only", f"{rev}:{RUNNER}").split()) for rev in (old, new)]
    if names[0] != names[1]:
        print(f"different files: {names[0]} against {names[1]}")
        return 1
    same = True
    for name in names[0]:
        bytes_same = _git("rev-parse", f"{old}:{RUNNER}/{name}") == _git("rev-parse", f"{new}:{RUNNER}/{name}")
        program_same = program(old, name) == program(new, name)
        same &= program_same
        print(f"{name}: bytes {'same' if bytes_same else 'differ'}, program {'same' if program_same else 'DIFFERS'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
