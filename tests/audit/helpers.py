"""Shared by the audit tests: verifier directories as log-style file maps, and executors to run them."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

from verifierbench.suite.export import TEMPLATES, reference_libraries, reference_preload
from verifierbench.executor import Executor, Limits
from verifierbench.executor.warm import PRELOAD_FILE
from verifierbench.core.schema import Task
from verifierbench.sources.toolcall.base import spec_for_reference
from verifierbench.suite.store import Suite, load_suite
from verifierbench.core import verifier_files

FLAWED_DIR = Path(__file__).resolve().parent / "flawed_verifiers"

FLAWED_TEMPLATE = TEMPLATES["reference"].replace(
    'accepted, reason = decide(beside("reference.json"), candidate)\n',
    'import flaw\n\naccepted, reason = decide(beside("reference.json"), candidate)\naccepted = flaw.apply(beside("reference.json"), candidate, accepted)\n',
)


def files_of(sources: dict[str, str]) -> dict[str, dict[str, str]]:
    return {path: verifier_files.encode(text.encode()) for path, text in sources.items()}


def reference_files(task: Task) -> dict[str, dict[str, str]]:
    return files_of({"verify.py": TEMPLATES["reference"], "reference.json": json.dumps(task.reference), PRELOAD_FILE: reference_preload(task)})


def flawed_files(task: Task, flaw: str) -> dict[str, dict[str, str]]:
    return files_of({"verify.py": FLAWED_TEMPLATE, "reference.json": json.dumps(task.reference),
                     "flaw.py": (FLAWED_DIR / f"{flaw}.py").read_text(), "_common.py": (FLAWED_DIR / "_common.py").read_text(),
                     "_state_common.py": (FLAWED_DIR / "_state_common.py").read_text(), PRELOAD_FILE: reference_preload(task)})


def trusted_executor(warm: bool | None = None, preload: bool = True, **options) -> Executor:
    """Sandboxed like any verifier run, with our reference code mounted: only for verifiers written by tests.
    `warm`: as Executor's (False: a sandbox per run); `preload`: the warm sandboxes import the modules preload.json
    names once (trusted_preload); `options`: other Executor arguments."""
    return Executor(Limits(), isolation="auto", libraries=reference_libraries(), warm=warm, trusted_preload=preload,
                    **options)


def load_flaw(name: str) -> ModuleType:
    """A flawed verifier's `flaw` module, imported in the test process (its `apply` on the reference decision)."""
    if str(FLAWED_DIR) not in sys.path:
        sys.path.insert(0, str(FLAWED_DIR))
    return importlib.import_module(name)


def scripted(*replies: str) -> Model:
    """Inspect's mock model answering with these replies in turn (the LLM auditor's and task analyst's tests)."""
    outputs = [ModelOutput.from_content("mockllm/model", r) for r in replies]
    for output in outputs:  # with usage set, Inspect downloads no tokenizer to count it (this machine is offline)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


def single_call_task(suite_dir: Path) -> tuple[Suite, Task, list]:
    """The suite, its first task (by id) whose gold is a single call, and that task's hidden cases."""
    suite = load_suite(suite_dir)
    task = next(t for t in sorted(suite.tasks.values(), key=lambda t: t.id) if len(spec_for_reference(t.reference).gold_calls()) == 1)
    return suite, task, suite.cases_by_task[task.id]
