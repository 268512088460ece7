"""Shared by the state-task sources (tau2, AgentDojo): the interaction-record candidate and the public
environment interface that `run_public` serves, and what their Source methods give the screening and the audit: the
C6 mutation operators (mutants.py, AppWorld's too), C7's naive checks (naive_checks.py) and the deterministic auditor
(audit.py)."""
