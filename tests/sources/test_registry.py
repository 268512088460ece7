"""The source interface: every source a `Source` subclass in its folder, registered with `@register_source` and
listed once in sources/registry.py; the rest of the harness reaches a source only through its typed methods."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from verifierbench.sources import references
from verifierbench.suite.build import build_suite
from verifierbench.core.errors import UserError
from verifierbench.sources import registry
from verifierbench.sources.base import MissingPart, Source, register_source
from verifierbench.sources.interaction.base import InteractionSource, interaction_source
from verifierbench.sources.toolcall.base import ToolCallSource, spec_for_reference
from verifierbench.sources.formats.code import CODE
from verifierbench.sources.formats.tool_calls import TOOL_CALLS

PACKAGE = Path(registry.__file__).resolve().parent.parent
TOY = "toy"


def _having(part: str) -> set[str]:
    """The sources whose class overrides `Source.<part>`."""
    return {name for name in registry.NAMES if getattr(type(registry.source(name)), part) is not getattr(Source, part)}


def _of_family(family: type) -> set[str]:
    return {name for name in registry.NAMES if isinstance(registry.source(name), family)}


def test_every_source_is_a_registered_subclass_in_its_folder():
    assert registry.NAMES == ("bfcl", "acebench", "tau2", "agentdojo", "swebench", "appworld")  # the build's order
    for name in registry.NAMES:
        declared = registry.source(name)
        assert isinstance(declared, Source) and declared.name == name
        assert type(declared).__module__ == f"verifierbench.sources.{name}.source"
        assert declared.shares is None or (PACKAGE / "sources" / declared.shares).is_dir(), name
        assert declared.code_folders()[-1] == PACKAGE / "sources" / name
        assert declared.preload()[0].startswith("verifierbench.sources."), name  # the decision's own module first


def test_the_implemented_parts_match_what_each_kind_of_task_needs():
    assert _of_family(ToolCallSource) == {"bfcl", "acebench"} and _of_family(InteractionSource) == {"tau2", "agentdojo"}
    assert not any(hasattr(Source, part) for part in ("answer_key", "check_calls", "gold_record", "replay", "implements"))
    assert _having("environment") == {"agentdojo", "tau2", "swebench"}
    # the auditor, mutation operators and naive checks are the format's unless the source has its own
    assert _having("auditor") == _having("naive_checks") == {"swebench"}
    assert _having("mutation_operators") == {"swebench", "agentdojo"}
    assert {n for n in registry.NAMES if registry.source(n).auditor() is not None} == {"bfcl", "acebench", "swebench", "tau2", "agentdojo"}
    assert {n for n in registry.NAMES if registry.source(n).mutation_operators()} == set(registry.NAMES) - {"appworld"}
    assert _having("warm_up") == {"tau2", "agentdojo"}
    assert _having("reference_packages") == {"bfcl"} and _having("reference_site_packages") == {"agentdojo"}
    registry.of({"checker": "bfcl"}).warm_up({"checker": "bfcl"})  # a source without one: nothing to load
    assert registry.built_by_default() == ["bfcl", "acebench", "tau2", "agentdojo", "appworld"]
    assert _having("docker_compose") == _having("add_checkout_dir") == _having("decide_reusing") == {"swebench"}
    assert registry.source("bfcl").read_only_inputs({"checker": "bfcl"}) == ()
    # only code tasks run longer than the executor's per-case limit: their own budget, the old 300 s without one
    assert _having("case_timeout") == {"swebench"}
    assert registry.source("bfcl").case_timeout({"checker": "bfcl"}) is None
    assert registry.source("swebench").case_timeout({"checker": "swebench"}) == 300.0
    assert registry.source("swebench").case_timeout({"checker": "swebench", "case_timeout_s": 1200}) == 1200.0
    assert not registry.known({}) and not registry.known({"checker": "nope"}) and registry.known({"checker": "tau2"})


def test_unknown_names_and_missing_parts_are_one_line_errors():
    with pytest.raises(UserError, match=r"^unknown source 'nope' \(choose from bfcl, acebench, "):
        registry.source("nope")
    with pytest.raises(ValueError, match=r"^unknown checker 'nope'$"):
        references.decide({"checker": "nope"}, {})
    with pytest.raises(MissingPart, match=r"^source tau2 has no answer key \(not a tool-call source\)$"):
        spec_for_reference({"checker": "tau2"})
    with pytest.raises(MissingPart, match=r"^source bfcl has no interaction records$"):
        interaction_source({"checker": "bfcl"})
    with pytest.raises(MissingPart, match=r"^source bfcl has no environment$"):
        registry.source("bfcl").environment({"checker": "bfcl"})


def test_a_second_class_under_a_registered_name_is_refused():
    class Impostor(Source):
        name = "bfcl"
        format = TOOL_CALLS

        def select(self, seed, paths, say):
            raise AssertionError

        def decide(self, reference, candidate):
            return True, "always"

    with pytest.raises(ValueError, match=r"^source 'bfcl' is registered twice"):
        register_source(Impostor)
    assert type(registry.source("bfcl")).__name__ == "Bfcl"


# A new source is one `Source` subclass (here defined in this test module, standing in for sources/toy/source.py);
# registering it makes it selectable and decidable. tests/sources/test_tiny_source.py builds, judges and screens a
# whole one from a test folder.
@register_source
class Toy(Source):
    name = TOY
    format = CODE

    def select(self, seed, paths, say):
        raise UserError(f"toy data missing (seed {seed})")

    def decide(self, reference: dict[str, Any], candidate: Any) -> tuple[bool, str]:
        return candidate == {"answer": 42}, "the toy's own check"


def test_a_registered_source_is_decided_and_built_through_its_methods(tmp_path):
    assert references.decide({"checker": TOY}, {"answer": 42}) == (True, "the toy's own check")
    assert references.decide({"checker": TOY}, {"answer": 41})[0] is False
    assert references.decide({"checker": TOY}, {"answer": 42}, reuse_runs=True)[0] is True  # no decide_reusing: decide
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


# Core references to a source that remain, as (file under verifierbench/, imported module prefix), each with its
# reason. Empty: keep it so.
CORE_ALLOWLIST: set[tuple[str, str]] = set()


def _core_files() -> list[Path]:
    """Every module of the harness outside sources/: the code that must not know which sources exist."""
    return sorted(p for p in PACKAGE.rglob("*.py") if "sources" not in p.relative_to(PACKAGE).parts[:1])


def _names_compared(path: Path, names: tuple[str, ...]) -> set[str]:
    """The source names a module compares something with (`== "tau2"`, `in ("tau2", "agentdojo")`, match too)."""
    found = set()

    def literals(node: ast.AST) -> set[str]:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value in names}

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found |= literals(operand)
        elif isinstance(node, ast.MatchValue):
            found |= literals(node.value)
    return found


def test_no_core_file_names_a_source():
    """Core files reach a source only through the registry and its typed methods: they import no source's modules
    and compare nothing with a source's name (function-level imports too)."""
    names = registry.NAMES
    named = tuple(f"verifierbench.sources.{n}" for n in names)
    imported, compared = set(), set()
    for path in _core_files():
        where = str(path.relative_to(PACKAGE))
        modules = {m for m in _imports(path) if m.startswith(named) and m.split(".")[2] in names}
        imported |= {(where, m) for m in modules if not any(m.startswith(a) for w, a in CORE_ALLOWLIST if w == where)}
        compared |= {(where, n) for n in _names_compared(path, names)}
    assert imported == set() and compared == set()
    assert all(any(m.startswith(a) for m in _imports(PACKAGE / w)) for w, a in CORE_ALLOWLIST)  # only what is still there


