"""Answer-key defects in explicit values, read from the tools' own schemas and descriptions (exclusion code K).

Code D (replay.py) catches keys that accept leaving an argument out when the tool's documented default is
not what the request asks for. The same defect exists for explicit values: the key accepts a value that the
tool's schema or description gives another effect than the one the request asks for. Such a key labels a
wrong call PASS (and, when the value is the first one, makes a wrong gold). Three rules, each read from the
schema alone:

- `outside_enum`: a string the parameter's `enum` does not hold, compared after the sources' string
  standardisation (lower case; spaces and `,./-_*^` removed). The tool would reject the call.
- `outside_range`: a number below the parameter's `minimum` or above its `maximum`.
- `applies_when_provided`: the parameter's description says it takes effect when provided (BFCL
  `math.power`: "Calculates pow(base, exponent) % mod when provided"), and the key accepts both leaving it
  out and an explicit non-null value. The two calls compute different things (pow(3, 4) = 81, pow(3, 4) % 1
  = 0); accepting the omission says the request does not ask for the argument, so the explicit value is
  wrong. Only for keys that list the omission themselves (BFCL's ""), not where a checker rule allows it.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from verifierbench.sources.toolcall.spec import ToolCallSpec, same_value

# "when provided", "if given", "only when specified", ...: the argument acts only if present. "If set to true"
# is about a boolean's value, not its presence, and does not count.
_WHEN_PROVIDED = re.compile(r"\b(?:when|if|only when|only if)\s+(?:it is\s+|is\s+)?(?:provided|given|specified|supplied|passed)\b", re.I)
_NOISE = re.compile(r"[\s,./\-_*^]")


def defects(spec: ToolCallSpec) -> list[dict[str, Any]]:
    """Every explicit acceptable value of the key that the tool's schema or description rules out, as evidence records."""
    found = []
    for ci, call in enumerate(spec.calls):
        for arg in call.args:
            for value in arg.values:
                for rule, path, inner, says in _schema_violations(arg.schema, value, arg.name):
                    found.append({"rule": rule, "call": ci, "function": call.name, "argument": path, "value": inner, "schema": says})
            description = arg.schema.get("description", "")
            if spec.omission_listed and arg.omittable and _WHEN_PROVIDED.search(description):
                for value in arg.values:
                    if value is not None:
                        found.append({"rule": "applies_when_provided", "call": ci, "function": call.name, "argument": arg.name,
                                      "value": value, "schema": description})
    return found


def _schema_violations(schema: dict[str, Any], value: Any, path: str) -> Iterator[tuple[str, str, Any, Any]]:
    """(rule, argument path, value there, what the schema says) for each place in `value` its schema rules out."""
    enum = schema.get("enum")
    if enum and isinstance(value, (str, int, float)) and not isinstance(value, bool) and not _in_enum(value, enum):
        yield "outside_enum", path, value, enum
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            yield "outside_range", path, value, {"minimum": schema["minimum"]}
        if "maximum" in schema and value > schema["maximum"]:
            yield "outside_range", path, value, {"maximum": schema["maximum"]}
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key, inner in value.items():
            yield from _schema_violations(properties.get(key, {}), inner, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, inner in enumerate(value):
            yield from _schema_violations(schema["items"], inner, f"{path}[{index}]")


def _in_enum(value: Any, enum: list[Any]) -> bool:
    if isinstance(value, str):
        return any(isinstance(e, str) and _standard(e) == _standard(value) for e in enum)
    return any(same_value(value, e) for e in enum if not isinstance(e, str))


def _standard(text: str) -> str:
    return _NOISE.sub("", text).lower()
