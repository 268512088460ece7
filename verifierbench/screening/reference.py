"""The reference verifier as screening runs it: in process (it is our own trusted code wrapping the
sources' checkers), with a version that names exactly the code and upstream release deciding."""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

from verifierbench.schema import Task, TaskType

SOURCES_DIR = Path(__file__).resolve().parent.parent / "sources"


def decide(task: Task, candidate: dict) -> bool:
    """PASS? for one candidate; raises for a task type without an in-process reference."""
    if task.type is TaskType.tool_call:
        from verifierbench.sources.toolcall.reference import decide as tool_call_decide

        return tool_call_decide(task.reference, candidate)[0]
    raise NotImplementedError(f"no reference verifier for {task.type.value} tasks yet")


@functools.lru_cache(maxsize=None)
def version(source: str) -> str:
    """sha256 over the reference code of a source (shared tool-call code included) and the upstream package version."""
    digest = hashlib.sha256()
    folders = [SOURCES_DIR / "toolcall", SOURCES_DIR / source] if source in ("bfcl", "acebench") else [SOURCES_DIR / source]
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    upstream = {"bfcl": "bfcl-eval"}.get(source)
    if upstream:
        try:
            digest.update(f"{upstream}=={metadata.version(upstream)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{upstream} missing".encode())
    return f"{source}-ref:" + digest.hexdigest()[:16]
