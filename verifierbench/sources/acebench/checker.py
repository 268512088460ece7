"""ACEBench's checker for the "normal" categories, reimplemented (stdlib only; it also runs inside the sandbox).

ACEBench ships no package. The rules below follow its evaluator, `model_eval/checker.py` (`normal_checker`,
`simple_function_checker`, `type_checker`, `string_checker`, `list_checker`, `dict_checker`,
`list_dict_checker`), `model_eval/utils.py` (`standardize_string`, `sum_key_list`) and `eval_main.py`
(`normal_single_turn_eval`), read in the public copies of github.com/chenchen0103/ACEBench (see README.md).
A call is `{"name": str, "arguments": dict}`; a ground truth is `{function_name: {argument: value}}`.

Rules
 1. Alternatives. A ground truth may be a list of such dicts: the calls are valid when any one of them
    accepts them (`normal_single_turn_eval` loops over the list and stops at the first valid one).
 2. Repeated functions. A ground truth repeats a function as `name_1`, `name_2`, ...; the trailing `_<digits>`
    is removed to get the function's name (`normal_checker`, `re.sub(r'_\\d+$', '', key)`). We remove it only
    when the key itself is not a declared function (upstream strips unconditionally; see choice e).
 3. Call count. Exactly as many calls as the ground truth has (`normal_checker`, first check).
 4. Function names. Exact names; the multiset of emitted names must equal the expected one: no function
    outside the ground truth, none missing, and the same number of calls per function (`normal_checker`
    with `sum_key_list`).
 5. Order. Calls are matched order-insensitively: each expected call needs an emitted call of the same
    name that passes rules 6-9 (`normal_checker`'s inner loop over all emitted calls).
 6. Required arguments. Every argument the schema lists in `required` must be present
    (`simple_function_checker`, "lack required_params").
 7. Unexpected arguments. Every emitted argument must be declared in the schema and present in the ground
    truth (`simple_function_checker`, "addition params"): an optional argument the ground truth does not
    give is rejected even if it is the default. A ground-truth argument that the schema does not require
    may be omitted (upstream checks only `required` and the emitted arguments). A call without arguments
    is accepted only when the ground truth call has none either (`simple_function_checker`'s first test).
 8. Types (top-level arguments; `type_checker`). The value must have the schema type: string -> str,
    integer -> int (or an integral float, 5.0), number/float -> int or float, boolean -> bool,
    array -> list, object -> dict; a bool is never a number. When the ground truth's own value has
    another type than the schema says (a data slip, e.g. `null` for a string), a value of the ground
    truth's type is accepted too. Unknown schema types are not type-checked.
 9. Values, compared with the ground truth recursively:
    - strings are standardised, i.e. lower-cased with whitespace and `, . / - _ * ^` removed and `'` made
      `"` (`standardize_string`; `eval_main` also strips all whitespace from the raw output). A string
      argument or object field passes when the standardised expected string is a substring of the
      standardised emitted one (`string_checker`, `dict_checker`); a string inside an array must be
      equal after standardisation (`list_checker`);
    - arrays: same length, element by element in order (`list_checker`, `list_dict_checker`);
    - objects: exactly the ground truth's keys (`dict_checker`: same key count and no key outside the
      ground truth), each value compared recursively; the schema's nested `required` is not consulted;
    - numbers: numerically equal (5 == 5.0); booleans: equal; null: null (see choices a-c).

Choices (upstream ambiguous or evidently not doing what it intends; all stricter unless noted)
 a. Scalars are compared. Upstream's `simple_function_checker` compares top-level strings, lists and dicts
    but has no branch for int/float/bool, so a top-level number or boolean was never compared with the
    answer (a wrong number, a flipped boolean passed). The atom_number/atom_bool categories exist to test
    those values, so we compare them. Inside objects upstream compared `str(expected) in str(emitted)`
    (2 matched 12, "2022" matched 2022); we compare numbers numerically, and a value must have the
    answer's kind (string, number, boolean, null, array, object).
 b. Values are compared even when the answer's type differs from the schema's. Upstream's `type_checker`
    then set `is_variable` and skipped the value check: any float passed for a float answer to a
    "number" parameter (it maps "number" to int), any list for an empty-list answer, any dict for
    normal_single_turn_parallel_function_84 (a dict answer where the schema says array).
 c. Boolean strings. Upstream turns the strings "true"/"false" into booleans before type checking, because
    its Python-syntax decoder turns a bare JSON literal `true` into the string "true". Our calls arrive
    already parsed (JSON, or Python literals), where a boolean literal is a bool; a string that reaches
    us was quoted, so "true" for a boolean parameter is a type error.
 d. Matching is one-to-one: upstream let one emitted call satisfy several expected calls of the same name.
    Because of rule 9's substring test and choice a this let a corrupted call through when its sibling
    fitted both answers: in normal_atom_object_deep_39 an "Indirect" call also matches the "Direct"
    answer, and in normal_single_turn_parallel_function_13 the two calls differ only in numbers.
 e. Suffix stripping keeps a key that is itself a declared function name (no such name in the English data).
 f. An array without `items` is compared like any other array; upstream treated it as an array of objects
    and so rejected its own gold answer for normal_preference_40 (`["None"]`).
 g. Lenient: strings in arrays nested inside objects are standardised too (upstream compared
    `str(list)`, so case and key order mattered there only); tuples count as arrays.
 h. The function's schema is looked up by exact name (upstream `find_description` takes the first function
    whose name is a substring of the key; no case in the data picks a wrong function).
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from typing import Any

__all__ = ["check", "expected_calls", "standardize"]

_SUFFIX = re.compile(r"_\d+$")
_NOISE = re.compile(r"[\s,./\-_*^]")  # standardize_string's set, plus all whitespace (eval_main)
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "float": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def standardize(text: str) -> str:
    """Rule 9: lower case, whitespace and `, . / - _ * ^` removed, `'` as `"`."""
    return _NOISE.sub("", text).lower().replace("'", '"')


def expected_calls(ground_truth: dict[str, Any] | list[Any], functions: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The ground truth as calls [{"name", "arguments"}], with the `_N` suffixes of repeated functions removed.

    With `functions`, a key that is itself a declared function name is kept as is (rule 2, choice e);
    without, every trailing `_<digits>` is removed as upstream does. For a list ground truth (alternatives,
    rule 1) this gives the first alternative.
    """
    answer = _alternatives(ground_truth)[0]
    declared = set(_schemas(functions or []))
    return [{"name": _function_name(key, declared), "arguments": copy.deepcopy(args)} for key, args in answer.items()]


