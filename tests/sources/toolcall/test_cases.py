"""Case generators: every applicable category from one answer key, deterministic for a seed, labels from categories."""

import random

from verifierbench.core.schema import Category
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


def test_issue_55_families_make_what_they_say():
    from verifierbench.sources.toolcall import cases

    key = spec()
    gold = key.gold_calls()
    made = {f.__name__: list(f(key, gold, random.Random(0))) for f in cases.FAMILIES_55}
    offered = {f["name"] for f in FUNCTIONS}
    assert made["function_not_offered"] and all(d.category == "near_miss" and d.candidate["parsed"][d.detail["call"]]["name"] not in offered
                                               for d in made["function_not_offered"])
    for d in made["string_restyled"]:  # the same string once standardised, as both checkers compare them
        value = d.candidate["parsed"][d.detail["call"]]["arguments"][d.detail["argument"]]
        original = gold[d.detail["call"]]["arguments"][d.detail["argument"]]
        assert d.category == "cosmetic" and value != original and cases._loose(value) == cases._loose(original)
    assert {d.detail["edit"] for d in made["string_restyled"]} >= {"case_changed", "spacing_changed"}
    for d in made["string_contains_right_one"]:
        value = d.candidate["parsed"][d.detail["call"]]["arguments"][d.detail["argument"]]
        assert gold[d.detail["call"]]["arguments"][d.detail["argument"]] in value and d.category == "near_miss"
    assert made["number_slightly_off"] == []  # the threshold's first value is the integer 2: 1% of it is no integer
    assert [v for _, v in cases._slightly_off(2.0)] == [2.02, 1.98, 2.01]
    assert [v for _, v in cases._slightly_off(250)] == [252, 248, 249] and cases._slightly_off(99) == []
    assert made["inner_value_changed"] == []  # no list or object argument here
    assert {d.candidate["parsed"][d.detail["call"]]["arguments"]["threshold"] for d in made["type_confused_values"]} == {"2"}
    assert all(d.candidate["raw"] == cases.render_python(gold) and d.candidate["parsed"] != gold for d in made["more_raw_disagreements"])
    assert all(len(d.candidate["parsed"]) > len(gold) for d in made["more_duplicated_calls"])
    # ACEBench's checker accepts a containing top-level string: the family keeps to strings inside arrays there
    lenient = ToolCallSpec(FUNCTIONS, key.calls, contained_strings_pass=True)
    assert list(cases.string_contains_right_one(lenient, gold, random.Random(0))) == []
    assert "substring rule" in cases.why_not("string_contains_right_one", lenient, made=False)


def test_inner_value_changed_keeps_the_shape():
    from verifierbench.sources.toolcall.cases import inner_value_changed

    key = ToolCallSpec(FUNCTIONS, (CallSpec("analyze_dna", (ArgSpec("sequence", (["AG", "CT"],), False, True),
                                                            ArgSpec("options", ({"mode": "fast", "depth": 3},), False, False))),))
    gold = key.gold_calls()
    changed = [d.candidate["parsed"][0]["arguments"] for d in inner_value_changed(key, gold, random.Random(0))]
    assert {"sequence": ["BG", "CT"], "options": {"mode": "fast", "depth": 3}} in changed
    assert {"sequence": ["AG", "CT"], "options": {"mode": "fast", "depth": 6}} in changed
    assert all(len(a["sequence"]) == 2 and set(a["options"]) == {"mode", "depth"} for a in changed)
