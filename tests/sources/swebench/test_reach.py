"""The build's reach map (`sandbox_runner/vgb_reach.py`): the gold's traced run says which functions each test
reaches, under django's runner and pytest, and the regression case breaks one that only PASS_TO_PASS tests reach,
where reading the tests' text finds none (a dispatcher both kinds of test call)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from verifierbench.sources.swebench import cases, diffs, venv_store, testrun

RUNNER_DIR = Path(venv_store.__file__).parent / "sandbox_runner"

BASE = "def parse(x):\n    return int(x)\n"
GOLD = "def parse(x):\n    return int(x.replace(\",\", \"\"))\n"
HELPERS = '''\
REGISTRY = []


def _register(name):
    REGISTRY.append(name)


_register("at import")


def render(kind):
    return _render_new() if kind == "new" else _render_old()


def _render_new():
    return "new"


def _render_old():
    return "old"
'''
TESTS = '''\
import unittest

from pkg.fixed import parse
from pkg.helpers import render


class T(unittest.TestCase):
    def test_fixed(self):
        self.assertEqual(parse("1,000"), 1000)
        self.assertEqual(render("new"), "new")

    def test_old(self):
        self.assertEqual(render("old"), "old")
'''
RUNTESTS = '''\
import sys
import unittest

sys.path.insert(0, ".")
suite = unittest.defaultTestLoader.loadTestsFromName("tests.test_m")
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(bool(result.failures or result.errors))
'''
F2P, P2P = "test_fixed (tests.test_m.T)", "test_old (tests.test_m.T)"


def _checkout(root: Path, fixed: str) -> None:
    for rel, text in {"pkg/__init__.py": "", "pkg/fixed.py": fixed, "pkg/helpers.py": HELPERS, "tests/__init__.py": "",
                      "tests/test_m.py": TESTS, "tests/runtests.py": RUNTESTS}.items():
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_text(text)


def _run_django(root: Path, reach: Path | None = None) -> tuple[int, dict]:
    report = root.parent / f"{root.name}-report.json"
    if reach:
        reach.write_text(json.dumps({"fail_to_pass": [F2P], "pass_to_pass": [P2P]}))
    env = {**os.environ, "VGB_REPORT_PATH": str(report), **({"VGB_REACH_PATH": str(reach)} if reach else {})}
    done = subprocess.run([sys.executable, str(RUNNER_DIR / "vgb_django_report.py"), "tests/runtests.py"], cwd=root,
                          capture_output=True, text=True, env=env)
    return done.returncode, json.loads(report.read_text())["outcomes"]


def _code(reach: dict) -> dict:
    """The map without the test files' own functions (the build leaves them alone)."""
    return {**reach, "functions": [f for f in reach["functions"] if not f[0].startswith("tests/")]}


def test_django_runner_maps_the_functions_only_previously_passing_tests_reach(tmp_path):
    _checkout(tmp_path, GOLD)
    status, outcomes = _run_django(tmp_path, tmp_path.parent / "reach.json")
    reach = json.loads((tmp_path.parent / "reach.json").read_text())
    assert status == 0 and set(outcomes.values()) == {"passed"}
    # not render (test_fixed reaches it too), parse or _render_new (test_fixed's), nor _register (run at import)
    assert _code(reach) == {"functions": [["pkg/helpers.py", 19, "_render_old", 1]], "unseen": []}


def test_the_runner_passes_the_names_and_returns_the_map(tmp_path):
    """Through the sandbox runner's own entry (`run_tests.run`), as the build's gold run uses it; a FAIL_TO_PASS test
    that never ran is named, so the map is not trusted."""
    (tmp_path / "repo").mkdir()
    _checkout(tmp_path / "repo", GOLD)
    runner = testrun._runner_module()
    names = {"fail_to_pass": [F2P, "test_gone (tests.test_m.T)"], "pass_to_pass": [P2P]}
    result = runner.run(str(tmp_path / "repo"), [], ["tests.test_m"], runner="django", scratch=str(tmp_path), reach=names)
    assert _code(result["reach"]) == {"functions": [["pkg/helpers.py", 19, "_render_old", 1]], "unseen": ["test_gone (tests.test_m.T)"]}
    assert "reach" not in runner.run(str(tmp_path / "repo"), [], ["tests.test_m"], runner="django", scratch=str(tmp_path))


def test_regression_breaks_a_function_only_previously_passing_tests_reach(tmp_path):
    traced, root = tmp_path / "traced", tmp_path / "base"
    traced.mkdir(), root.mkdir()
    _checkout(traced, GOLD)
    _run_django(traced, tmp_path / "reach.json")
    _checkout(root, BASE)
    patch = diffs.make({"pkg/fixed.py": (BASE, GOLD)})
    inst = cases.CodeInstance(patch, "", [F2P], [P2P], ["tests/test_m.py"], root, "django", json.loads((tmp_path / "reach.json").read_text()))
    inst.__dict__["hidden_test_texts"] = {"tests/test_m.py": TESTS}
    files = inst.gold_files()
    assert cases._functions_only_previously_passing_tests_call(inst, files, random.Random(0)) == []  # `render` is on both paths
    drafts = [d for d in cases._regression(inst, files, random.Random(0), cases.CAPS)
              if d.operator == "breaks_function_previously_passing_tests_reach"]
    assert [d.detail["function"] for d in drafts] == ["_render_old"]
    subprocess.run(["git", "apply", "-"], cwd=root, input=drafts[0].candidate["diff"], text=True, check=True)
    status, outcomes = _run_django(root)
    assert status == 1 and outcomes == {F2P: "passed", P2P: "error"}  # the fix holds, a previously passing test fails


def test_no_map_or_a_map_missing_a_fail_to_pass_test_breaks_nothing(tmp_path):
    _checkout(tmp_path, BASE)
    patch = diffs.make({"pkg/fixed.py": (BASE, GOLD)})
    for reach in ({}, {"functions": [["pkg/helpers.py", 19, "_render_old", 1]], "unseen": [F2P]}):
        inst = cases.CodeInstance(patch, "", [F2P], [P2P], ["tests/test_m.py"], tmp_path, "django", reach)
        assert cases._functions_only_previously_passing_tests_reach(inst, inst.gold_files(), random.Random(0)) == []


def test_pytest_plugin_maps_node_ids(tmp_path):
    _checkout(tmp_path, GOLD)
    (tmp_path / "tests" / "test_p.py").write_text("from pkg.helpers import render\n\n\ndef test_new():\n    assert render('new') == 'new'\n"
                                                  "\n\ndef test_old():\n    assert render('old') == 'old'\n")
    reach_path = tmp_path.parent / "reach.json"
    reach_path.write_text(json.dumps({"fail_to_pass": ["tests/test_p.py::test_new"], "pass_to_pass": ["tests/test_p.py::test_old"]}))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(RUNNER_DIR), str(tmp_path)]), "VGB_REPORT_PATH": str(tmp_path.parent / "r.json"),
           "VGB_REACH_PATH": str(reach_path), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "vgb_pytest_report", "-p", "no:cacheprovider", "tests/test_p.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout
    # _register runs at collection (an import), before any test starts
    assert _code(json.loads(reach_path.read_text())) == {"functions": [["pkg/helpers.py", 19, "_render_old", 1]], "unseen": []}
