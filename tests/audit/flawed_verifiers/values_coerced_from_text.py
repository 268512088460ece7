"""Values coerced from text (issue 55, accepting violations): a string argument is converted to the expected value's
type before comparing (`float("5") == 5`, `"true" == str(True).lower()`), so "5" passes where the schema asks for
an integer."""

from _common import accepts_rewritten, calls_of


def _coerces(want, got):
    if not isinstance(got, str):
        return False
    if isinstance(want, bool):
        return got.strip().lower() == str(want).lower()
    if isinstance(want, (int, float)):
        try:
            return float(got) == want
        except ValueError:
            return False
    return False


def apply(reference, candidate, accepted):
    calls = calls_of(candidate)
    if accepted or not calls:
        return accepted
    return accepts_rewritten(reference, calls, _coerces)
