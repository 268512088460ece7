"""The reference verifier as screening runs it: in process (it is our own trusted code wrapping the
sources' checkers), with a version that names exactly the code and upstream release deciding."""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

from verifierbench.schema import Task

SOURCES_DIR = Path(__file__).resolve().parent.parent / "sources"


def decide(task: Task, candidate: dict) -> bool:
    """PASS? for one candidate; raises for a task whose source has no in-process reference."""
    from verifierbench.references import decide as reference_decide

    try:
        return reference_decide(task.reference, candidate)[0]
    except ValueError as e:
        if "unknown checker" in str(e):
            raise NotImplementedError(f"no reference verifier for {task.source.value} tasks yet") from None
        raise


@functools.lru_cache(maxsize=None)
def version(source: str) -> str:
    """sha256 over the reference code of a source (shared tool-call code included) and the upstream package version."""
    digest = hashlib.sha256()
    shared = {"bfcl": "toolcall", "acebench": "toolcall", "agentdojo": "interaction", "tau2": "interaction"}.get(source)
    folders = [SOURCES_DIR / shared, SOURCES_DIR / source] if shared else [SOURCES_DIR / source]
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):  # subfolders too: the code runner of code tasks lives in one
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    upstream = {"bfcl": "bfcl-eval", "agentdojo": "agentdojo", "tau2": "inspect-evals", "swebench": "swebench"}.get(source)
    if upstream:
        try:
            digest.update(f"{upstream}=={metadata.version(upstream)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{upstream} missing".encode())
    return f"{source}-ref:" + digest.hexdigest()[:16]
