"""Verifier4Verifier screening (paper §2.3, App. B): checks C1-C6 and C7 (hack potency, potency.py) on every task of a suite."""
