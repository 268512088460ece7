"""Which of the repository's functions each test reaches (stdlib only): the build's reach map.

Loaded by `vgb_django_report` and `vgb_pytest_report` when the run asks for it (`VGB_REACH_PATH`, removed from the
environment before any tested code is imported). A global trace function sees every new Python frame (no line
events: it returns None) and adds its code object to the set of the test running now, or to `outside` when no test
runs (imports, class set-up). Written when the run ends: the functions defined under the working directory, and
per test the indexes of those it reached. Used only for the reference's own gold run at build time, never for a
candidate's.
"""

from __future__ import annotations

import json
import os
import sys
import threading

_PATH = os.environ.pop("VGB_REACH_PATH", None)
_OUTSIDE: set = set()
_BY_TEST: dict[str, set] = {}
_ALIASES: dict[str, set[str]] = {}  # another name a test is known by (several tests may share it) -> the tests
_current = [_OUTSIDE]  # a one-element list: the tracer reads it without a global lookup


def _tracer(frame, event, arg):  # noqa: ANN001 - sys.settrace's signature
    _current[0].add(frame.f_code)


def enabled() -> bool:
    return bool(_PATH)


def install() -> None:
    if _PATH:
        sys.settrace(_tracer)
        threading.settrace(_tracer)  # a live server's threads


def start(names: list[str]) -> None:
    """A test starts: what runs from now on is its own (`names`: its name first, then its aliases)."""
    if _PATH:
        for alias in names[1:]:
            _ALIASES.setdefault(alias, set()).add(names[0])
        _current[0] = _BY_TEST.setdefault(names[0], set())


def stop() -> None:
    if _PATH:
        _current[0] = _OUTSIDE


def write() -> None:
    if not _PATH:
        return
    sys.settrace(None)
    threading.settrace(None)
    root = os.getcwd() + os.sep
    index: dict[tuple, int] = {}
    functions: list[list] = []

    def indexes(codes: set) -> list[int]:
        out = []
        for code in list(codes):
            filename = code.co_filename
            if not filename.startswith(root) or code.co_name.startswith("<"):
                continue
            key = (filename, code.co_firstlineno, code.co_name)
            if key not in index:
                index[key] = len(functions)
                functions.append([filename[len(root):], code.co_firstlineno, code.co_name])
            out.append(index[key])
        return sorted(out)

    tests = {name: indexes(codes) for name, codes in _BY_TEST.items()}
    for alias, names in _ALIASES.items():
        if alias not in tests:
            tests[alias] = sorted(set().union(*(tests[name] for name in names)))
    outside = indexes(_OUTSIDE)
    with open(_PATH, "w", encoding="utf-8") as handle:
        json.dump({"functions": functions, "tests": tests, "outside": outside}, handle)
