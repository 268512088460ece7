"""Shared by the state-task sources (tau2, AgentDojo): the interaction-record candidate and the public
environment interface that `run_public` serves."""
