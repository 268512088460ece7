"""ACEBench's answer key as a `ToolCallSpec`: one expected value per argument.

ACEBench's checker lets a call leave out an answer-key argument the schema does not require
(checker.py rule 7), so such arguments are omittable here: the generators then build no
"argument missing" error from them, only the default-argument cases where a default is documented.
"""

from __future__ import annotations

from typing import Any

from verifierbench.sources.acebench.checker import expected_calls
from verifierbench.sources.acebench.data import Record
from verifierbench.sources.toolcall.spec import CallSpec, ToolCallSpec, argument


def spec_for(record: Record) -> ToolCallSpec:
    return spec_for_key(record.functions, record.ground_truth)


def spec_for_key(functions: list[dict[str, Any]], ground_truth: dict[str, Any] | list[Any]) -> ToolCallSpec:
    """The spec from the answer key as the task's reference record keeps it."""
    parameters = {f["name"]: f.get("parameters", {}) for f in functions}
    calls = []
    for expected in expected_calls(ground_truth, functions):
        params = parameters.get(expected["name"], {})
        required = params.get("required", [])
        args = tuple(argument(arg, (value,), arg not in required, params) for arg, value in expected["arguments"].items())
        calls.append(CallSpec(expected["name"], args))
    return ToolCallSpec(functions, tuple(calls), integral_float_is_integer=True, omission_listed=False,
                        contained_strings_pass=True)


def spec_for_reference(reference: dict[str, Any]) -> ToolCallSpec:
    """The answer key of a built task (its reference record), for generators run after the build."""
    return spec_for_key(reference["functions"], reference["ground_truth"])
