"""VerifierBench harness: evaluate agents that write verifiers for agent tasks."""

__version__ = "0.1.0"
