"""BFCL's answer key as a `ToolCallSpec`: acceptable values per argument, "" meaning omission is accepted."""

from __future__ import annotations

from typing import Any

from verifierbench.sources.bfcl.data import Record
from verifierbench.sources.toolcall.spec import CallSpec, ToolCallSpec, argument


def spec_for(record: Record) -> ToolCallSpec:
    return spec_for_key(record.functions, record.ground_truth)


def spec_for_key(functions: list[dict[str, Any]], ground_truth: list[dict[str, Any]]) -> ToolCallSpec:
    """The spec from the answer key as the task's reference record keeps it."""
    parameters = {f["name"]: f["parameters"] for f in functions}
    calls = []
    for entry in ground_truth:
        (name, key), = entry.items()
        args = tuple(argument(arg, tuple(v for v in acceptable if v != ""), "" in acceptable, parameters[name])
                     for arg, acceptable in key.items())
        calls.append(CallSpec(name, args))
    return ToolCallSpec(functions, tuple(calls))


def spec_for_reference(reference: dict[str, Any]) -> ToolCallSpec:
    """The answer key of a built task (its reference record), for generators run after the build."""
    return spec_for_key(reference["functions"], reference["ground_truth"])
