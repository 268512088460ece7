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

from verifierbench.sources.swebench import cases, diffs, envs

RUNNER_DIR = Path(envs.__file__).parent / "sandbox_runner"

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
    env = {**os.environ, "VGB_REPORT_PATH": str(report), **({"VGB_REACH_PATH": str(reach)} if reach else {})}
    done = subprocess.run([sys.executable, str(RUNNER_DIR / "vgb_django_report.py"), "tests/runtests.py"], cwd=root,
                          capture_output=True, text=True, env=env)
    return done.returncode, json.loads(report.read_text())["outcomes"]


def _names(reach: dict, indexes: list[int]) -> set[str]:
    return {reach["functions"][i][2] for i in indexes}


def test_django_runner_maps_each_test_to_the_functions_it_reaches(tmp_path):
    _checkout(tmp_path, GOLD)
    status, outcomes = _run_django(tmp_path, tmp_path.parent / "reach.json")
    reach = json.loads((tmp_path.parent / "reach.json").read_text())
    assert status == 0 and set(outcomes.values()) == {"passed"}
    assert {"parse", "render", "_render_new"} <= _names(reach, reach["tests"][F2P]) and "_render_old" not in _names(reach, reach["tests"][F2P])
    assert _names(reach, reach["tests"][P2P]) >= {"render", "_render_old"}
    assert "_register" in _names(reach, reach["outside"])  # at import: no test's
    assert all(not path.startswith("/") for path, _, _ in reach["functions"])  # relative to the checkout


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
    assert [d.detail["function"] for d in drafts] == ["_render_old"]  # not `render` (test_fixed reaches it), nor `_register`
    subprocess.run(["git", "apply", "-"], cwd=root, input=drafts[0].candidate["diff"], text=True, check=True)
    status, outcomes = _run_django(root)
    assert status == 1 and outcomes == {F2P: "passed", P2P: "error"}  # the fix holds, a previously passing test fails


def test_no_map_or_a_map_missing_a_fail_to_pass_test_breaks_nothing(tmp_path):
    _checkout(tmp_path, BASE)
    patch = diffs.make({"pkg/fixed.py": (BASE, GOLD)})
    for reach in ({}, {"functions": [["pkg/helpers.py", 19, "_render_old"]], "tests": {P2P: [0]}, "outside": []}):
        inst = cases.CodeInstance(patch, "", [F2P], [P2P], ["tests/test_m.py"], tmp_path, "django", reach)
        assert cases._functions_only_previously_passing_tests_reach(inst, inst.gold_files(), random.Random(0)) == []


def test_pytest_plugin_maps_node_ids(tmp_path):
    _checkout(tmp_path, GOLD)
    (tmp_path / "tests" / "test_p.py").write_text("from pkg.helpers import render\n\n\ndef test_old():\n    assert render('old') == 'old'\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(RUNNER_DIR), str(tmp_path)]), "VGB_REPORT_PATH": str(tmp_path.parent / "r.json"),
           "VGB_REACH_PATH": str(tmp_path.parent / "reach.json"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "vgb_pytest_report", "-p", "no:cacheprovider", "tests/test_p.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout
    reach = json.loads((tmp_path.parent / "reach.json").read_text())
    assert {"render", "_render_old"} <= _names(reach, reach["tests"]["tests/test_p.py::test_old"])
    assert "_register" in _names(reach, reach["outside"])  # imported at collection, before the test starts
