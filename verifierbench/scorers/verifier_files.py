"""Moved to `verifierbench.verifier_files` (the scorers and the audit both use it; here it made audit <-> scorers
a cycle). Kept as an alias only for `leaderboard/logs.py`, which another change owns: remove with that import."""

from verifierbench.verifier_files import decode, safe_relative

__all__ = ["decode", "safe_relative"]
