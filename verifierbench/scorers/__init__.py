"""Inspect scorers: the hidden-case scorer (and, later, TestJack-style auditing)."""