def test_the_rule_catches_a_source_import_and_a_name_comparison(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('def f(reference):\n    from verifierbench.sources.tau2 import cases\n'
                      '    return reference["checker"] == "tau2" or reference["checker"] in ("x", "agentdojo")\n')
    assert "verifierbench.sources.tau2" in _imports(sample)
    assert _names_compared(sample, registry.NAMES) == {"tau2", "agentdojo"}


def test_shared_source_code_imports_no_source_and_the_audit_no_scorer():
    toolcall = _package_imports("sources/toolcall")
    assert not {m for m in toolcall if m.startswith(("verifierbench.sources.bfcl", "verifierbench.sources.acebench"))}
    assert not {m for m in _package_imports("audit") if m.startswith("verifierbench.scorers")}


@pytest.mark.skipif(not os.access("/usr/bin/python3", os.X_OK), reason="no system interpreter")
def test_the_declarations_and_the_decision_path_import_with_the_standard_library_only(tmp_path):
    """An exported reference verifier imports `references` inside the sandbox, where /usr/bin/python3 has no
    pydantic: declaring the sources must not import their builds."""
    (tmp_path / "verifierbench").symlink_to(PACKAGE)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from verifierbench.sources import registry; "
            "from verifierbench.sources.references import decide; [registry.source(n) for n in registry.NAMES]; "
            "print(decide({'checker': 'acebench', 'functions': [], 'ground_truth': {}}, {'raw': 'x', 'parsed': 1})[1][:9]); "
            "print('pydantic' in sys.modules)")
    result = subprocess.run(["/usr/bin/python3", "-I", "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["malformed", "False"]
