"""The pieces that run real SWE-bench instances, tested without the offline copy: test environments'
specifications, incomplete trees, django's runner report and log normalisation, start-up file hacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifierbench.sources.swebench import checkout, venv_store, grading, instances
from verifierbench.sources.swebench.testrun import TestRun

RUNNER_DIR = Path(venv_store.__file__).parent / "sandbox_runner"


def test_specs_cover_the_three_repositories_with_their_test_commands():
    data = venv_store.specs()
    assert data["source"].startswith("swebench 4.1.0")
    for version in ("3.0", "3.1", "3.2", "4.0", "4.1", "4.2", "5.0"):
        assert data["specs"]["django/django"][version]["test_cmd"].startswith("./tests/runtests.py --verbosity 2")
    assert data["requirements_paths"]["django/django"] == ["tests/requirements/py3.txt"]
    assert venv_store.has_spec("matplotlib/matplotlib") and not venv_store.has_spec("vgb-fixtures/httpdate")
    assert venv_store.has_spec("astropy/astropy")  # its versions with a profile: test_astropy_recipe.py
    with pytest.raises(venv_store.EnvironmentError_, match="no environment profile measured"):
        venv_store.spec_for("astropy/astropy", "1.3", Path("/nonexistent"))  # matplotlib's: test_extensions.py
    assert (RUNNER_DIR.parent / "data" / "LICENSE-swebench").read_text().startswith("MIT License")


def test_environment_spec_reads_the_checkouts_requirements_and_keys_on_them(tmp_path):
    (tmp_path / "tests" / "requirements").mkdir(parents=True)
    (tmp_path / "tests" / "requirements" / "py3.txt").write_text("asgiref\n")
    first = venv_store.spec_for("django/django", "3.1", tmp_path)
    assert first.runner == "django" and first.requirements == (("tests/requirements/py3.txt", "asgiref\n"),)
    assert first.key == venv_store.spec_for("django/django", "3.1", tmp_path).key  # deterministic
    (tmp_path / "tests" / "requirements" / "py3.txt").write_text("asgiref\nsqlparse\n")
    assert venv_store.spec_for("django/django", "3.1", tmp_path).key != first.key
    with pytest.raises(venv_store.EnvironmentError_, match="no environment specification for django/django 0.1"):
        venv_store.spec_for("django/django", "0.1", tmp_path)
    (tmp_path / "tests" / "requirements" / "py3.txt").unlink()
    with pytest.raises(venv_store.EnvironmentError_, match="none of the requirements files"):
        venv_store.spec_for("django/django", "3.1", tmp_path)


def test_django_directives_follow_swebench():
    assert venv_store.django_directives(["tests/utils_tests/test_http.py", "tests/queries/tests.py", "tests/queries/models.py",
                                   "docs/ref.txt", "tests/admin_docs/__init__.py"]) == \
        ["utils_tests.test_http", "queries.tests", "queries.models", "admin_docs"]


def _git(repo: Path, *args: str, **kw) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, **kw).stdout.strip()


def test_incomplete_trees_are_named(tmp_path, traversable_tmp):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", "a.py")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    good = _git(repo, "rev-parse", "HEAD")
    checkout.require_complete(repo, good)
    with pytest.raises(checkout.IncompleteTree, match="base commit 0123456789ab is not in repo"):
        checkout.require_complete(repo, "0123456789abcdef0123456789abcdef01234567")
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{good},helpers")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "submodule")
    with pytest.raises(checkout.IncompleteTree, match="submodule helpers"):
        checkout.require_complete(repo, _git(repo, "rev-parse", "HEAD"))
    # A tree naming a blob the clone lacks (as in a copy cut without large files).
    blob = _git(repo, "hash-object", "-w", "--stdin", input="big data\n")
    tree = _git(repo, "mktree", input=f"100644 blob {blob}\tbig.dat\n100644 blob {_git(repo, 'rev-parse', good + ':a.py')}\ta.py\n")
    commit = _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit-tree", tree, "-m", "big")
    os.unlink(repo / ".git" / "objects" / blob[:2] / blob[2:])
    with pytest.raises(checkout.IncompleteTree, match="lacks 1 objects .* big.dat"):
        checkout.require_complete(repo, commit)
    # A damaged object (git calls it missing too) and a directory that is not a repository are named as such.
    damaged = repo / ".git" / "objects" / good[:2] / good[2:]
    damaged.chmod(0o644)
    damaged.write_bytes(b"not a zlib stream")
    with pytest.raises(checkout.IncompleteTree, match=r"repo is corrupt: base commit \w{12} cannot be read \(error: inflate"):
        checkout.require_complete(repo, good)
    (tmp_path / "plain").mkdir()
    with pytest.raises(checkout.IncompleteTree, match="plain is not a readable git repository"):
        checkout.require_complete(tmp_path / "plain", good)
    # An export that fails after the checks is an incomplete tree too (the build excludes the instance and goes on).
    with pytest.raises(checkout.IncompleteTree, match="repo: cannot export commit 0123456789ab"):
        checkout.materialize(repo, "0123456789abcdef0123456789abcdef01234567", traversable_tmp / "export-store")
    assert not list((traversable_tmp / "export-store").iterdir())  # no staging directory left


def test_pinned_revision_and_bad_rows(tmp_path, monkeypatch):
    monkeypatch.delenv(instances.REVISION_ENV, raising=False)
    assert instances.revision() == "c104f840cc67f8b6eec6f759ebc8b2693d585d4a"
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"instance_id": "a"}\n[1]\n')
    bad: list[str] = []
    assert instances.load(str(rows), bad) == []
    assert bad == [f"{rows}: SWE-bench row a lacks repo, base_commit, patch, test_patch, problem_statement, FAIL_TO_PASS, PASS_TO_PASS",
                   f"{rows}: row 2 is not an object"]


PY311_LOG = """\
test_parsing_rfc850 (utils_tests.test_http.HttpDateProcessingTests.test_parsing_rfc850) ... ok
test_year_less_than_70 (utils_tests.test_http.HttpDateProcessingTests.test_year_less_than_70) ... FAIL
test_docstring (utils_tests.test_http.DocTests.test_docstring)
The docstring's first line. ... ok
"""


def test_django_log_is_normalised_to_the_datasets_names():
    status = grading.log_status(TestRun(True, log=PY311_LOG), "django")
    assert status == {"test_parsing_rfc850 (utils_tests.test_http.HttpDateProcessingTests)": "PASSED",
                      "test_year_less_than_70 (utils_tests.test_http.HttpDateProcessingTests)": "FAILED",
                      "test_docstring (utils_tests.test_http.DocTests)": "PASSED",
                      "The docstring's first line.": "PASSED"}
    # Unnormalised, upstream's parser would know none of the dataset's names.
    from swebench.harness.log_parsers.python import parse_log_django

    assert "test_parsing_rfc850 (utils_tests.test_http.HttpDateProcessingTests)" not in parse_log_django(PY311_LOG, None)


# django-13786's gold run, as Python 3.11 prints it: the runner's banner lands between the first test's docstring line
# and its status.
BANNER_LOG = """\
test_add_field_alter_field (migrations.test_optimizer.OptimizerTests.test_add_field_alter_field)
AlterField should optimize into AddField. ... Testing against Django installed in '/tmp/vgb-run-x/work/django'
Importing application migrations
Skipping setup of unused database(s): default, other.
System check identified no issues (0 silenced).
ok
test_add_field_delete_field (migrations.test_optimizer.OptimizerTests.test_add_field_delete_field)
RemoveField should cancel AddField ... ok
test_alter_alter_index_model (migrations.test_optimizer.OptimizerTests.test_alter_alter_index_model) ... FAIL
"""


def test_a_status_after_the_runners_banner_goes_to_the_test_name():
    """django-13786 was excluded (S) though its gold passed every named test: the status of its first test (a docstring,
    then the runner's banner, then `ok`) reached only the docstring line, and the dataset names the test."""
    status = grading.log_status(TestRun(True, log=BANNER_LOG), "django")
    assert status["test_add_field_alter_field (migrations.test_optimizer.OptimizerTests)"] == "PASSED"
    assert status["AlterField should optimize into AddField."] == "PASSED"
    assert status["test_add_field_delete_field (migrations.test_optimizer.OptimizerTests)"] == "PASSED"
    assert status["test_alter_alter_index_model (migrations.test_optimizer.OptimizerTests)"] == "FAILED"
    failing = BANNER_LOG.replace("(0 silenced).\nok\n", "(0 silenced).\nFAIL\n")
    status = grading.log_status(TestRun(True, log=failing), "django")
    assert status.get("test_add_field_alter_field (migrations.test_optimizer.OptimizerTests)") != "PASSED"
    # Statuses of other tests do not move: two named tests in a row keep their own.
    assert grading.normalise_django_log(PY311_LOG).count(" ... ") == PY311_LOG.count(" ... ") + 1


def test_startup_files_and_runner_references_are_rejected():
    for path in ("sitecustomize.py", "django/usercustomize.py", "x.pth"):
        diff = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+import os\n"
        assert "start-up file" in grading.static_problem(diff, [])
    diff = ("diff --git a/django/x.py b/django/x.py\nnew file mode 100644\n--- /dev/null\n+++ b/django/x.py\n@@ -0,0 +1 @@\n"
            "+FIXED = 'runtests' in __import__('sys').argv[0]\n")
    assert "refers to the test runner" in grading.static_problem(diff, [])


def test_exit_status_may_match_the_golds_own():
    run = TestRun(True, exit_code=1, outcomes={"t (m.C)": "passed"})
    assert grading.grade(run, ["t (m.C)"], [], {}, runner="django", gold_exit_code=1)[0]
    assert not grading.grade(run, ["t (m.C)"], [], {}, runner="django", gold_exit_code=0)[0]
    assert not grading.grade(TestRun(True, exit_code=None, outcomes={"t (m.C)": "passed"}), ["t (m.C)"], [], {},
                             runner="django", gold_exit_code=None)[0]


RUNTESTS = """\
import os, sys, unittest

class T(unittest.TestCase):
    def test_ok(self):
        pass

    def test_fail(self):
        self.assertEqual(1, 2)

    def test_doc(self):
        '''Says what it checks.'''

    def test_sub(self):
        for i in range(2):
            with self.subTest(i=i):
                self.assertEqual(i, 0)

    def test_sub_skipped(self):
        for i in range(2):
            with self.subTest(i=i):
                raise unittest.SkipTest("not here")

    def test_sub_failed_then_skipped(self):
        for i in range(2):
            with self.subTest(i=i):
                if i == 0:
                    self.assertEqual(i, 1)
                raise unittest.SkipTest("not here")

    @unittest.skip("no")
    def test_skip(self):
        pass

    @unittest.expectedFailure
    def test_xfail(self):
        self.assertEqual(1, 2)

print("REPORT PATH VISIBLE" if "VGB_REPORT_PATH" in os.environ else "report path hidden")
result = unittest.TextTestRunner(verbosity=2).run(unittest.defaultTestLoader.loadTestsFromTestCase(T))
sys.exit(bool(result.failures or result.errors))
"""


def test_django_report_records_every_outcome_under_the_parsers_names(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "runtests.py").write_text(RUNTESTS)
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, str(RUNNER_DIR / "vgb_django_report.py"), "tests/runtests.py"], cwd=tmp_path,
                          capture_output=True, text=True, env={**os.environ, "VGB_REPORT_PATH": str(report)})
    assert done.returncode == 1 and "report path hidden" in done.stdout
    data = json.loads(report.read_text())
    assert data["exitstatus"] == 1
    assert data["outcomes"] == {"test_ok (__main__.T)": "passed", "test_fail (__main__.T)": "failed",
                                "test_doc (__main__.T)": "passed", "Says what it checks.": "passed",
                                "test_sub (__main__.T)": "failed", "test_skip (__main__.T)": "skipped",
                                # a skipped subtest is its test's outcome (unittest reports none for the test)
                                "test_sub_skipped (__main__.T)": "skipped", "test_sub_failed_then_skipped (__main__.T)": "failed",
                                "test_xfail (__main__.T)": "xfailed"}


