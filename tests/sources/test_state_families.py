"""Issue 55's state case families (`sources/interaction/families.py`): the close numbers are close and wrong, and the
build record accounts for every task of every family (reached, or why not)."""

from __future__ import annotations

import json

import pytest

from verifierbench.sources.interaction.families import FAMILIES, close_text_number, close_value


@pytest.mark.parametrize("value,close", [(24.56, 24.81), (50, 51), (145000, 146450), (5.1, 5.15), (0.5, 0.51), (4.0, 4.04),
                                         (1, 2), (0.0, 0.01)])
def test_close_value_is_about_one_percent_off_in_the_values_type(value, close):
    assert close_value(value) == close and type(close_value(value)) is type(value)


@pytest.mark.parametrize("token,close", [("1093.34", "1104.27"), ("4.5", "4.6"), ("200", "202"), ("3", "4"), ("481.50", "486.32")])
def test_close_text_number_keeps_the_decimals(token, close):
    assert close_text_number(token) == close


def test_the_build_record_names_every_task_of_every_family(state_suite):
    manifest = json.loads((state_suite / "manifest.json").read_text())
    tasks = [json.loads(line) for line in (state_suite / "tasks.jsonl").read_text().splitlines()]
    for source, families in (("tau2", ("close_number", "other_reads")), ("agentdojo", FAMILIES)):
        record = manifest["build"]["sources"][source]["families"]
        assert set(record) == set(families)
        ids = {t["source_id"] for t in tasks if t["source"] == source}
        for family in families:
            reached, why_not = record[family]["tasks"], record[family]["not_applicable"]
            assert set(reached) | set(why_not) == ids and not set(reached) & set(why_not), (source, family)
            assert reached and all(why_not.values()), (source, family)
            assert record[family]["cases"] == sum(reached.values())
