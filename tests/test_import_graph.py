"""The import graph between verifierbench's packages (every import, function-level ones included)."""

from __future__ import annotations

import ast

from tests.conftest import REPO_ROOT, load_script

PACKAGE = REPO_ROOT / "verifierbench"


def package_imports() -> dict[str, set[str]]:
    """Top-level unit -> the units it imports: the scan that also writes docs/architecture.md's import table."""
    return load_script("architecture_map").imports()


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo += edges.get(node, ())
    return False


def test_harness_and_scorers_form_no_cycle():
    """The task (verifierbench/task.py) composes both; the scorers read the harness, never the other way."""
    edges = package_imports()
    assert "scorers" in edges["task"] and "harness" in edges["task"] and "harness" in edges["scorers"]
    assert not _reaches(edges, "harness", "scorers")


def test_no_two_packages_import_each_other():
    """Core packages reach a source through the registry's typed methods; a source imports the layers below it
    (construction/, the data model, executor/), never the screening, the audit or `references` that call it."""
    edges = package_imports()
    mutual = {tuple(sorted((a, b))) for a in edges for b in edges[a] if a in edges.get(b, ())}
    assert mutual == set(), f"packages importing each other: {sorted(mutual)}"


def test_the_packages_form_no_cycle():
    """No import path leads from a package back to itself (construction -> screening -> ... -> construction was one)."""
    edges = package_imports()
    looped = sorted(unit for unit in edges if any(_reaches(edges, imported, unit) for imported in edges[unit]))
    assert looped == [], f"packages in an import cycle: {looped}"


def module_imports() -> dict[str, set[str]]:
    """verifierbench.X.Y -> the package modules it imports (function-level imports included)."""
    modules = {".".join(p.relative_to(REPO_ROOT).with_suffix("").parts).removesuffix(".__init__") for p in PACKAGE.rglob("*.py")}

    def owner(name: str) -> str | None:  # `from verifierbench.audit import engine` names the module audit.engine
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        importer = ".".join(path.relative_to(REPO_ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                imported = owner(name) if name.startswith("verifierbench.") else None
                if imported is not None and imported != importer:
                    edges.setdefault(importer, set()).add(imported)
    return edges


def test_no_module_cycle_through_the_audit_engine_or_the_harness_tools():
    """The audit rounds and the task analysis share certification (audit/certification.py); the run_public tools and
    the container channel share the sample's service (harness/sample_service.py): neither pair imports the other."""
    edges = module_imports()
    assert "verifierbench.audit.analysis" in edges["verifierbench.audit.engine"]
    for module in ("verifierbench.audit.engine", "verifierbench.audit.analysis", "verifierbench.harness.tools",
                   "verifierbench.harness.public_channel"):
        assert not any(_reaches(edges, imported, module) for imported in edges.get(module, ())), f"{module} is in an import cycle"


def test_no_module_is_in_an_import_cycle():
    """At file level too, no import path (function-level and type-checking imports included) leads from a module back
    to itself: sources/base.py -> toolcall/spec.py -> registry -> base was one; the source families' bases
    (toolcall/base.py, interaction/base.py) hold what only their sources have."""
    edges = module_imports()
    looped = sorted(module for module in edges if any(_reaches(edges, imported, module) for imported in edges[module]))
    assert looped == [], f"modules in an import cycle: {looped}"


# Judging runs where Inspect may be absent (a Ray node, a judge-only install): these modules and a whole `judge`
# command must not import it. The leaderboard reads Inspect's own log files, so it keeps inspect_ai.log.
BLOCK_INSPECT = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "inspect_ai" or name.startswith("inspect_ai."):
            raise ImportError("inspect_ai is blocked here: " + name)
sys.meta_path.insert(0, Block())
"""
JUDGING_MODULES = ("verifierbench.judging.judge", "verifierbench.core.verifier_files", "verifierbench.cluster.node",
                   "verifierbench.cluster.ray_judge", "verifierbench.audit.engine", "verifierbench.public_env.jobs")


def test_judging_imports_nothing_of_inspect(bfcl_suite, tmp_path):
    import subprocess
    import sys

    imports = "".join(f"import {module}\n" for module in JUDGING_MODULES)
    done = subprocess.run([sys.executable, "-c", BLOCK_INSPECT + imports], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    # The positive control: the block does stop an import of Inspect.
    blocked = subprocess.run([sys.executable, "-c", BLOCK_INSPECT + "import verifierbench.task\n"], capture_output=True,
                             text=True, timeout=120)
    assert blocked.returncode != 0 and "inspect_ai is blocked here" in blocked.stderr
    judge = ("from verifierbench.cli.main import main\n"
             f"sys.exit(main(['judge', '--suite', {str(bfcl_suite)!r}, '--verifier', '/dev/null', '--task', "
             f"'bfcl/parallel_114', '--out', {str(tmp_path / 'd.jsonl')!r}, '--quiet']))\n")
    done = subprocess.run([sys.executable, "-c", BLOCK_INSPECT + judge], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "d.jsonl").read_text().count("\n") > 1  # every case decided (U: /dev/null is no verifier)
