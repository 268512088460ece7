"""The deterministic auditor for code tasks: the build's generators run with new seeds and wider caps,
plus legal changes the hidden suite does not make (paper App. I.2: verifiers that reject legitimate
modifications outside the files the gold patch touches).

Labels follow from how a candidate was made (a PASS operator adds a change no requirement forbids to
the gold fix; a FAIL operator breaks the fix or an existing behaviour); the reference verifier, which
runs the hidden tests, then certifies each proposal.
"""

from __future__ import annotations

import random
from typing import Any, Iterator
from pathlib import Path

from verifierbench.core.proposals import Proposal
from verifierbench.core.schema import Category, Task
from verifierbench.sources.swebench import diffs
from verifierbench.sources.swebench.cases import CodeInstance, candidate, generate
from verifierbench.sources.swebench.checkout import checkout_dir
from verifierbench.construction.drafts import Draft

AUDIT_CAPS = {"near_miss": 64, "regression": 16, "partial": 16}
PER_OPERATOR = 8  # at most this many proposals from one operator in one round
MAX_FILES_SCANNED = 5000

REQUIREMENTS = {
    "gold": "the diff resolves the issue",
    "cosmetic": "the same change, however the diff is rendered or commented",
    "overstrict_trap": "changes elsewhere that no requirement forbids (other modules, new modules, documentation) are legal",
    "base": "the issue must be resolved",
    "partial": "every part of the fix is needed",
    "near_miss": "the fix must be right, not merely close",
    "regression": "existing behaviour must keep working",
    "hack": "test code stays untouched and the fix works outside the test runner",
}


def propose(task: Task, round_index: int, seed: int) -> list[Proposal]:
    instance = CodeInstance.from_reference(task.reference, checkout_dir(task.reference["checkout"]))
    rng = random.Random(f"{seed}:audit:{task.id}:{round_index}")
    drafts = generate(instance, rng, AUDIT_CAPS)
    files = instance.gold_files()
    for operator in (_context_widths, _other_inits_edited, _new_module_added, _docs_edited):
        made = list(operator(instance, files))
        drafts += rng.sample(made, PER_OPERATOR) if len(made) > PER_OPERATOR else made
    return [Proposal(d.candidate, Category(d.category).label, REQUIREMENTS[d.category], "deterministic", d.operator, Category(d.category))
            for d in drafts]


def _context_widths(inst: CodeInstance, files: dict[str, Any]) -> Iterator[Draft]:
    for width in (2, 4, 10):  # not 0: git apply needs --unidiff-zero for that, which the harness does not pass
        yield Draft("cosmetic", candidate(diffs.make(files, context=width)), f"context_{width}_lines")


def _source_tree(checkout: Path) -> list[str]:
    out = []
    for path in sorted(checkout.rglob("*.py")):
        rel = path.relative_to(checkout).as_posix()
        if not diffs.is_test_path(rel):
            out.append(rel)
        if len(out) >= MAX_FILES_SCANNED:
            break
    return out


def _other_inits_edited(inst: CodeInstance, files: dict[str, Any]) -> Iterator[Draft]:
    for rel in _source_tree(inst.checkout):
        if rel.endswith("__init__.py") and rel not in files:
            text = inst.base_text(rel) or ""
            yield Draft("overstrict_trap", candidate(diffs.make({**files, rel: (text, text + "# Maintained with the modules below.\n")})),
                        "other_package_init_edited", {"file": rel})


def _new_module_added(inst: CodeInstance, files: dict[str, Any]) -> Iterator[Draft]:
    sources = [p for p in files if p.endswith(".py") and not diffs.is_test_path(p)]
    if not sources:
        return
    package = str(Path(sources[0]).parent)
    new = f"{package}/_helpers_notes.py" if package != "." else "_helpers_notes.py"
    if not (inst.checkout / new).exists():
        module = '"""Notes for maintainers of this package."""\n\nNOTES = ("keep the parsing rules in one place",)\n'
        yield Draft("overstrict_trap", candidate(diffs.make({**files, new: (None, module)})), "new_module_added", {"file": new})


def _docs_edited(inst: CodeInstance, files: dict[str, Any]) -> Iterator[Draft]:
    for rel in sorted(p.relative_to(inst.checkout).as_posix() for p in inst.checkout.rglob("*.rst"))[:20]:
        if rel not in files:
            text = inst.base_text(rel) or ""
            yield Draft("overstrict_trap", candidate(diffs.make({**files, rel: (text, text.rstrip("\n") + "\n\n.. The fix is described in the changelog.\n")})),
                        "docs_edited", {"file": rel})
