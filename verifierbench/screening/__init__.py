"""Verifier4Verifier screening (paper §2.3, App. B): checks C1-C6 on every task of a suite."""
