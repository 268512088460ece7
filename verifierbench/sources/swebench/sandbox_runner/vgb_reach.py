"""Which of the repository's functions only PASS_TO_PASS tests reach (stdlib only): the build's reach map.

Loaded by `vgb_django_report` and `vgb_pytest_report`. When the run asks for a map, `VGB_REACH_PATH` (removed from
the environment before any tested code is imported) names a file holding the task's test names,
{"fail_to_pass": [...], "pass_to_pass": [...]}; the map replaces it when the run ends. A global trace function sees
every new Python frame (no line events: it returns None) and adds its code object to the set of the test running
now, or to `outside` when none runs (imports, class set-up). The map keeps, of the functions defined under the
working directory, those PASS_TO_PASS tests reached and neither a FAIL_TO_PASS test nor anything outside a test:
{"functions": [[path, first line, name, how many PASS_TO_PASS tests reached it]], "unseen": [FAIL_TO_PASS tests that
never ran]}. Aggregated here, not per test: a module of hundreds of tests (django's admin_views, matplotlib's
test_axes) would give a per-test map of megabytes. Only for the reference's own gold run at build time.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import CodeType, FrameType

_PATH = os.environ.pop("VGB_REACH_PATH", None)
_NAMES: dict[str, set[str]] = {"fail_to_pass": set(), "pass_to_pass": set()}
if _PATH:
    try:
        with open(_PATH, encoding="utf-8") as _handle:
            _asked = json.load(_handle)
        _NAMES = {role: set(_asked.get(role) or []) for role in ("fail_to_pass", "pass_to_pass")}
    except (OSError, ValueError, AttributeError):
        _PATH = None  # no names, no map: the harness reads the file's absence as "none"

_OUTSIDE: set[CodeType] = set()
_FAIL_TO_PASS: set[CodeType] = set()  # what any FAIL_TO_PASS test reached
_PASS_TO_PASS: Counter[CodeType] = Counter()  # code object -> how many PASS_TO_PASS tests reached it
_SEEN: set[str] = set()
_now: dict[str, Any] = {"role": None}  # the running test's role
_current = [_OUTSIDE]  # a one-element list: the tracer reads it without a global lookup


def _tracer(frame: FrameType, event: str, arg: Any) -> None:  # sys.settrace's signature
    _current[0].add(frame.f_code)


def enabled() -> bool:
    return bool(_PATH)


def install() -> None:
    if _PATH:
        sys.settrace(_tracer)
        threading.settrace(_tracer)  # a live server's threads


def start(names: list[str]) -> None:
    """A test starts (`names`: every name it is known by); what runs until `stop` is its own."""
    if not _PATH:
        return
    _SEEN.update(names)
    role = "fail_to_pass" if _NAMES["fail_to_pass"].intersection(names) else "pass_to_pass" if _NAMES["pass_to_pass"].intersection(names) else None
    _now["role"] = role
    _current[0] = _FAIL_TO_PASS if role == "fail_to_pass" else set()


def stop() -> None:
    if not _PATH:
        return
    if _now["role"] == "pass_to_pass":
        _PASS_TO_PASS.update(_current[0])
    _now["role"] = None
    _current[0] = _OUTSIDE


def write() -> None:
    if not _PATH:
        return
    sys.settrace(None)
    threading.settrace(None)
    root = os.getcwd() + os.sep
    unsafe = {(code.co_filename, code.co_firstlineno, code.co_name) for code in _OUTSIDE | _FAIL_TO_PASS}
    counts: Counter[tuple[str, int, str]] = Counter()
    for code, tests in _PASS_TO_PASS.items():
        key = (code.co_filename, code.co_firstlineno, code.co_name)
        if code.co_filename.startswith(root) and not code.co_name.startswith("<") and key not in unsafe:
            counts[key] = max(counts[key], tests)
    functions = sorted([filename[len(root):], line, name, tests] for (filename, line, name), tests in counts.items())
    with open(_PATH, "w", encoding="utf-8") as handle:
        json.dump({"functions": functions, "unseen": sorted(_NAMES["fail_to_pass"] - _SEEN)}, handle)
