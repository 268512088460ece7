"""ACEBench's answer key as a `ToolCallSpec`: one expected value per argument.

ACEBench's checker lets a call leave out an answer-key argument the schema does not require
(checker.py rule 7), so such arguments are omittable here: the generators then build no
"argument missing" error from them, only the default-argument cases where a default is documented.
"""

from __future__ import annotations

from verifierbench.sources.acebench.checker import expected_calls
from verifierbench.sources.acebench.data import Record
from verifierbench.sources.toolcall.spec import ArgSpec, CallSpec, ToolCallSpec, documented_default


def spec_for(record: Record) -> ToolCallSpec:
    by_name = {f["name"]: f for f in record.functions}
    calls = []
    for expected in expected_calls(record.ground_truth, record.functions):
        params = by_name.get(expected["name"], {}).get("parameters", {})
        properties, required = params.get("properties", {}), set(params.get("required", []))
        args = tuple(
            ArgSpec(arg, (value,), omittable=arg not in required, required=arg in required, schema=properties.get(arg, {}),
                    default=documented_default(properties.get(arg, {})))
            for arg, value in expected["arguments"].items()
        )
        calls.append(CallSpec(expected["name"], args))
    return ToolCallSpec(record.functions, tuple(calls), integral_float_is_integer=True)
