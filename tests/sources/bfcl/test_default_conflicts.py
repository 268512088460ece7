"""Screening catches answer keys that conflict with default-argument rules (paper §2.3, reason D).

In parallel_65, 70, 135, 180 and parallel_multiple_137 the key accepts leaving a unit-like argument out
("") although the tool's documented default is not what the user asked for (m vs cm, cm vs m, miles vs
km, Close vs Open, kilometers vs miles): a candidate that omits it is wrong by the task's requirements,
yet BFCL's checker accepts it. C1 replay of the default-argument case exposes that and excludes the task.
parallel_114 (DNA, default 'insertion') is consistent and is kept with its omission case labelled PASS.
"""

import pytest

from verifierbench.sources.bfcl import data
from verifierbench.sources.bfcl.build import construct

EXPECTED = {
    "parallel_65": ("unit", "m"),
    "parallel_70": ("units", "cm"),
    "parallel_135": ("units", "miles"),
    "parallel_180": ("data_type", "Close"),
    "parallel_multiple_137": ("unit", "kilometers"),
}


@pytest.mark.parametrize("upstream_id", sorted(EXPECTED))
def test_default_argument_conflicts_are_excluded_with_code_d(upstream_id):
    category = "parallel_multiple" if upstream_id.startswith("parallel_multiple") else "parallel"
    replayed = construct(data.load(category)[upstream_id], seed=0)
    assert replayed.exclusion is not None and replayed.exclusion["code"] == "D"
    evidence = replayed.exclusion["evidence"]
    assert (evidence["argument"], evidence["default"]) == EXPECTED[upstream_id]
    assert (evidence["label"], evidence["reference"]) == ("FAIL", "PASS")  # the key accepts what the request rules out
    assert replayed.cases == []


def test_consistent_default_is_kept_and_its_omission_is_a_valid_variant():
    replayed = construct(data.load("parallel")["parallel_114"], seed=0)
    assert replayed.exclusion is None and replayed.dropped == []
    omitted = [c for c in replayed.cases if c.provenance.get("operator") == "default_argument_omitted"]
    assert omitted and {c.category.value for c in omitted} == {"overstrict_trap"}
    assert all(c.provenance["argument"] == "mutation_type" and c.provenance["default"] == "insertion" for c in omitted)
