"""Parsed calls ignored (issue 55, hacks accepted): the verifier reads the calls from the reply's text alone, so a
reply whose text holds the right calls passes whatever its structured calls (what the harness executes) say."""

from _common import accepts
from verifierbench.sources.toolcall.candidate import RawParseError, parse_raw


def apply(reference, candidate, accepted):
    raw = candidate.get("raw") if isinstance(candidate, dict) else None
    if not isinstance(raw, str):
        return accepted
    try:
        return accepts(reference, parse_raw(raw))
    except (RawParseError, ValueError):
        return False
