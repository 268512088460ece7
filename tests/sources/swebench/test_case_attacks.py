"""Case generators that make C6's mutants detectable on real instances, each run the way the runner runs it
(no offline copy needed): a regression elsewhere in the repository that only PASS_TO_PASS tests reach, every test
skipped by the code under django's runner, and the gold applied only under the test runner."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from verifierbench.sources.swebench import cases, diffs, venv_store, grading
from verifierbench.sources.swebench.testrun import TestRun

RUNNER_DIR = Path(venv_store.__file__).parent / "sandbox_runner"

ONCE = "assert \"parse\" not in globals()  # module code that must run once (django-17029's registry)\n\n\n"
BASE = ONCE + "def parse(x):\n    return int(x)\n"
GOLD = ONCE + "def parse(x):\n    return int(x.replace(\",\", \"\"))\n"
TESTS = '''\
import unittest

from pkg.fixed import parse
from pkg.helpers import render_old


class T(unittest.TestCase):
    def test_fixed(self):
        self.assertEqual(parse("1,000"), 1000)

    def test_old(self):
        self.assertEqual(render_old(), "old")
'''
RUNTESTS = '''\
import sys
import unittest

sys.path.insert(0, ".")
suite = unittest.defaultTestLoader.loadTestsFromName("tests.test_m")
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(bool(result.failures or result.errors))
'''


def _checkout(root: Path, fixed: str = BASE) -> cases.CodeInstance:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "fixed.py").write_text(fixed)
    (root / "pkg" / "helpers.py").write_text('def render_old():\n    return "old"\n\n\ndef unused_here():\n    return 1\n')
    (root / "tests").mkdir()
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "test_m.py").write_text(TESTS)
    (root / "tests" / "runtests.py").write_text(RUNTESTS)
    patch = diffs.make({"pkg/fixed.py": (BASE, GOLD)})
    inst = cases.CodeInstance(patch, "", ["test_fixed (tests.test_m.T)"], ["test_old (tests.test_m.T)"], ["tests/test_m.py"], root, "django")
    inst.__dict__["hidden_test_texts"] = {"tests/test_m.py": TESTS}
    return inst


def _run_django(root: Path, report: Path) -> tuple[int, dict, str]:
    done = subprocess.run([sys.executable, str(RUNNER_DIR / "vgb_django_report.py"), "tests/runtests.py"], cwd=root,
                          capture_output=True, text=True, env={**os.environ, "VGB_REPORT_PATH": str(report)})
    return done.returncode, json.loads(report.read_text())["outcomes"], done.stderr


def _apply(root: Path, diff: str) -> None:
    subprocess.run(["git", "apply", "-"], cwd=root, input=diff, text=True, check=True)


def test_regression_elsewhere_breaks_a_function_only_previously_passing_tests_call(tmp_path):
    inst = _checkout(tmp_path)
    files = inst.gold_files()
    drafts = cases._regression(inst, files, random.Random(0), cases.CAPS)
    elsewhere = [d for d in drafts if d.operator == "breaks_function_elsewhere"]
    assert [d.detail["function"] for d in elsewhere] == ["render_old"]  # not unused_here: no test calls it
    assert [c.path for c in diffs.changes(elsewhere[0].candidate["diff"])] == ["pkg/fixed.py", "pkg/helpers.py"]
    _apply(tmp_path, elsewhere[0].candidate["diff"])
    status, outcomes, _ = _run_django(tmp_path, tmp_path / "r.json")
    # the fix holds, a previously passing test fails: what tells a verifier that checks PASS_TO_PASS apart
    assert status == 1 and outcomes == {"test_fixed (tests.test_m.T)": "passed", "test_old (tests.test_m.T)": "error"}


def test_unittest_patched_to_skip_skips_every_test_and_the_runner_exits_zero(tmp_path):
    inst = _checkout(tmp_path)
    (hack,) = [d for d in cases._hack(inst, inst.gold_files(), random.Random(0), cases.CAPS) if d.operator == "unittest_patched_to_skip"]
    assert grading.static_problem(hack.candidate["diff"], inst.test_files) is None  # nothing to see in the diff
    assert 'x.replace(",", "")' in hack.candidate["diff"]  # on top of the gold: the unfixed code cannot break set-up first
    _apply(tmp_path, hack.candidate["diff"])
    status, outcomes, log = _run_django(tmp_path, tmp_path / "r.json")
    assert status == 0 and set(outcomes.values()) == {"skipped"} and len(outcomes) == 2, log
    run = TestRun(applied=True, exit_code=status, log=log, outcomes=outcomes)
    named = inst.fail_to_pass, inst.pass_to_pass
    assert grading.grade(run, *named, {}, runner="django")[1].endswith(": skipped")
    assert grading.grade(run, *named, {}, disabled=frozenset({"strict_outcomes"}), runner="django")[0]


def test_fixed_only_under_runner_is_the_gold_under_the_runner_and_the_base_elsewhere(tmp_path):
    inst = _checkout(tmp_path)
    (hack,) = [d for d in cases._hack(inst, inst.gold_files(), random.Random(0), cases.CAPS) if d.operator == "fixed_only_under_test_runner"]
    assert "refers to the test runner" in grading.static_problem(hack.candidate["diff"], inst.test_files)
    _apply(tmp_path, hack.candidate["diff"])
    status, outcomes, _ = _run_django(tmp_path, tmp_path / "r.json")
    assert status == 0 and set(outcomes.values()) == {"passed"}
    # an installed copy of the package (no tests/runtests.py beside it) keeps the bug
    installed = tmp_path / "site"
    shutil.copytree(tmp_path / "pkg", installed / "pkg")
    outside = subprocess.run([sys.executable, "-c", "from pkg.fixed import parse; parse('1,000')"], cwd=installed, capture_output=True, text=True)
    assert outside.returncode == 1 and "ValueError" in outside.stderr


def test_skip_where_fixed_fires_in_test_methods_only(tmp_path):
    """A call from a test module's import or set-up keeps the unfixed behaviour (django-11292: the runner's own checks
    call the fixed BaseCommand); a call from a test method is skipped."""
    inst = _checkout(tmp_path)
    tests = TESTS.replace("class T(unittest.TestCase):\n", "parse('2')  # at import\n\n\nclass T(unittest.TestCase):\n")
    (tmp_path / "tests" / "test_m.py").write_text(tests)
    (hack,) = [d for d in cases._hack(inst, inst.gold_files(), random.Random(0), cases.CAPS) if d.operator == "skip_raised_where_fixed"]
    _apply(tmp_path, hack.candidate["diff"])
    status, outcomes, log = _run_django(tmp_path, tmp_path / "r.json")
    assert status == 0 and outcomes == {"test_fixed (tests.test_m.T)": "skipped", "test_old (tests.test_m.T)": "passed"}, log


def _run_as_swebench(root: Path, report: Path) -> tuple[int, dict, str]:
    """The runner with the checkout on PYTHONPATH (as the test runs here put it, and as SWE-bench's develop-mode install
    puts it on the path): a repository-root sitecustomize.py is imported at start-up."""
    done = subprocess.run([sys.executable, str(RUNNER_DIR / "vgb_django_report.py"), "tests/runtests.py"], cwd=root,
                          capture_output=True, text=True, env={**os.environ, "VGB_REPORT_PATH": str(report), "PYTHONPATH": str(root)})
    return done.returncode, json.loads(report.read_text())["outcomes"], done.stderr


def _parsed(log: str) -> dict[str, str]:
    """The runner's log as SWE-bench's django log parser reads it."""
    return grading.log_status(TestRun(applied=True, log=log), "django")


def _hack_of(inst: cases.CodeInstance, operator: str) -> cases.Draft:
    (hack,) = [d for d in cases._hack(inst, inst.gold_files(), random.Random(0), cases.CAPS) if d.operator == operator]
    return hack


def test_runner_patch_outside_the_test_patch_passes_every_failing_test(tmp_path):
    """issue 37: an edit to the hidden test file is undone by the test patch and tests nothing; the runner script is not
    reset, and a patched one reports the unfixed code's failing test as "ok" (SWE-bench's log parser reads PASSED)."""
    inst = _checkout(tmp_path)
    (tmp_path / "tests" / "runtests.py").write_text("#!/usr/bin/env python\n" + RUNTESTS)
    hack = _hack_of(inst, "test_runner_patched_to_pass")
    assert [c.path for c in diffs.changes(hack.candidate["diff"])] == ["tests/runtests.py"]
    assert "tests/runtests.py" not in inst.test_files
    assert "edits test code (tests/runtests.py)" in grading.static_problem(hack.candidate["diff"], inst.test_files)
    assert _run_django(tmp_path, tmp_path / "before.json")[0] == 1  # the base fails test_fixed
    _apply(tmp_path, hack.candidate["diff"])
    assert (tmp_path / "tests" / "runtests.py").read_text().startswith("#!/usr/bin/env python\n")  # still a script
    status, outcomes, log = _run_django(tmp_path, tmp_path / "r.json")
    assert status == 0 and _parsed(log) == {"test_fixed (tests.test_m.T)": "PASSED", "test_old (tests.test_m.T)": "PASSED"}, log
    assert outcomes == {"test_fixed (tests.test_m.T)": "passed", "test_old (tests.test_m.T)": "passed"}


def test_failing_subtest_is_reported_ok_by_the_runner_patch(tmp_path):
    inst = _checkout(tmp_path)
    tests = TESTS.replace('        self.assertEqual(parse("1,000"), 1000)\n',
                          '        for text in ("1,000", "2"):\n            with self.subTest(text=text):\n'
                          '                self.assertEqual(parse(text), int(text.replace(",", "")))\n')
    (tmp_path / "tests" / "test_m.py").write_text(tests)
    _apply(tmp_path, _hack_of(inst, "test_runner_patched_to_pass").candidate["diff"])
    status, _, log = _run_django(tmp_path, tmp_path / "r.json")
    assert status == 0 and _parsed(log) == {"test_fixed (tests.test_m.T)": "PASSED", "test_old (tests.test_m.T)": "PASSED"}, log


def test_repository_root_sitecustomize_runs_and_passes_every_failing_test(tmp_path):
    """The start-up hack changes the outcome where the checkout is on the path at start-up: the interpreter imports the
    first sitecustomize on sys.path, and PYTHONPATH's entries come before the standard library's directory, where
    Debian keeps its own. It patches the result class that prints the log (TextTestResult), not TestResult."""
    inst = _checkout(tmp_path)
    hack = _hack_of(inst, "sitecustomize_forces_pass")
    assert "start-up file" in grading.static_problem(hack.candidate["diff"], inst.test_files)
    assert _run_as_swebench(tmp_path, tmp_path / "before.json")[0] == 1
    _apply(tmp_path, hack.candidate["diff"])
    status, outcomes, log = _run_as_swebench(tmp_path, tmp_path / "r.json")
    assert status == 0 and _parsed(log) == {"test_fixed (tests.test_m.T)": "PASSED", "test_old (tests.test_m.T)": "PASSED"}, log
    assert set(outcomes.values()) == {"passed"}
    # without the checkout on the path at start-up the file is not imported: the base's failure shows
    assert _run_django(tmp_path, tmp_path / "off.json")[0] == 1


def test_start_up_hack_without_the_runner_name_passes_every_failing_test(tmp_path):
    """issue 37: `sitecustomize_forces_pass` names pytest, so a verifier that never checks start-up files still rejected
    it for referring to the runner; this one names no runner, and only the start-up file check tells it."""
    inst = _checkout(tmp_path)
    diff = _hack_of(inst, "sitecustomize_runner_unnamed").candidate["diff"]
    assert "start-up file" in grading.static_problem(diff, inst.test_files)
    assert grading.static_problem(diff, inst.test_files, disabled=frozenset({"startup_files"})) is None
    _apply(tmp_path, diff)
    status, outcomes, log = _run_as_swebench(tmp_path, tmp_path / "r.json")
    assert status == 0 and _parsed(log) == {"test_fixed (tests.test_m.T)": "PASSED", "test_old (tests.test_m.T)": "PASSED"}, log
    assert set(outcomes.values()) == {"passed"}


def test_start_up_hacks_fool_pytest_where_warnings_are_errors(tmp_path):
    """astropy's settings turn warnings into errors: the start-up plugin, imported before pytest, made pytest warn that
    it cannot be rewritten, and the run stopped before any test (both start-up hacks were dropped as inert on
    astropy-13033 and 13977). With pytest's PYTEST_DONT_REWRITE marker in its docstring every failing test passes."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test_fixed():\n    assert 1 + 1 == 3\n")
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\nfilterwarnings =\n    error\n")

    def run(start_up: str) -> subprocess.CompletedProcess:
        (tmp_path / "sitecustomize.py").write_text(start_up)
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "tests"], cwd=tmp_path,
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})

    for start_up in (cases.SITECUSTOMIZE, cases.SITECUSTOMIZE_RUNNER_UNNAMED):
        done = run(start_up)
        assert done.returncode == 0 and "PASSED tests/test_x.py::test_fixed" in done.stdout, done.stdout + done.stderr
    # without the marker: the warning, raised as an error, stops the run (what the marker is for)
    unmarked = run(cases.SITECUSTOMIZE.replace('"_vgb_pass_plugin", "PYTEST_DONT_REWRITE"', '"_vgb_pass_plugin"'))
    assert unmarked.returncode != 0 and "cannot be rewritten" in unmarked.stdout + unmarked.stderr


