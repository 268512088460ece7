"""The build's exclusion codes (one letter, one meaning) and `screening.json`, the file that records them.

The screen's own codes (C1-C7) are in screening/run.py; the two sets share no letter (tests/screening/test_exclusion_codes.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verifierbench.construction.replay import INERT_HACK

SCREENING = "screening.json"
EXCLUSION_CODES = {
    "D": "answer key conflicts with default-argument rules",
    "G": "the reference rejects the answer key's own gold answer",
    "E": "after C1 replay the task lacks a positive, a negative or an attack case",
    "K": "the answer key accepts an explicit value the tool's schema or description rules out (outside its enum or range, "
         "or an argument that acts only when provided, where the key also accepts leaving it out)",
    "Z": "the source's own check accepts an interaction that does nothing (zero actions), though the task needs a change",
    "J": "tau2: an empty trajectory already gets reward 1.0 upstream (refusal/transfer tasks judged by an LLM there)",
    "N": "injection pair without an effective injection (not injectable, or its ground truth misses its goal)",
    "S": "SWE-bench: its own grading does not resolve the gold patch (empty or unparsable report), or resolves an empty diff",
    "T": "SWE-bench: the clone cannot give the instance's whole tree (base commit absent, a submodule, a missing object)",
    "V": "SWE-bench: the test environment of the instance's repository and version cannot be made here",
    "W": "SWE-bench: the test patch touches no test module, so the grading would run the whole test suite",
}
# Letters that meant two things before: (source, old letter) -> the letter of that source's meaning now.
RENAMED = {("agentdojo", "W"): "Z"}


def current_code(entry: dict[str, Any]) -> str:
    """The code of one excluded task (`{"task": "<source>/<id>", "code": ...}`) in today's letters."""
    code: str = entry["code"]
    return RENAMED.get((entry["task"].split("/")[0], code), code)


def read_screening(suite_dir: Path) -> dict[str, Any]:
    """A suite's `screening.json` with its codes in today's letters (a suite built before a rename reads the same),
    or no exclusions and no dropped cases where the suite has none."""
    path = suite_dir / SCREENING
    if not path.exists():
        return {"excluded": [], "dropped": []}
    screening: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    screening["excluded"] = [{**entry, "code": current_code(entry)} for entry in screening["excluded"]]
    return screening


def dropped_by_c1(dropped: list[dict[str, Any]]) -> int:
    """How many of the drafts a build dropped (`screening.json`'s "dropped") disagreed with the reference (C1); the
    others were hacks that fooled no naive verifier (C7 at build time)."""
    return sum(1 for entry in dropped if entry.get("reason") != INERT_HACK)


def write_screening(out: Path, excluded: list[dict[str, Any]], dropped: list[dict[str, Any]]) -> None:
    (out / SCREENING).write_text(json.dumps({"excluded": excluded, "dropped": dropped}, indent=1) + "\n", encoding="utf-8")
