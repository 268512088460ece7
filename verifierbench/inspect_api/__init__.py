"""What this package shares with Inspect beyond its public API: user errors Inspect prints in one line, and every
name taken from a private inspect_ai module (pinned by tests/test_inspect_private.py)."""