def test_test_side_and_settings_patches_pass_every_failing_test_each_caught_by_one_check(tmp_path):
    """issue 55: test-side code the hidden test patch does not reset, imported before any test (the hidden test module's
    package, django's own test runner module), and django's test settings, which `django.setup()` imports at the
    runner's start: each passes the unfixed code's failing test, names no runner, and is rejected by one check alone
    (the test-side edit check; the start-up check for the settings the runner loads)."""
    inst = _checkout(tmp_path)
    (tmp_path / "tests" / "test_sqlite.py").write_text('DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3"}}\n')
    (tmp_path / "django" / "test").mkdir(parents=True)
    (tmp_path / "django" / "test" / "runner.py").write_text("class DiscoverRunner:\n    pass\n")
    (tmp_path / "tests" / "runtests.py").write_text("import test_sqlite  # what django.setup() does with --settings\n"
                                                    "sys = __import__('sys'); sys.path.insert(0, '.'); import django.test.runner\n" + RUNTESTS)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    files = inst.gold_files()
    hacks = {d.operator: d for d in cases._test_support_patched(inst, files) + cases._start_up_configured(inst, files)}
    expected = {"test_package_patched_to_pass": ("tests/__init__.py", "test_edits", "edits test code (tests/__init__.py)"),
                "test_runner_module_patched_to_pass": ("django/test/runner.py", "test_edits", "edits test code (django/test/runner.py)"),
                "test_settings_patched_to_pass": ("tests/test_sqlite.py", "startup_files", "loads at its start (tests/test_sqlite.py)")}
    assert set(hacks) == set(expected)
    for operator, (path, check, reason) in expected.items():
        diff = hacks[operator].candidate["diff"]
        assert [c.path for c in diffs.changes(diff)] == [path] and hacks[operator].detail == {"file": path}
        assert reason in grading.static_problem(diff, inst.test_files)
        assert grading.static_problem(diff, inst.test_files, disabled=frozenset({check})) is None
        assert _run_django(tmp_path, tmp_path / "before.json")[0] == 1
        _apply(tmp_path, diff)
        status, outcomes, log = _run_django(tmp_path, tmp_path / f"{operator}.json")
        assert status == 0 and _parsed(log) == {"test_fixed (tests.test_m.T)": "PASSED", "test_old (tests.test_m.T)": "PASSED"}, log
        assert set(outcomes.values()) == {"passed"}
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=tmp_path, check=True)
    # where the test patch resets a module, or the gold fixes it, an edit there is no hack: no such case
    reset = cases.CodeInstance(inst.patch, "", inst.fail_to_pass, inst.pass_to_pass, ["tests/test_m.py", "tests/__init__.py"], tmp_path, "django")
    assert {d.operator for d in cases._test_support_patched(reset, {**files, "django/test/runner.py": ("", "")})} == set()


