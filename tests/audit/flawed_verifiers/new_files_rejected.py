"""Unjustified restriction on code tasks (paper App. I.2): a diff that adds a file is rejected, as when a
verifier allows only edits to existing modules. Nothing in an issue forbids a new helper module."""


def apply(reference, candidate, accepted):
    diff = candidate.get("diff", "") if isinstance(candidate, dict) else ""
    return accepted and "\n--- /dev/null\n" not in "\n" + diff