PARAMETRISED = """\
import pytest


@pytest.mark.parametrize("kind", ["w/ line collection", "w/o line collection", "plain"])
def test_stem(kind):
    assert kind != "w/o line collection"
"""


def test_parameters_with_spaces_go_by_the_parsers_names(tmp_path):
    # matplotlib-14623's PASS_TO_PASS names `test_stem[png-w/`: SWE-bench's parser cuts at whitespace, and pytest
    # cannot select that name (before: "ERROR: not found", nothing ran, every test missing).
    from verifierbench.sources.swebench.testrun import _runner_module

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_p.py").write_text(PARAMETRISED)
    names = ["tests/test_p.py::test_stem[w/", "tests/test_p.py::test_stem[w/o", "tests/test_p.py::test_stem[plain]"]
    assert venv_store.pytest_selection(names) == ["tests/test_p.py::test_stem", "tests/test_p.py::test_stem[plain]"]
    result = _runner_module().run(str(tmp_path), [], venv_store.pytest_selection(names))
    run = TestRun.from_json(result)
    assert {n: run.outcomes[n] for n in names} == {names[0]: "passed", names[1]: "failed", names[2]: "passed"}
    assert run.outcomes["tests/test_p.py::test_stem[w/ line collection]"] == "passed"  # the node id too
    assert grading.log_status(run)[names[1]] == "FAILED"
    assert grading.grade(run, [names[0]], [names[2]], {}, disabled=frozenset({"exit_code"}))[0]
    assert grading.grade(run, [names[1]], [], {})[1] == f"FAIL_TO_PASS test {names[1]}: failed"


def test_regression_breaks_rank_functions_reached_by_docstring_named_pass_to_pass_tests(tmp_path):
    """django names a test with a docstring by the docstring's first line (django-16950: every named test). The regression
    case must still find those tests' bodies: a function called only by a PASS_TO_PASS test ranks first (rank 0), so the
    break fails a previously passing test while the fix holds (else C6's "PASS_TO_PASS unchecked" went undetected)."""
    from verifierbench.sources.swebench import cases

    tests = '''\
class T:
    def test_fixed(self):
        """If form data is provided, a parent's key is
        kept."""
        fixed_thing()

    def test_old(self):
        """#24377 - Inlines with a default ignore it."""
        old_helper()
        shared()
'''
    inst = cases.CodeInstance("", "", ["If form data is provided, a parent's key is"], ["#24377 - Inlines with a default ignore it."],
                              ["tests/m/tests.py"], tmp_path, "django")
    inst.__dict__["hidden_test_texts"] = {"tests/m/tests.py": tests}  # what the test patch would give
    rank = cases._reach_rank(inst)
    assert rank("old_helper") == 0 and rank("shared") == 0
    assert rank("fixed_thing") == 2 and rank("nowhere") == 3
