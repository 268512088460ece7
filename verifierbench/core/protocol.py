"""The verifier protocol (docs/protocol.md): how a verifier is invoked and what counts as a decision.

A verifier is a directory holding `verify.py` (or that single file). The harness runs it once per
case as its own process:

    python3 /verifier/verify.py /input/candidate.json /output/result-<token>.json

with the same two paths also in the environment as `VGB_CANDIDATE` and `VGB_RESULT`. The verifier
writes one JSON object to the result path:

    {"decision": "PASS" | "FAIL", "confidence": <optional number>, "reason": <optional string>}

The outcome is P (valid PASS), F (valid FAIL) or U (no valid decision). A decision is valid only
when the process exits with status 0 within its limits and the result file holds a conforming
object. Whatever the verifier prints on stdout is ignored: candidate code may print anything.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

ENTRYPOINT = "verify.py"
RESULT_MAX_BYTES = 1 << 20  # a decision is small; anything bigger is malformed


class Decision(str, Enum):
    P = "P"
    F = "F"
    U = "U"


@dataclass(frozen=True)
class ParsedResult:
    decision: Decision
    confidence: float | None = None
    reason: str | None = None
    problem: str | None = None  # why the result is not a valid decision (U only)


NO_RESULT = "no result file written"


def parse_result_file(path: Path) -> ParsedResult:
    """Reads a verifier's result file; anything non-conforming is U with the problem named."""
    try:
        # O_NOFOLLOW: a result planted as a symlink must not make the harness read a host file.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ParsedResult(Decision.U, problem="result is not a regular file")
            raw = handle.read(RESULT_MAX_BYTES + 1)
    except FileNotFoundError:
        return ParsedResult(Decision.U, problem=NO_RESULT)
    except OSError as exc:
        return ParsedResult(Decision.U, problem=f"result file unreadable: {exc.strerror}")
    if len(raw) > RESULT_MAX_BYTES:
        return ParsedResult(Decision.U, problem=f"result file larger than {RESULT_MAX_BYTES} bytes")
    return parse_result_text(raw)


def parse_result_text(raw: bytes | str) -> ParsedResult:
    try:
        data = json.loads(raw)
    except RecursionError:
        return ParsedResult(Decision.U, problem="result is not JSON: nested too deeply")
    except ValueError as exc:  # bad JSON, bad UTF-8, and integers too long to convert alike
        return ParsedResult(Decision.U, problem=f"result is not JSON: {str(exc)[:200]}")
    if not isinstance(data, dict):
        return ParsedResult(Decision.U, problem="result is not a JSON object")
    decision = data.get("decision")
    if decision not in ("PASS", "FAIL"):
        return ParsedResult(Decision.U, problem=f"decision must be \"PASS\" or \"FAIL\", got {json.dumps(decision)[:60]}")
    # Confidence never changes the label: an unusable value is dropped, the decision stands.
    confidence = _finite_float(data.get("confidence"))
    reason = data.get("reason")
    if reason is not None and not isinstance(reason, str):
        reason = json.dumps(reason)[:2000]
    if reason:
        # Lone surrogates (valid JSON escapes) cannot be printed or written as UTF-8 later.
        reason = reason[:2000].encode("utf-8", "replace").decode("utf-8")
    return ParsedResult(Decision.P if decision == "PASS" else Decision.F, confidence, reason)


def _finite_float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)  # an integer beyond float's range overflows
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
