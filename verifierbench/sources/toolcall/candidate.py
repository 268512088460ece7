"""The tool-call candidate: `{"raw": text as emitted, "parsed": [{"name", "arguments"}, ...]}`.

Stdlib only: the reference verifier imports this inside the sandbox too.
`raw` may be Python-style call text (`[f(a=1), g(b='x')]`, ACEBench's and BFCL's native form)
or JSON (a list of `{"name", "arguments"}` objects). Anything else in `raw` is not a call list.
"""

from __future__ import annotations

import ast
import json
from typing import Any

Call = dict[str, Any]  # {"name": str, "arguments": dict}


def call(name: str, arguments: dict[str, Any]) -> Call:
    return {"name": name, "arguments": dict(arguments)}


def candidate(calls: list[Call], raw: str | None = None) -> dict[str, Any]:
    return {"raw": render_python(calls) if raw is None else raw, "parsed": [call(c["name"], c["arguments"]) for c in calls]}


def render_python(calls: list[Call], quote: str = "'", spaced: bool = False) -> str:
    sep = ", " if not spaced else " ,  "
    eq = "=" if not spaced else " = "
    parts = [f"{c['name']}({sep.join(f'{k}{eq}{_py(v, quote)}' for k, v in c['arguments'].items())})" for c in calls]
    return "[" + (",\n " if spaced else ", ").join(parts) + "]"


def render_json(calls: list[Call], indent: int | None = None) -> str:
    return json.dumps([call(c["name"], c["arguments"]) for c in calls], indent=indent)


def _py(value: Any, quote: str) -> str:
    if isinstance(value, str):
        if quote == '"':
            return json.dumps(value)
        return repr(value)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_py(v, quote) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_py(k, quote)}: {_py(v, quote)}" for k, v in value.items()) + "}"
    return repr(value)


class RawParseError(ValueError):
    pass


def parse_raw(raw: str) -> list[Call]:
    """The calls in `raw`, or RawParseError when it is neither a Python call list nor JSON calls."""
    text = raw.strip()
    if not text:
        return []
    if text[0] in "[{":
        try:
            return _from_json(json.loads(text))
        except (json.JSONDecodeError, RawParseError):
            pass
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise RawParseError(f"raw is not a call list: {e.msg}") from None
    nodes = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
    return [_from_ast(node) for node in nodes]


def _from_json(data: Any) -> list[Call]:
    items = data if isinstance(data, list) else [data]
    calls = []
    for item in items:
        if not (isinstance(item, dict) and set(item) == {"name", "arguments"} and isinstance(item["name"], str)
                and isinstance(item["arguments"], dict)):
            raise RawParseError("JSON raw must be a list of {name, arguments} objects")
        calls.append(call(item["name"], item["arguments"]))
    return calls


def _from_ast(node: ast.AST) -> Call:
    if not isinstance(node, ast.Call) or node.args:
        raise RawParseError("raw holds something other than keyword-argument calls")
    name = _dotted(node.func)
    arguments = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise RawParseError("raw uses ** arguments")
        try:
            arguments[kw.arg] = _literal(kw.value)
        except ValueError:
            raise RawParseError(f"argument {kw.arg!r} of {name} is not a literal") from None
    return call(name, arguments)


def _literal(node: ast.AST) -> Any:
    value = ast.literal_eval(node)
    return _plain(value)


def _plain(value: Any) -> Any:
    """Tuples and sets become lists, as they would after a JSON round trip."""
    if isinstance(value, (tuple, list, set)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    raise RawParseError("a call's function is not a name")


def _canonical(value: Any) -> Any:
    # 5 and 5.0 are the same value in both representations; bools stay bools.
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return ("num", float(value))
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return sorted((k, _canonical(v)) for k, v in value.items())
    return repr(value)


def same_calls(a: list[Call], b: list[Call]) -> bool:
    """Whether two call lists hold the same calls, in any order (argument order never matters)."""
    key = lambda c: json.dumps([c["name"], _canonical(c["arguments"])], sort_keys=True, default=str)
    return sorted(map(key, a)) == sorted(map(key, b))


def read_candidate(data: Any) -> list[Call]:
    """The parsed calls of a candidate after checking that `raw` says the same; ValueError otherwise."""
    if not isinstance(data, dict) or not isinstance(data.get("raw"), str) or not isinstance(data.get("parsed"), list):
        raise ValueError("candidate must be an object with string `raw` and list `parsed`")
    parsed = data["parsed"]
    for c in parsed:
        if not (isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("arguments"), dict)):
            raise ValueError("every parsed call needs a string `name` and an object `arguments`")
    try:
        from_raw = parse_raw(data["raw"])
    except RawParseError as e:
        raise ValueError(str(e)) from None
    if not same_calls(from_raw, parsed):
        raise ValueError("raw and parsed disagree")
    return [call(c["name"], c["arguments"]) for c in parsed]
