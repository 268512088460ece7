"""BFCL's answer key as a `ToolCallSpec`: acceptable values per argument, "" meaning omission is accepted."""

from __future__ import annotations

from verifierbench.sources.bfcl.data import Record
from verifierbench.sources.toolcall.spec import ArgSpec, CallSpec, ToolCallSpec, documented_default


def spec_for(record: Record) -> ToolCallSpec:
    by_name = {f["name"]: f for f in record.functions}
    calls = []
    for entry in record.ground_truth:
        (name, key), = entry.items()
        params = by_name[name]["parameters"]
        properties, required = params.get("properties", {}), set(params.get("required", []))
        args = tuple(
            ArgSpec(
                name=arg,
                values=tuple(v for v in acceptable if v != ""),
                omittable="" in acceptable,
                required=arg in required,
                schema=properties.get(arg, {}),
                default=documented_default(properties.get(arg, {})),
            )
            for arg, acceptable in key.items()
        )
        calls.append(CallSpec(name, args))
    return ToolCallSpec(record.functions, tuple(calls))