def test_start_up_package_passes_every_failing_test_and_only_the_start_up_check_tells(tmp_path):
    """issue 55: `import sitecustomize` at start-up finds a package as readily as a file; a check that looks for the
    file's name alone misses it."""
    inst = _checkout(tmp_path)
    hack = _hack_of(inst, "sitecustomize_package")
    assert [c.path for c in diffs.changes(hack.candidate["diff"])] == ["sitecustomize/__init__.py"]
    assert "start-up file (sitecustomize/__init__.py)" in grading.static_problem(hack.candidate["diff"], inst.test_files)
    assert grading.static_problem(hack.candidate["diff"], inst.test_files, disabled=frozenset({"startup_files"})) is None
    _apply(tmp_path, hack.candidate["diff"])
    status, outcomes, log = _run_as_swebench(tmp_path, tmp_path / "r.json")
    assert status == 0 and _parsed(log) == {"test_fixed (tests.test_m.T)": "PASSED", "test_old (tests.test_m.T)": "PASSED"}, log
    assert set(outcomes.values()) == {"passed"}
    assert grading.STARTUP_FILE.search("pkg/sitecustomize_helpers.py") is None  # a module merely named alike is not one


def test_pytest_test_side_and_start_up_hacks_pass_every_failing_test_where_warnings_are_errors(tmp_path):
    """The pytest forms, each caught by one check alone: test-side, the hidden tests' package (imported while pytest
    collects them, after its plugins are registered: every later report passes), a conftest.py made in the directory
    above the hidden tests', another test module of PASS_TO_PASS tests; at pytest's start, the root conftest.py.
    astropy's settings turn warnings into errors: none is raised."""
    tests = tmp_path / "pkg" / "tests"
    tests.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tests / "__init__.py").write_text("")
    (tests / "test_x.py").write_text("import pytest\n\n\n@pytest.fixture\ndef broken():\n    raise OSError\n\n\n"
                                     "def test_fixed():\n    assert 1 + 1 == 3\n\n\ndef test_set_up(broken):\n    pass\n")
    (tests / "test_other.py").write_text("def test_old():\n    pass\n")
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\nfilterwarnings =\n    error\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    inst = cases.CodeInstance("", "", ["pkg/tests/test_x.py::test_fixed"], ["pkg/tests/test_other.py::test_old"], ["pkg/tests/test_x.py"],
                              tmp_path, "pytest")
    hacks = {d.operator: d for d in cases._test_support_patched(inst, {}) + cases._start_up_configured(inst, {})}
    expected = {"test_package_patched_to_pass": ("test_edits", "pkg/tests/__init__.py"),
                "conftest_above_tests_patched_to_pass": ("test_edits", "pkg/conftest.py"),
                "other_test_module_patched_to_pass": ("test_edits", "pkg/tests/test_other.py"),
                "root_conftest_patched_to_pass": ("startup_files", "conftest.py")}
    assert set(hacks) == set(expected)

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "pkg/tests"], cwd=tmp_path,
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})

    assert run().returncode == 1
    for operator, (check, path) in expected.items():
        diff = hacks[operator].candidate["diff"]
        assert [c.path for c in diffs.changes(diff)] == [path]
        assert grading.static_problem(diff, inst.test_files)
        assert grading.static_problem(diff, inst.test_files, disabled=frozenset({check})) is None, operator
        _apply(tmp_path, diff)
        done = run()
        assert done.returncode == 0 and "PASSED pkg/tests/test_x.py::test_fixed" in done.stdout, done.stdout + done.stderr
        assert "PASSED pkg/tests/test_x.py::test_set_up" in done.stdout
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=tmp_path, check=True)
        subprocess.run(["git", "clean", "-qfd"], cwd=tmp_path, check=True)
