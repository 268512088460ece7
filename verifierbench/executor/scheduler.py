"""How a batch of jobs is spread over an executor's slots: cold (a sandbox per case) or warm sandboxes, and which
cases each warm sandbox runs. Policy only; executor.runner runs what it decides."""

from __future__ import annotations

import os

from verifierbench.core.errors import UserError
from verifierbench.executor.jobs import Job

WARM_MIN_CASES = 8  # a warm sandbox's fewest cases when a verifier's are split over several
COLD_ENV = "VERIFIERBENCH_COLD"  # set to 1: judging takes a sandbox per case (today's path) instead of warm sandboxes
SHARED_ENV = "VERIFIERBENCH_WARM_SHARED"  # set to 0: a warm sandbox per generated verifier (the path before; for A/B runs)
GENERATED_FAMILY: tuple[str, ...] = ()  # the warm family of every generated verifier (runner._warm_family): they share sandboxes


def warm_chunks(groups: list[list[Job]], slots: int) -> list[list[Job]]:
    """The batch's warm sandboxes: the cases each runs, from the cases of each verifier (and inputs).

    A sandbox's start costs as much as several cases, so a verifier's cases are split over several
    sandboxes (at most `slots`, at least WARM_MIN_CASES cases each) only when they are more than a
    slot's share of the batch: a batch of few verifiers with many cases each.

    Args:
        groups: the cases of one frozen verifier with the same inputs, per group.
        slots: the executor's slots.

    Returns:
        The cases of each warm sandbox.
    """
    share = max(WARM_MIN_CASES, -(-sum(map(len, groups)) // slots))
    chunks: list[list[Job]] = []
    for group in groups:
        count = max(1, min(slots, -(-len(group) // share), len(group) // WARM_MIN_CASES))
        if len({job.verifier for job in group}) > 1:  # a family (sorted by verifier): contiguous runs
            chunks += [group[len(group) * i // count:len(group) * (i + 1) // count] for i in range(count)]
        else:
            chunks += [group[i::count] for i in range(count)]
    return chunks


def _switch(name: str, default: bool, meaning: dict[bool, str]) -> bool:
    """A yes/no environment variable: `default` when unset or empty, else 1/true/yes or 0/false/no.

    Args:
        name: the variable.
        default: its value when unset or empty.
        meaning: what yes and no mean, for the error.

    Raises:
        UserError: the variable holds something else than a yes or a no.
    """
    value = os.environ.get(name, "").strip().lower()
    if value == "":
        return default
    if value in ("1", "true", "yes"):
        return True
    if value in ("0", "false", "no"):
        return False
    choices = " or ".join(f"{int(flag)} ({meaning[flag]}{', the default' if flag == default else ''})"
                          for flag in (True, False))
    raise UserError(f"{name}={value!r}: expected {choices}")


def cold_from_environment() -> bool:
    """Whether VERIFIERBENCH_COLD asks for today's path (a sandbox per case); one-line error on a bad value."""
    return _switch(COLD_ENV, False, {True: "a sandbox per case", False: "warm sandboxes"})


def shared_from_environment() -> bool:
    """Whether generated verifiers share warm sandboxes (SHARED_ENV: yes unless 0); one-line error on a bad value."""
    return _switch(SHARED_ENV, True, {True: "shared", False: "a warm sandbox per verifier"})
