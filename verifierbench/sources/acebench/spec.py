"""ACEBench's answer key as a `ToolCallSpec`: one expected value per argument.

ACEBench's checker lets a call leave out an answer-key argument the schema does not require
(checker.py rule 7), so such arguments are omittable here: the generators then build no
"argument missing" error from them, only the default-argument cases where a default is documented.
"""

from __future__ import annotations

from verifierbench.sources.acebench.checker import expected_calls
from verifierbench.sources.acebench.data import Record
from verifierbench.sources.toolcall.spec import CallSpec, ToolCallSpec, argument


def spec_for(record: Record) -> ToolCallSpec:
    parameters = {f["name"]: f.get("parameters", {}) for f in record.functions}
    calls = []
    for expected in expected_calls(record.ground_truth, record.functions):
        params = parameters.get(expected["name"], {})
        required = params.get("required", [])
        args = tuple(argument(arg, (value,), arg not in required, params) for arg, value in expected["arguments"].items())
        calls.append(CallSpec(expected["name"], args))
    return ToolCallSpec(record.functions, tuple(calls), integral_float_is_integer=True)
