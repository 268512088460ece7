"""Every candidate format: the built-in ones (imported here, which registers them) and any an out-of-tree source
module registers (`register_format`). The rest of the harness asks here for the format of a task or a sample and
reads what differs between formats from it, never from a table keyed by a format's or a task type's name."""

from __future__ import annotations

from typing import Any, Protocol

from verifierbench.sources.formats.base import FORMATS, Format
from verifierbench.sources.formats.code import CODE
from verifierbench.sources.formats.diff import DIFF
from verifierbench.sources.formats.interaction_record import INTERACTION_RECORD
from verifierbench.sources.formats.tool_calls import TOOL_CALLS

BUILT_IN = (TOOL_CALLS, INTERACTION_RECORD, CODE, DIFF)
# The task types of the built-in formats, in the order of first appearance (the `-T type=` choices).
TASK_TYPES = tuple(dict.fromkeys(f.task_type for f in BUILT_IN))
# The public-environment keys of a sample's metadata (harness/dataset.py writes them).
SAMPLE_FORMAT, SAMPLE_PUBLIC = "candidate_format", "public_environment"


class Task(Protocol):
    """What is read of a suite task (schema.Task): its candidate format, an enum whose value is a format's name."""

    @property
    def candidate_format(self) -> Any: ...


def format_named(name: str) -> Format:
    """The format of that name.

    Args:
        name: a `CandidateFormat` value (a task's `candidate_format`, a sample's metadata).

    Returns:
        The registered format.

    Raises:
        KeyError: no format has that name.
    """
    try:
        return FORMATS[name]
    except KeyError:
        raise KeyError(f"no candidate format {name!r} (known: {', '.join(FORMATS)})") from None


def format_of(task: Task) -> Format:
    """The format of a suite task.

    Args:
        task: a suite task.

    Returns:
        Its registered format.

    Raises:
        KeyError: the task's candidate format is not registered.
    """
    return format_named(task.candidate_format.value)


def sample_public_format(metadata: dict[str, Any]) -> Format | None:
    """The format of a sample whose task has a public environment, by the metadata harness/dataset.py writes.

    Args:
        metadata: the sample's metadata.

    Returns:
        The format (it has `public_run`); None when the sample's task has no public environment, or the sample
        names none (made outside a suite).

    Raises:
        KeyError: the metadata names an unregistered format.
    """
    if not metadata.get(SAMPLE_PUBLIC):
        return None
    found = format_named(str(metadata.get(SAMPLE_FORMAT)))
    return found if found.public_run is not None else None
