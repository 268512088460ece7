"""Case generators: every applicable category from one answer key, deterministic for a seed, labels from categories."""

import random

from verifierbench.schema import Category
from verifierbench.sources.toolcall.candidate import read_candidate
from verifierbench.sources.toolcall.cases import generate, wrong_value
from verifierbench.sources.toolcall.spec import NO_DEFAULT, ArgSpec, CallSpec, ToolCallSpec, documented_default

FUNCTIONS = [
    {"name": "analyze_dna", "parameters": {"type": "dict", "required": ["sequence"], "properties": {
        "sequence": {"type": "string"},
        "mutation_type": {"type": "string", "enum": ["insertion", "deletion"], "default": "insertion"},
        "threshold": {"type": "float", "description": "Default is 0.5."}}}},
    {"name": "analyze_rna", "parameters": {"type": "dict", "required": ["sequence"], "properties": {"sequence": {"type": "string"}}}},
]


def spec() -> ToolCallSpec:
    def args(seq, mutation):
        return (ArgSpec("sequence", (seq,), False, True, FUNCTIONS[0]["parameters"]["properties"]["sequence"]),
                ArgSpec("mutation_type", (mutation,), mutation == "insertion", False,
                        FUNCTIONS[0]["parameters"]["properties"]["mutation_type"], default="insertion"),
                ArgSpec("threshold", (2, 2.0), False, False, {"type": "float"}))
    return ToolCallSpec(FUNCTIONS, (CallSpec("analyze_dna", args("AGCT", "insertion")), CallSpec("analyze_dna", args("AGGT", "deletion"))))


def test_all_eight_tool_call_categories_are_generated_and_parse():
    drafts = generate(spec(), random.Random(1))
    categories = {d.category for d in drafts}
    assert categories == {c.value for c in Category} - {"process_violation"}
    for d in drafts:
        if d.operator not in ("parsed_disagrees_with_raw", "raw_disagrees_with_parsed", "verifier_directed_prefix",
                              "verifier_directed_suffix", "refusal", "clarification_instead_of_call",
                              "claims_done_without_calls"):
            read_candidate(d.candidate)  # every other case is a well-formed, self-consistent candidate


def test_default_argument_cases_follow_the_documented_default():
    drafts = generate(spec(), random.Random(1))
    by_op = {}
    for d in drafts:
        by_op.setdefault(d.operator, []).append(d)
    omitted = by_op["default_argument_omitted"]  # mutation_type=insertion equals the default: omitting it is valid
    assert [d.category for d in omitted] == ["overstrict_trap"] and omitted[0].default_rule
    assert "mutation_type" not in omitted[0].candidate["parsed"][0]["arguments"]
    differs = [d for d in by_op["argument_omitted_default_differs"] if d.detail["argument"] == "mutation_type"]
    assert [d.category for d in differs] == ["near_miss"]  # deletion requested: omitting gives insertion
    assert "mutation_type" not in differs[0].candidate["parsed"][1]["arguments"]


def test_generation_is_deterministic_for_a_seed():
    first = [(d.category, d.candidate) for d in generate(spec(), random.Random(7))]
    assert first == [(d.category, d.candidate) for d in generate(spec(), random.Random(7))]


def test_wrong_values_are_never_acceptable_even_after_bfcl_string_standardisation():
    arg = ArgSpec("x", ("1.5",), False, True, {"type": "string"})
    wrong = wrong_value(arg, ["15", "1-5", "2.5"], random.Random(0))
    assert wrong == "2.5"
    assert wrong_value(ArgSpec("b", (True,), False, True), [], random.Random(0)) is False
    assert wrong_value(ArgSpec("n", (0,), False, True), [], random.Random(0)) == 2


def test_documented_defaults_are_read_conservatively():
    assert documented_default({"type": "string", "description": "The unit. Default is m."}) == "m"
    assert documented_default({"type": "string", "description": "(optional, default is kilometers)"}) == "kilometers"
    assert documented_default({"type": "string", "description": "Defaults to 'miles'."}) == "miles"
    assert documented_default({"type": "float", "description": "Default value is 9.81 m/s^2."}) == 9.81
    assert documented_default({"type": "integer", "description": "Default is zero."}) is NO_DEFAULT
    assert documented_default({"type": "array", "description": "Default is an empty list."}) is NO_DEFAULT
    assert documented_default({"type": "string", "default": "insertion", "description": "Default is x."}) == "insertion"


def test_every_family_the_audit_certifies_is_sampled_into_the_build():
    from verifierbench.sources.toolcall.cases import FAMILIES

    drafts = generate(spec(), random.Random(1))
    operators = {d.operator for d in drafts}
    assert {"raw_without_list_brackets", "value_off_by_one", "unknown_argument_added", "other_tool_called"} <= operators
    assert operators & {"int_written_as_float", "float_written_as_int"}  # a numeric form of some number argument
    families = {f.__name__ for f in FAMILIES}
    for d in drafts:
        if d.operator in families | {"value_off_by_one", "unknown_argument_added", "other_tool_called"}:
            read_candidate(d.candidate)
    (bare,) = [d for d in drafts if d.operator == "raw_without_list_brackets"]
    assert not bare.candidate["raw"].lstrip().startswith("[") and bare.category == "cosmetic"
    (other,) = [d for d in drafts if d.operator == "other_tool_called"]
    assert other.category == "regression" and other.candidate["parsed"][-1]["name"] == "analyze_rna"
    (unknown,) = [d for d in drafts if d.operator == "unknown_argument_added"]
    assert unknown.category == "near_miss"


def test_group_caps_keep_a_seeded_choice_and_default_to_all():
    from verifierbench.sources.toolcall.cases import GROUPS

    everything = {d.operator for d in generate(spec(), random.Random(1))}
    assert set(GROUPS["text_replies_without_calls"]) <= everything and {"raw_as_json", "raw_as_indented_json"} <= everything
    capped = generate(spec(), random.Random(1), {"json_renderings": 1, "text_replies_without_calls": 1})
    count = lambda group: sum(d.operator in GROUPS[group] for d in capped)
    assert count("json_renderings") == 1 and count("text_replies_without_calls") == 1
    assert any(d.operator == "no_call" for d in capped)  # the empty reply is never sampled away
    assert count("python_renderings") == len(GROUPS["python_renderings"])  # uncapped groups keep every member
