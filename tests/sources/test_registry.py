"""The source interface: every source declared in its folder and named once in sources/registry.py; the rest of
the harness reaches a source only through the registry."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

import pytest

from verifierbench import references
from verifierbench.build import build_suite
from verifierbench.errors import UserError
from verifierbench.sources import registry
from verifierbench.sources.base import Source

PACKAGE = Path(registry.__file__).resolve().parent.parent
HOOKS = ("select", "decide", "environment", "read_only_inputs", "answer_key", "check_calls", "expected_calls",
         "mutation_operators", "audit_generators", "docker_compose", "warm_up", "case_timeout")
TOY = "toy"


def test_every_source_is_declared_in_its_folder_and_every_hook_resolves():
    for name in registry.NAMES:
        declared = registry.source(name)
        assert declared.name == name and (PACKAGE / "sources" / name / "source.py").is_file()
        for part in HOOKS:
            target = getattr(declared, part)
            resolved = registry.hook(declared, part)
            assert (resolved is None) == (target is None), (name, part)
            assert target is None or callable(resolved) or (part == "mutation_operators" and resolved), (name, part)
        assert declared.shares is None or (PACKAGE / "sources" / declared.shares).is_dir(), name


def test_the_declared_parts_match_what_each_kind_of_task_needs():
    tool_call = {n for n in registry.NAMES if registry.source(n).check_calls}
    assert tool_call == {"bfcl", "acebench"}
    assert {n for n in registry.NAMES if registry.source(n).environment} == {"agentdojo", "tau2", "swebench"}
    assert {n for n in registry.NAMES if registry.source(n).audit_generators} == {"bfcl", "acebench", "swebench", "tau2", "agentdojo"}
    assert {n for n in registry.NAMES if registry.source(n).warm_up} == {"tau2", "agentdojo"}
    registry.warm_up({"checker": "bfcl"})  # a source without the hook: nothing to load
    assert registry.built_by_default() == ["bfcl", "acebench", "tau2", "agentdojo", "appworld"]
    assert {n for n in registry.NAMES if registry.source(n).docker_compose} == {"swebench"}  # its instance's image
    assert registry.read_only_inputs({"checker": "bfcl"}) == () and not registry.has_environment({"checker": "bfcl"})
    assert not registry.has_environment({}) and registry.read_only_inputs({}) == ()
    # only code tasks run longer than the executor's per-case limit: their own budget, the old 300 s without one
    assert {n for n in registry.NAMES if registry.source(n).case_timeout} == {"swebench"}
    assert registry.case_timeout({"checker": "bfcl"}) is None and registry.case_timeout({}) is None
    assert registry.case_timeout({"checker": "swebench"}) == 300.0
    assert registry.case_timeout({"checker": "swebench", "case_timeout_s": 1200}) == 1200.0


def test_unknown_names_are_one_line_errors():
    with pytest.raises(UserError, match=r"^unknown source 'nope' \(choose from bfcl, acebench, "):
        registry.source("nope")
    with pytest.raises(ValueError, match=r"^unknown checker 'nope'$"):
        references.decide({"checker": "nope"}, {})
    with pytest.raises(ValueError, match=r"^source tau2 has no answer key$"):
        registry.answer_key({"checker": "tau2"})


# A new source is its folder (here this test module stands in for sources/toy/) plus one registry line.
SOURCE = Source(name=TOY, select=f"{__name__}:select_tasks", decide=f"{__name__}:decide")


def select_tasks(seed, paths, say):
    raise UserError(f"toy data missing (seed {seed})")


def decide(reference, candidate):
    return candidate == {"answer": 42}, "the toy's own check"


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry.REGISTRY, TOY, __name__)
    registry.source.cache_clear()
    yield
    registry.source.cache_clear()


def test_a_source_registered_with_one_line_is_decided_and_built_through_its_hooks(toy_registered, tmp_path):
    assert references.decide({"checker": TOY}, {"answer": 42}) == (True, "the toy's own check")
    assert references.decide({"checker": TOY}, {"answer": 41})[0] is False
    with pytest.raises(UserError, match=r"^no source could be built: toy: toy data missing \(seed 3\)$"):
        build_suite(tmp_path / "suite", seed=3, sources=[TOY], say=lambda line: None)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def _package_imports(folder: str) -> set[str]:
    return set().union(*(_imports(p) for p in (PACKAGE / folder).rglob("*.py")))


def test_the_cycles_through_source_dispatch_are_gone():
    """Shared code reaches a source only by its registry line, never by importing it (function-level imports too)."""
    toolcall = _package_imports("sources/toolcall")
    assert not {m for m in toolcall if m.startswith(("verifierbench.sources.bfcl", "verifierbench.sources.acebench"))}
    named = tuple(f"verifierbench.sources.{n}" for n in registry.NAMES)
    for shared in ("references.py", "build.py", "public_env", "screening", "audit/deterministic.py", "harness"):
        path = PACKAGE / shared
        found = _imports(path) if path.is_file() else _package_imports(shared)
        assert not {m for m in found if m.startswith(named)}, shared
    assert not {m for m in _package_imports("audit") if m.startswith("verifierbench.scorers")}


@pytest.mark.skipif(not os.access("/usr/bin/python3", os.X_OK), reason="no system interpreter")
def test_the_declarations_and_the_decision_path_import_with_the_standard_library_only(tmp_path):
    """An exported reference verifier imports `references` inside the sandbox, where /usr/bin/python3 has no
    pydantic: declaring the sources must not import their builds."""
    (tmp_path / "verifierbench").symlink_to(PACKAGE)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from verifierbench.sources import registry; "
            "from verifierbench.references import decide; [registry.source(n) for n in registry.NAMES]; "
            "print(decide({'checker': 'acebench', 'functions': [], 'ground_truth': {}}, {'raw': 'x', 'parsed': 1})[1][:9]); "
            "print('pydantic' in sys.modules)")
    result = subprocess.run(["/usr/bin/python3", "-I", "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["malformed", "False"]
