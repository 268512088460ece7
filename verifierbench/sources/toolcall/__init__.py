"""What the tool-call sources (BFCL, ACEBench) share: the candidate format, case generators and the reference wrapper,
and what their Source methods give the screening and the audit: the C6 mutation operators (mutants.py), C7's naive
checks (naive_checks.py) and the deterministic auditor (audit.py)."""
