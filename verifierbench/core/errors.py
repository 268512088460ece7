"""Errors meant for the user: the CLI prints them as one line and exits with status 2.

Standard library only: exported reference verifiers import this module inside the sandbox (through
`verifierbench.sources.references`), where neither Inspect nor rich exists. Errors for Inspect are in `inspect_api/user_errors.py`."""


class UserError(Exception):
    """Bad input from the user (a file, an option, a path). The message names the problem."""


class SuiteIntegrityError(UserError):
    """A suite file is corrupt or its content does not match its recorded hashes."""


class IsolationUnavailable(UserError):
    """Untrusted code was about to run but no isolation is available and the user did not opt in."""
