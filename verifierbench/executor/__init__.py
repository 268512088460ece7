"""Runs untrusted verifiers on one case each, isolated (architecture §8)."""

from verifierbench.executor.isolation import IsolationLevel, probe_bwrap, resolve_isolation
from verifierbench.executor.limits import Limits
from verifierbench.executor.runner import Executor, Job, Outcome

__all__ = ["Executor", "IsolationLevel", "Job", "Limits", "Outcome", "probe_bwrap", "resolve_isolation"]
