"""Answer-key defects in explicit values (code K): a key that accepts a value the tool's own schema or description
rules out is found from the schema alone, and the build excludes the task with the evidence."""

from verifierbench.sources.acebench.spec import spec_for_key as acebench_spec
from verifierbench.sources.bfcl import data
from verifierbench.sources.bfcl.build import construct
from verifierbench.sources.bfcl.spec import spec_for_key as bfcl_spec
from verifierbench.sources.toolcall import keycheck

POWER = {"name": "math.power", "parameters": {"type": "dict", "required": ["base", "exponent"], "properties": {
    "base": {"type": "integer"}, "exponent": {"type": "integer"},
    "mod": {"type": "integer", "description": "The modulus. Default is 1. Calculates pow(base, exponent) % mod when provided."},
    "exact": {"type": "boolean", "description": "If set to true, returns an exact result. Default is false."}}}}
ROOM = {"name": "room.size", "parameters": {"type": "dict", "required": ["unit"], "properties": {
    "unit": {"type": "string", "enum": ["meter", "feet"]},
    "floor": {"type": "dict", "properties": {"level": {"type": "integer", "minimum": 0, "maximum": 3}}}}}}


def rules(functions, ground_truth, spec_for=bfcl_spec):
    return [(d["rule"], d["argument"], d["value"]) for d in keycheck.defects(spec_for(functions, ground_truth))]


def test_an_argument_that_acts_when_provided_cannot_be_both_omitted_and_given():
    assert rules([POWER], [{"math.power": {"base": [3], "exponent": [4], "mod": ["", 1]}}]) == [("applies_when_provided", "mod", 1)]
    assert rules([POWER], [{"math.power": {"base": [3], "exponent": [4], "mod": [5]}}]) == []  # asked for: no omission
    assert rules([POWER], [{"math.power": {"base": [3], "exponent": [4], "mod": ["", None]}}]) == []  # null is "not provided"
    # "if set to true" is about the value, not the argument's presence
    assert rules([POWER], [{"math.power": {"base": [3], "exponent": [4], "exact": ["", False, True]}}]) == []


def test_values_outside_the_schema_are_found_at_any_depth():
    key = {"room.size": {"unit": ["feet", "ft"], "floor": [{"level": [5]}]}}
    found = rules([ROOM], [key])
    assert ("outside_enum", "unit", "ft") in found and ("outside_enum", "unit", "feet") not in found
    assert rules([ROOM], [{"room.size": {"unit": ["Meter"]}}]) == []  # standardised as the checkers compare strings
    acebench = rules([ROOM], {"room.size": {"unit": "feet", "floor": {"level": 5}}}, acebench_spec)
    assert acebench == [("outside_range", "floor.level", 5)]


def test_acebench_omission_allowed_by_its_checker_is_not_an_omission_listed_by_the_key():
    # ACEBench lets a call leave out any argument the schema does not require (checker rule 7); its key lists one value.
    assert rules([POWER], {"math.power": {"base": 3, "exponent": 4, "mod": 7}}, acebench_spec) == []


def test_bfcl_simple_python_105_is_excluded_with_code_k():
    # The key accepts mod=1, but the tool computes pow(3, 4) % 1 = 0 when mod is given, not the 81 asked for.
    replayed = construct(data.load("simple")["simple_python_105"], seed=0)
    assert replayed.exclusion is not None and replayed.exclusion["code"] == "K" and replayed.cases == []
    (defect,) = replayed.exclusion["evidence"]["defects"]
    assert (defect["rule"], defect["function"], defect["argument"], defect["value"]) == ("applies_when_provided", "math.power", "mod", 1)
    assert "% mod when provided" in defect["schema"]
