"""Writes ready-made verifiers, one directory per task, for `judge --verifiers DIR`.

Kinds:
- `reference`: the task's reference verifier (its answer key in `reference.json`, our code and the
  source's checker imported from the installed packages; judge it with `--reference-libs`);
- `exact-match`: PASS only when the candidate is exactly the gold case's: the field its format names (a tool call's `raw`
  text; written to `exact_match.json`), else the whole candidate as canonical JSON (paper §2.3, C5);
- `always-accept`, `always-reject`: constant decisions (score BA_norm 0 by construction).
"""

from __future__ import annotations

import json
from importlib import util
from pathlib import Path

from verifierbench.core.errors import UserError
from verifierbench.executor.warm import PRELOAD_FILE
from verifierbench.core.protocol import ENTRYPOINT
from verifierbench.sources.references import WARM_UP, preload_modules
from verifierbench.core.schema import Category, Task
from verifierbench.sources import registry
from verifierbench.sources.formats.registry import format_of
from verifierbench.suite.store import Suite

KINDS = ("reference", "exact-match", "always-accept", "always-reject")

# Every template starts here: write the decision, read a JSON file beside verify.py, read the candidate.
_HEADER = '''import json, os, sys


def write(decision, reason=""):
    with open(sys.argv[2], "w") as out:
        json.dump({"decision": decision, "reason": reason[:300]}, out)


def beside(name):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name)) as f:
        return json.load(f)


with open(sys.argv[1]) as f:
    candidate = json.load(f)
'''

TEMPLATES = {
    "always-accept": _HEADER + 'write("PASS")\n',
    "always-reject": _HEADER + 'write("FAIL")\n',
    # What C5's exact-match baseline compares (Format.exact_match_text): the field the task's format names in
    # exact_match.json (a tool call's raw reply), else the whole candidate (a state task's record, a code task's diff),
    # as canonical JSON.
    "exact-match": _HEADER + '''

def text(value, field):
    if field is not None and isinstance(value, dict) and field in value:
        return json.dumps(value[field])
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


field = beside("exact_match.json")["field"]
write("PASS" if text(candidate, field) == text(beside("gold.json"), field) else "FAIL")
''',
    "reference": _HEADER + '''from verifierbench.sources.references import decide

accepted, reason = decide(beside("reference.json"), candidate)
write("PASS" if accepted else "FAIL", reason)
''',
}


def reference_preload(task: Task) -> str:
    """preload.json of a task's exported reference: what its warm sandbox loads once before forking the cases
    (executor.warm, trusted executors only): the modules, then the source's warm-up hook on this task's reference
    record (its data)."""
    return json.dumps({"modules": preload_modules(str(task.reference.get("checker"))), "warm_up": WARM_UP,
                       "argument": "reference.json"})


def export(suite: Suite, kind: str, out: Path, tasks: list[Task]) -> int:
    if kind not in KINDS:
        raise UserError(f"unknown verifier kind {kind!r} (choose from {', '.join(KINDS)})")
    for task in tasks:
        directory = out / task.id
        directory.mkdir(parents=True, exist_ok=True)
        (directory / ENTRYPOINT).write_text(TEMPLATES[kind], encoding="utf-8")
        if kind == "reference":
            if not task.reference:
                raise UserError(f"task {task.source.value}/{task.source_id} has no reference record")
            (directory / "reference.json").write_text(json.dumps(task.reference), encoding="utf-8")
            (directory / PRELOAD_FILE).write_text(reference_preload(task), encoding="utf-8")
        elif kind == "exact-match":
            gold = next((c for c in suite.cases_by_task.get(task.id, []) if c.category is Category.gold), None)
            if gold is None:
                raise UserError(f"task {task.source.value}/{task.source_id} has no gold case")
            (directory / "gold.json").write_text(json.dumps(gold.candidate), encoding="utf-8")
            field = format_of(task).exact_match_field
            (directory / "exact_match.json").write_text(json.dumps({"field": field}), encoding="utf-8")
    return len(tasks)


def reference_site_packages() -> tuple[str, ...]:
    """The site-packages holding the packages the sources' references import with their dependencies (each source's
    `reference_site_packages`: AgentDojo's), when installed."""
    found = [_location(package) for declared in registry.SOURCES.values() for package in declared.reference_site_packages()]
    return tuple(dict.fromkeys(str(path.parent) for path in found if path is not None))


def reference_libraries() -> tuple[tuple[str, str], ...]:
    """The packages an exported reference verifier imports: ours, and each source's `reference_packages` that is
    installed (BFCL's checker)."""
    libraries = [(str(Path(__file__).resolve().parents[1]), "verifierbench")]  # the package folder, above suite/
    for declared in registry.SOURCES.values():
        for package in declared.reference_packages():
            path = _location(package)
            if path is not None:
                libraries.append((str(path), package))
    return tuple(libraries)


def _location(package: str) -> Path | None:
    """Where an installed package's folder is; None when it is not installed (or not a package)."""
    spec = util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]).resolve()
