"""vgb_env runs inside every sandbox (generation and verifier executor), where only the standard library is."""

from __future__ import annotations

import ast
import sys

from verifierbench.sandboxes import IN_SANDBOX_LIB, VGB_ENV


def test_vgb_env_imports_the_standard_library_only():
    imported = set()
    for path in VGB_ENV.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names), sorted(imported - set(sys.stdlib_module_names))


def test_the_mounted_directory_holds_vgb_env_and_nothing_of_verifierbench():
    """The whole directory is mounted at /opt/vgb/lib: nothing else may be in it (an empty __init__.py at most)."""
    entries = {p.name for p in IN_SANDBOX_LIB.iterdir() if p.name != "__pycache__"}
    assert entries <= {"vgb_env", "__init__.py"} and "vgb_env" in entries
    init = IN_SANDBOX_LIB / "__init__.py"
    assert not init.exists() or init.read_text().strip() == ""
