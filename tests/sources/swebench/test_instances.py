"""Reading SWE-bench rows: test names in one form whichever Python graded the row."""

from __future__ import annotations

import json

from verifierbench.sources.swebench.instances import Instance

ROW = {"instance_id": "django__django-17029", "repo": "django/django", "base_commit": "0" * 40, "patch": "", "test_patch": "",
       "problem_statement": "", "version": "5.0"}


def test_django_names_printed_by_python_311_take_the_older_form():
    # django 5.0 rows name tests as 3.11's unittest prints them; the log normalisation and the structured report use the
    # older form, so a row's name must be read in it or the gold's passing tests are "missing" (django-17029).
    row = {**ROW, "FAIL_TO_PASS": json.dumps(["test_clear_cache (apps.tests.AppsTests.test_clear_cache)"]),
           "PASS_TO_PASS": json.dumps(["test_repr (apps.tests.AppConfigTests.test_repr)", "test_repr (apps.tests.AppConfigTests)",
                                       "If single element in __path__, use it (in preference to __file__).",
                                       "test_x (apps.tests.Other)"])}
    inst = Instance.from_row(row, "test")
    assert inst.fail_to_pass == ["test_clear_cache (apps.tests.AppsTests)"]
    assert inst.pass_to_pass == ["test_repr (apps.tests.AppConfigTests)", "If single element in __path__, use it (in preference to __file__).",
                                 "test_x (apps.tests.Other)"]


def test_pytest_node_ids_are_left_alone():
    ids = ["lib/matplotlib/tests/test_axes.py::test_x", "astropy/io/tests/test_a.py::TestB::test_b (x.test_b)"]
    row = {**ROW, "repo": "matplotlib/matplotlib", "FAIL_TO_PASS": json.dumps(ids[:1]), "PASS_TO_PASS": json.dumps(ids[1:])}
    inst = Instance.from_row(row, "test")
    assert inst.fail_to_pass + inst.pass_to_pass == ids
