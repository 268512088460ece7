"""User errors raised where Inspect calls us (`-T` options, `--model verifierbench/...`): `inspect eval` prints them
in one line, without a traceback. Kept apart from `errors`, which must import nothing outside the standard library."""

from verifierbench.inspect_api.private import PrerequisiteError  # Inspect's "print the message, no traceback" error (not public API)
from rich.markup import escape

from verifierbench.core.errors import UserError


class InspectUserError(PrerequisiteError, UserError):
    """A user error raised where Inspect calls us (a `-T` option, a `--model verifierbench/...` name): `inspect eval`
    prints its one line without a traceback and exits with status 1."""

    def __init__(self, message: str) -> None:
        # Escaped: Inspect prints the message as rich markup, which would eat '[...]'.
        super().__init__(escape(f"verifierbench: {message}"))
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.args[0])


def for_inspect(error: UserError) -> InspectUserError:
    """The same message as an error `inspect eval` prints in one line."""
    return error if isinstance(error, InspectUserError) else InspectUserError(str(error))
