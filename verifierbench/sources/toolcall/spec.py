"""An answer key in one shape for every tool-call source, so one set of case generators serves them all.

BFCL gives a list of acceptable values per argument ("" meaning the argument may be omitted);
ACEBench gives one value. Each source converts its key into a `ToolCallSpec`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


NO_DEFAULT = object()


@dataclass(frozen=True)
class ArgSpec:
    name: str
    values: tuple[Any, ...]  # acceptable explicit values; the first is the canonical one
    omittable: bool  # the key accepts leaving the argument out
    required: bool
    schema: dict[str, Any] = field(default_factory=dict)
    default: Any = NO_DEFAULT  # the tool's documented default, when one could be read unambiguously

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    def default_matches(self) -> bool:
        """Whether omitting the argument gives an acceptable value (the tool's default is one of them)."""
        return self.has_default and any(same_value(self.default, v) for v in self.values)


@dataclass(frozen=True)
class CallSpec:
    name: str
    args: tuple[ArgSpec, ...]

    def gold_arguments(self) -> dict[str, Any]:
        return {a.name: a.values[0] for a in self.args if a.values}


@dataclass(frozen=True)
class ToolCallSpec:
    functions: list[Any]
    calls: tuple[CallSpec, ...]
    # Whether the source's rules take an integral float (5.0) for an integer argument, as JSON does (ACEBench).
    integral_float_is_integer: bool = False
    # Whether the key itself lists leaving an argument out (BFCL's ""), rather than a checker rule allowing it (ACEBench).
    omission_listed: bool = True
    # Whether the checker accepts a top-level string (or object field) that contains the expected one after
    # standardisation (ACEBench's substring rule), so only strings inside arrays must equal it.
    contained_strings_pass: bool = False

    def gold_calls(self) -> list[dict[str, Any]]:
        return [{"name": c.name, "arguments": c.gold_arguments()} for c in self.calls]


def argument(name: str, values: tuple[Any, ...], omittable: bool, parameters: dict[str, Any]) -> ArgSpec:
    """An answer-key argument with what the tool's parameter schema says about it (required, default)."""
    schema = parameters.get("properties", {}).get(name, {})
    return ArgSpec(name, values, omittable, name in parameters.get("required", []), schema, documented_default(schema))


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() == b.strip().lower()
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    equal: bool = a == b
    return equal


_QUOTED = r"'([^']*)'|\"([^\"]*)\""
_NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE]-?\d+)?)(?![\w.]*\d)"
_WORD = r"([A-Za-z][\w/]*)(?=\s*(?:[.,;)]|$))"
_DEFAULT_TEXT = re.compile(r"\bdefaults?(?:\s+value)?(?:\s+(?:is|to|of))?\s*[:=]?\s*(?:" + _QUOTED + "|" + _NUMBER + "|" + _WORD + ")", re.I)


def documented_default(schema: dict[str, Any]) -> Any:
    """The default a parameter documents (`default` field, else "Default is X" in its description), or NO_DEFAULT.

    Conservative on purpose: a default that cannot be read unambiguously (for example "Default is zero"
    or "default is an empty list") counts as unknown, and no default-argument case is built from it.
    """
    kind = schema.get("type")
    if "default" in schema:
        return schema["default"]
    found = _DEFAULT_TEXT.findall(schema.get("description", ""))
    if len(found) != 1:
        return NO_DEFAULT
    single, double, number, word = found[0]
    text = single or double
    if kind in ("integer", "float", "number"):
        raw = number or text
        try:
            value = float(raw)
        except ValueError:
            return NO_DEFAULT
        return int(value) if kind == "integer" and value.is_integer() else value
    if kind == "boolean":
        raw = (text or word).lower()
        return {"true": True, "false": False}.get(raw, NO_DEFAULT)
    if kind == "string":
        if single or double:
            return text
        return word if word else NO_DEFAULT
    return NO_DEFAULT

