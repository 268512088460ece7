"""Which existing tests the heuristic policy's code verifier runs through `run_public`: few, closest, smallest, so that
a model-free baseline's run fits the task's budget (on matplotlib it ran up to 20 whole modules, test_axes among
them, for 15 minutes, and every case was U past a 300 s budget).

The verifier runs here outside the sandbox (it is the policy's own code) against a small repository standing in for
/repo, with a `vgb_env` whose `run_public` reports the tests it was asked to run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from verifierbench.policies.verifiers import verifier_source

STUB = '''import json


def run_public(diff, tests):
    raise RuntimeError(json.dumps(tests))
'''


def _diff(path: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"


def _selected(tmp_path, files: dict[str, int], touched: str, header: str = "import category, _axes, widgets\n") -> list[str]:
    """The tests the verifier runs on a diff to `touched`, in a repository of test files of the given sizes, each
    starting with `header` (by default it mentions `category`, `_axes` and `widgets`, so every one is related to any
    touched module)."""
    repo = tmp_path / "repo"
    for path, size in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(header + "#" * max(0, size - len(header)) + "\n")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "vgb_env.py").write_text(STUB)
    source = verifier_source("heuristic", {}).replace('"/repo', json.dumps(str(repo))[:-1])
    (tmp_path / "verify.py").write_text(source)
    (tmp_path / "candidate.json").write_text(json.dumps({"diff": _diff(touched)}))
    subprocess.run([sys.executable, str(tmp_path / "verify.py"), str(tmp_path / "candidate.json"), str(tmp_path / "out.json")],
                   check=True, env={"PYTHONPATH": str(lib)}, cwd=tmp_path)
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["decision"] == "FAIL" and result["reason"].startswith("cannot run: "), result
    return json.loads(result["reason"][len("cannot run: "):])


MATPLOTLIB = {"lib/matplotlib/tests/test_category.py": 11_000, "lib/matplotlib/tests/test_units.py": 9_000,
              "lib/matplotlib/tests/test_axes.py": 280_000, "lib/matplotlib/tests/test_widgets.py": 60_000,
              "lib/matplotlib/tests/test_ticker.py": 50_000, "lib/matplotlib/tests/test_dates.py": 45_000}


def test_pytest_runs_the_named_test_file_then_small_related_ones(tmp_path):
    """matplotlib-22719's fix touches category.py: test_category.py and the smallest related file (the next would pass
    60 KB of test code), not test_axes and 17 other modules."""
    assert _selected(tmp_path, MATPLOTLIB, "lib/matplotlib/category.py") == ["lib/matplotlib/tests/test_category.py",
                                                                           "lib/matplotlib/tests/test_units.py"]


def test_a_big_named_module_is_still_run_when_it_is_the_closest(tmp_path):
    """A fix to _axes.py is checked against test_axes.py (the task's own hidden tests, which set its budget, are
    of that size too), alone."""
    assert _selected(tmp_path, MATPLOTLIB, "lib/matplotlib/axes/_axes.py") == ["lib/matplotlib/tests/test_axes.py"]


def test_without_a_named_file_the_smallest_related_ones_up_to_a_size(tmp_path):
    # No test file is named after widgets.py: the smallest related files, 9 + 45 KB (a third would pass 60 KB).
    files = {path.replace("test_widgets", "test_gadgets"): size for path, size in MATPLOTLIB.items() if "category" not in path}
    assert _selected(tmp_path, files, "lib/matplotlib/widgets.py") == ["lib/matplotlib/tests/test_units.py",
                                                                        "lib/matplotlib/tests/test_dates.py"]


def test_django_keeps_five_labels_named_first(tmp_path):
    files = {"tests/runtests.py": 100, **{f"tests/t{i}/test_widgets.py": 1000 + i for i in range(7)},
             "tests/big/tests.py": 50}
    assert _selected(tmp_path, files, "django/forms/widgets.py") == [f"t{i}.test_widgets" for i in range(5)]


@pytest.mark.parametrize("touched", ["lib/matplotlib/__init__.py", "README.rst"])
def test_no_module_no_tests(tmp_path, touched):
    assert _selected(tmp_path, MATPLOTLIB, touched) == []


COMPARING = '''def run_public(diff, tests):
    if not diff:  # the base: one test already fails in this environment
        return {"applied": True, "exit_code": 1, "outcomes": {"t::ok": "passed", "t::env": "failed"}}
    return {"applied": True, "exit_code": 1, "outcomes": {"t::ok": "__OK__", "t::env": "failed"}}
'''


@pytest.mark.parametrize(("outcome", "decision"), [("passed", "PASS"), ("failed", "FAIL"), ("missing", "FAIL")])
def test_failures_the_base_has_too_are_not_the_candidates(tmp_path, outcome, decision):
    """matplotlib-22719: test_units and test_text have image tests failing on the base here (Debian's FreeType), and
    the heuristic rejected every candidate, the gold included."""
    lib = tmp_path / "lib"
    lib.mkdir()
    stub = COMPARING.replace('"t::ok": "__OK__", ', "") if outcome == "missing" else COMPARING.replace("__OK__", outcome)
    (lib / "vgb_env.py").write_text(stub)
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_category.py").write_text("import category\n")
    (tmp_path / "verify.py").write_text(verifier_source("heuristic", {}).replace('"/repo', json.dumps(str(repo))[:-1]))
    (tmp_path / "candidate.json").write_text(json.dumps({"diff": _diff("lib/category.py")}))
    subprocess.run([sys.executable, str(tmp_path / "verify.py"), str(tmp_path / "candidate.json"), str(tmp_path / "out.json")],
                   check=True, env={"PYTHONPATH": str(lib)}, cwd=tmp_path)
    assert json.loads((tmp_path / "out.json").read_text())["decision"] == decision


def test_a_private_module_finds_the_tests_of_its_public_name(tmp_path):
    """A fix to _axes.py in a repository whose tests say `axes`, never `_axes`: test_axes.py first (exactly named),
    not test_axisartist (only containing the name) or nothing at all."""
    repo = {"lib/matplotlib/tests/test_axes.py": 280_000, "lib/matplotlib/tests/test_axisartist_axes.py": 5_000}
    chosen = _selected(tmp_path, repo, "lib/matplotlib/axes/_axes.py", header="import matplotlib.axes\n")
    assert chosen == ["lib/matplotlib/tests/test_axes.py"]

