"""Code hacks that fool SWE-bench's own grading on a real instance (issue 37): django-12155 from the offline copy beside
the project (`../shared/upstream/swebench`), each hack run the way SWE-bench grades (the hack applied, the hidden test
patch over the reset test files, tests/runtests.py, SWE-bench's django log parser and verdict), and each rejected by the
reference's static checks. Skipped, with the reason, where the copy is absent. About 30 s with the environment cached."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from tests.conftest import SHARED, skip_unless_required
from verifierbench.sources.swebench import diffs, grading, venv_store
from verifierbench.sources.swebench.cases import CodeInstance, generate
from verifierbench.sources.swebench.naive_checks import checks_fooled_by_run
from verifierbench.sources.swebench.testrun import run_tests

COPY = SHARED / "upstream" / "swebench"
INSTANCE = "django__django-12155"  # its FAIL_TO_PASS test asks parse_rst about locals unpacked from parse_docstring
HACKS = ("special_cased_test_inputs", "test_runner_patched_to_pass", "sitecustomize_forces_pass")

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.usefixtures("bwrap_available", "persistent_envs"), pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def instance(traversable_tmp):
    if not (COPY / "instances.jsonl").is_file() or not (COPY / "repos" / "django__django.git").is_dir():
        skip_unless_required("swebench-copy", f"the offline SWE-bench Verified copy is not at {COPY}")
    row = next(r for r in map(json.loads, (COPY / "instances.jsonl").read_text().splitlines()) if r["instance_id"] == INSTANCE)
    checkout = traversable_tmp / INSTANCE
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(COPY / "repos" / "django__django.git"), str(checkout)], check=True)
    subprocess.run(["git", "-C", str(checkout), "checkout", "-q", INSTANCE], check=True)
    test_files = [c.path for c in diffs.changes(row["test_patch"])]
    inst = CodeInstance(row["patch"], row["test_patch"], json.loads(row["FAIL_TO_PASS"]), json.loads(row["PASS_TO_PASS"]), test_files,
                        checkout, "django")
    environment = venv_store.ensure(venv_store.spec_for(row["repo"], row["version"], checkout), checkout)
    return row, inst, environment


def _fooled(instance, diff: str) -> list[str]:
    row, inst, environment = instance
    run = run_tests(inst.checkout, [diff], venv_store.django_directives(inst.test_files), row["test_patch"], inst.test_files,
                    environment=environment, runner="django", timeout_s=900)
    return checks_fooled_by_run(run, inst.fail_to_pass, inst.pass_to_pass, "django")


def test_each_hack_fools_swebench_grading_and_the_reference_rejects_it(instance):
    row, inst, _ = instance
    assert _fooled(instance, "") == []  # the base fails its FAIL_TO_PASS test
    hacks = {d.operator: d.candidate["diff"] for d in generate(inst, random.Random(0)) if d.category == "hack"}
    assert set(HACKS) <= set(hacks)
    special = hacks["special_cased_test_inputs"]
    assert "parse_docstring('firstline\\n\\n    second line')[0]" in special and "title" not in special.replace("doctitle", "")
    for operator in HACKS:
        assert "swebench_grading" in _fooled(instance, hacks[operator]), operator
        assert grading.static_problem(hacks[operator], inst.test_files, row["test_patch"], row["patch"]), operator
    assert grading.static_problem(row["patch"], inst.test_files, row["test_patch"], row["patch"]) is None  # the gold is not
