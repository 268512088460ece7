"""C7's naive verifiers of tool-call tasks (screening/potency.py): the source's own checker on what a naive verifier
would read from the candidate:
- `parsed_only`: the structured calls, the reply text ignored;
- `raw_only`: the calls in the reply text, found leniently (the first `[` to the last `]` when the whole text is not
  a call list), the structured calls ignored;
- `expected_calls_present`: some choice of the candidate's calls, one per expected call, passes (extra calls ignored);
- `values_as_text`: strings that read as numbers or booleans taken as those (values compared as text).
A tool-call source's build drops a hack none of them accepts (construction/replay.py), and screening's C7 fails it.
"""

from __future__ import annotations

import itertools
import json
from typing import Any, Callable, Iterator

from verifierbench.sources.toolcall.base import tool_call_source
from verifierbench.sources.toolcall.candidate import RawParseError, parse_raw

MAX_CHOICES = 512  # `expected_calls_present` tries at most this many choices of calls


def naive_checks_fooled(reference: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    """The naive checks (module doc) whose view of `candidate` the source's checker accepts."""
    return [name for name, views in NAIVE.items() if any(_passes(reference, calls) for calls in views(reference, candidate))]


def _passes(reference: dict[str, Any], calls: Any) -> bool:
    if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str)
                                              and isinstance(c.get("arguments"), dict) for c in calls):
        return False
    try:
        return tool_call_source(reference).check_calls(reference, calls)[0]
    except Exception:  # noqa: BLE001 - a view the checker cannot read fools nothing
        return False


def _parsed(reference: dict[str, Any], candidate: dict[str, Any]) -> Iterator[Any]:
    yield candidate.get("parsed")


def _raw(reference: dict[str, Any], candidate: dict[str, Any]) -> Iterator[Any]:
    text = candidate.get("raw")
    if not isinstance(text, str):
        return
    spans = [text]
    if "[" in text and "]" in text:
        spans.append(text[text.index("["): text.rindex("]") + 1])
    for span in spans:
        try:
            yield parse_raw(span)
            return
        except (RawParseError, ValueError, SyntaxError):
            continue


def _expected_present(reference: dict[str, Any], candidate: dict[str, Any]) -> Iterator[Any]:
    calls, expected = candidate.get("parsed"), tool_call_source(reference).expected_calls(reference)
    if not isinstance(calls, list) or len(calls) <= len(expected):
        return
    calls = [c for c in calls if isinstance(c, dict)]
    unused, chosen = list(calls), []
    for e in expected:  # the expected calls themselves, where the candidate holds them word for word
        match = next((c for c in unused if c.get("name") == e["name"] and c.get("arguments") == e["arguments"]), None)
        if match is None:
            break
        unused.remove(match)
        chosen.append(match)
    if len(chosen) == len(expected):
        yield chosen
    yield calls[: len(expected)]
    options = [[c for c in calls if c.get("name") == e["name"]] for e in expected]
    for choice in itertools.islice(itertools.product(*options), MAX_CHOICES):
        if len({id(c) for c in choice}) == len(choice):
            yield list(choice)


def _as_value(text: str) -> Any:
    try:
        read = json.loads(text)
    except ValueError:
        return text
    return read if isinstance(read, (bool, int, float)) else text


def _values_as_text(reference: dict[str, Any], candidate: dict[str, Any]) -> Iterator[Any]:
    """Each string argument that reads as a number or boolean taken as that, one argument at a time."""
    calls = candidate.get("parsed")
    if not isinstance(calls, list):
        return
    for ci, call in enumerate(calls):
        arguments = call.get("arguments") if isinstance(call, dict) else None
        if not isinstance(arguments, dict):
            continue
        for name, value in arguments.items():
            if isinstance(value, str) and _as_value(value) is not value:
                changed = [dict(c) if isinstance(c, dict) else c for c in calls]
                changed[ci] = {**call, "arguments": {**arguments, name: _as_value(value)}}
                yield changed


NAIVE: dict[str, Callable[[dict[str, Any], dict[str, Any]], Iterator[Any]]] = {
    "parsed_only": _parsed, "raw_only": _raw, "expected_calls_present": _expected_present, "values_as_text": _values_as_text}
