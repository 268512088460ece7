"""Runs untrusted verifiers on one case each, isolated (docs/isolation.md). The executor's public names:
callers import these from here, and the rest from the module that defines them."""

from verifierbench.executor.isolation import IsolationLevel, probe_bwrap, resolve_isolation
from verifierbench.executor.jobs import Job, Outcome
from verifierbench.executor.limits import Limits
from verifierbench.executor.runner import Executor
from verifierbench.executor.staging import FrozenVerifier, MissingVerifier

__all__ = ["Executor", "FrozenVerifier", "IsolationLevel", "Job", "Limits", "MissingVerifier", "Outcome", "probe_bwrap",
           "resolve_isolation"]
