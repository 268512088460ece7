"""The generated blocks of the docs: the text between two marker lines that a script writes from the code or from a
build, so that a count or a name there cannot go stale. The generators (sources_table.py, harnesses_table.py,
task_options_table.py, evaluation_report.py, architecture_map.py) each make their block's body and leave the rest to
this module: replacing the block in a document, and writing the document or, with --check, only comparing.

A generator imports it as `python scripts/NAME.py` lets it (the script's folder comes first on sys.path); the tests
load a generator with that folder on sys.path too (tests/conftest.py `load_script`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Block:
    """A generated block: its marker lines and its name in messages (`sources table`)."""

    name: str
    begin: str
    end: str

    def replaced(self, text: str, body: str, where: str) -> str:
        """`text` with its block (markers included) made of `body`; ValueError naming `where` without both markers."""
        start, stop = text.find(self.begin), text.find(self.end)
        if start < 0 or stop < start:
            raise ValueError(f"{where}: no {self.name} markers ({self.begin!r} ... {self.end!r})")
        return text[:start] + "\n".join([self.begin, body, self.end]) + text[stop + len(self.end):]


def update(block: Block, documents: list[str], fresh: Callable[[str, str], str], check: bool, command: str) -> int:
    """Each document (relative to the repository) rewritten as `fresh(text, document)` returns it; with `check`, only
    compared. Returns 1, naming the stale documents, the block and `command` on stderr, when `check` finds one that
    differs."""
    stale = []
    for relative in documents:
        path = REPO_ROOT / relative
        text = path.read_text(encoding="utf-8")
        new = fresh(text, relative)
        if new == text:
            continue
        stale.append(relative)
        if not check:
            path.write_text(new, encoding="utf-8")
    if check and stale:
        print(f"{', '.join(stale)}: the {block.name} is out of date; run {command}", file=sys.stderr)
        return 1
    return 0