def check(functions: list[dict[str, Any]], ground_truth: dict[str, Any] | list[Any], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    """calls = [{"name": str, "arguments": dict}, ...] in the order emitted. Returns (valid, error message or "")."""
    problem = _shape_error(calls)
    if problem:
        return False, problem
    schemas = _schemas(functions)
    errors = []
    for answer in _alternatives(ground_truth):  # rule 1
        error = _check_answer(schemas, expected_calls(answer, functions), calls)
        if not error:
            return True, ""
        errors.append(error)
    if len(errors) > 1:
        return False, f"{errors[0]} (none of the {len(errors)} acceptable answers matches)"
    return False, errors[0]


# ---- whole answer (rules 3-5) -----------------------------------------------------------------

def _check_answer(schemas: dict[str, dict[str, Any] | None], expected: list[dict[str, Any]], calls: list[dict[str, Any]]) -> str:
    if len(calls) != len(expected):  # rule 3
        return f"expected {len(expected)} call(s), got {len(calls)}"
    want = Counter(c["name"] for c in expected)
    got = Counter(c["name"] for c in calls)
    for name in got:  # rule 4
        if name not in want:
            return f"unexpected function {name!r} (expected {sorted(want)})"
    for name in want:
        if name not in got:
            return f"missing call to {name!r}"
    for name, count in want.items():
        if got[name] != count:
            return f"expected {count} call(s) to {name!r}, got {got[name]}"
    # Rule 5: which emitted calls could stand for each expected call, then a one-to-one pairing (choice d).
    options: list[list[int]] = []
    for e in expected:
        fits, first_error = [], ""
        for j, c in enumerate(calls):
            if c["name"] != e["name"]:
                continue
            error = _check_call(schemas.get(e["name"]), e["arguments"], c["arguments"])
            if error:
                first_error = first_error or error
            else:
                fits.append(j)
        if not fits:
            return f"{e['name']}: {first_error}"
        options.append(fits)
    unmatched = _unpaired(options, len(calls))
    if unmatched is not None:
        return f"the calls to {expected[unmatched]['name']!r} cannot each be paired with a different expected call"
    return ""


def _unpaired(options: list[list[int]], n_calls: int) -> int | None:
    """Index of an expected call left out of a maximum one-to-one pairing (augmenting paths), else None."""
    owner = [-1] * n_calls

    def assign(i: int, seen: set[int]) -> bool:
        for j in options[i]:
            if j not in seen:
                seen.add(j)
                if owner[j] < 0 or assign(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(options)):
        if not assign(i, set()):
            return i
    return None


# ---- one call (rules 6-8) -----------------------------------------------------------------------

def _check_call(schema: dict[str, Any] | None, expected: dict[str, Any], args: dict[str, Any]) -> str:
    if not args and expected:  # rule 7, a call without arguments
        return f"called without arguments; expected {sorted(expected)}"
    properties = (schema or {}).get("properties") or {}
    for name in (schema or {}).get("required") or []:  # rule 6
        if name not in args:
            return f"missing required argument {name!r}"
    for name, value in args.items():  # rule 7
        if (schema is not None and name not in properties) or name not in expected:
            return f"unexpected argument {name!r}"
        declared = properties.get(name) or {}
        error = _type_error(declared.get("type"), expected[name], value)  # rule 8
        if error:
            return f"argument {name!r}: {error}"
        error = _value_error(expected[name], value, "", in_array=False)  # rule 9
        if error:
            return f"argument {name!r}: {error}"
    return ""


def _type_error(declared: Any, expected: Any, value: Any) -> str:
    names = declared if isinstance(declared, list) else [declared]
    known = [n for n in names if isinstance(n, str) and n in _TYPES]
    if not known or any(_conforms(value, n) for n in known):
        return ""
    # The ground truth's own type, where it disagrees with the schema (type_checker's fallback).
    if _kind(expected) != _kind(value) or any(_conforms(expected, n) for n in known):
        return f"expected {' or '.join(known)}, got {_kind(value)} {_short(value)}"
    return ""


def _conforms(value: Any, type_name: str) -> bool:
    # An integral float is an integer (JSON Schema; upstream too accepted a value equal to the answer).
    if type_name == "integer" and isinstance(value, float) and value.is_integer():
        return True
    return _is(value, _TYPES[type_name])


def _is(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


# ---- values (rule 9) ------------------------------------------------------------------------------

def _value_error(expected: Any, value: Any, path: str, in_array: bool) -> str:
    at = f" at {path}" if path else ""
    if isinstance(expected, dict):
        if not isinstance(value, dict):
            return f"expected an object{at}, got {_kind(value)} {_short(value)}"
        missing = [k for k in expected if k not in value]
        extra = [k for k in value if k not in expected]
        if missing or extra:
            detail = "; ".join(p for p in (missing and f"missing {missing}", extra and f"unexpected {extra}") if p)
            return f"wrong keys{at}: {detail}"
        for key, sub in expected.items():
            error = _value_error(sub, value[key], f"{path}.{key}" if path else key, in_array=False)
            if error:
                return error
        return ""
    if isinstance(expected, (list, tuple)):
        if not isinstance(value, (list, tuple)):
            return f"expected an array{at}, got {_kind(value)} {_short(value)}"
        if len(value) != len(expected):
            return f"expected {len(expected)} element(s){at}, got {len(value)}"
        for i, (sub, item) in enumerate(zip(expected, value)):
            error = _value_error(sub, item, f"{path}[{i}]", in_array=True)
            if error:
                return error
        return ""
    if isinstance(expected, str):
        if isinstance(value, str):
            want, have = standardize(expected), standardize(value)
            if (want == have) if in_array else (want in have):
                return ""
        return f"expected {expected!r}{at}, got {_short(value)}"
    if isinstance(expected, bool) or expected is None:
        if value is expected:
            return ""
        return f"expected {_short(expected)}{at}, got {_short(value)}"
    if isinstance(expected, (int, float)):
        if _is(value, (int, float)) and value == expected:
            return ""
        return f"expected {expected!r}{at}, got {_short(value)}"
    return "" if value == expected else f"expected {expected!r}{at}, got {_short(value)}"


# ---- inputs -----------------------------------------------------------------------------------

def _alternatives(ground_truth: dict[str, Any] | list[Any]) -> list[dict[str, Any]]:
    answers = ground_truth if isinstance(ground_truth, list) else [ground_truth]
    if not answers or not all(isinstance(a, dict) and all(isinstance(v, dict) for v in a.values()) for a in answers):
        raise ValueError("ground truth must be {function: {argument: value}} or a non-empty list of those")
    return answers


def _schemas(functions: list[dict[str, Any]] | dict[str, Any]) -> dict[str, dict[str, Any] | None]:
    """name -> parameters schema. ACEBench's distractor functions carry `arguments` instead of `parameters`."""
    if isinstance(functions, dict):
        functions = [functions]
    schemas: dict[str, dict[str, Any] | None] = {}
    for f in functions:
        params = f.get("parameters", f.get("arguments"))
        schemas[f["name"]] = params if isinstance(params, dict) else None
    return schemas


def _function_name(key: str, declared: set[str]) -> str:
    return key if key in declared else _SUFFIX.sub("", key)


def _shape_error(calls: Any) -> str:
    if not isinstance(calls, list):
        return "calls must be a list"
    for i, c in enumerate(calls):
        if not (isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("arguments"), dict)):
            return f"call {i} is not {{'name': str, 'arguments': dict}}"
    return ""


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
