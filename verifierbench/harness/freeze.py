"""Collecting the delivered verifier from a sample's sandbox, and keeping it in the log.

The files are read once, when generation ends (`freeze_verifier`, the task's last solver), and stored with their
content hash in the sample store, so `inspect eval --no-score` releases the sandbox and keeps everything judging
needs: `inspect score` and `verifierbench judge --logs` judge from the log (docs/cluster.md). The score metadata
keeps them too. Scoring runs the copy. The encoding, limits and hash are core/verifier_files.py's (no Inspect there).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError, SandboxEnvironment, sandbox, store

from verifierbench.harness.prompt import VERIFIER_DIR
from verifierbench.core.verifier_files import MAX_FILE_BYTES, MAX_FILES, MAX_TOTAL_BYTES, STORE_KEY, encode, frozen_record


async def collect(sandbox: SandboxEnvironment) -> tuple[dict[str, dict[str, str]], list[str]]:
    """The regular files under the verifier directory (links are never followed); and what was skipped.

    The listing is NUL-separated: a file name may hold a newline, and split on newlines a name like
    "a\\n0 pipe" would make us read another path (a FIFO). read_file reads regular files only."""
    listing = await sandbox.exec(["find", VERIFIER_DIR, "-type", "f", "-printf", "%s %P\\0"], timeout=60)
    files: dict[str, dict[str, str]] = {}
    skipped: list[str] = []
    total = 0
    for line in sorted(filter(None, listing.stdout.split("\0"))) if listing.success else []:
        size_text, _, relative = line.partition(" ")
        path = PurePosixPath(relative)
        if not relative or path.is_absolute() or ".." in path.parts or "__pycache__" in path.parts:
            continue
        size = int(size_text) if size_text.isdigit() else MAX_FILE_BYTES + 1
        if len(files) >= MAX_FILES or size > MAX_FILE_BYTES or total + size > MAX_TOTAL_BYTES:
            skipped.append(f"{relative} ({size} bytes)")
            continue
        try:
            data = await sandbox.read_file(f"{VERIFIER_DIR}/{relative}", text=False)
        except (OSError, UnicodeError) as exc:
            skipped.append(f"{relative} ({exc})")
            continue
        total += len(data)
        files[relative] = encode(data)
    return files, skipped


@solver
def freeze_verifier(harness: Solver) -> Solver:
    """Runs the harness, then reads the verifier directory once (links never followed) and stores its files,
    the skipped entries and the hash; also when a message or token limit ends the harness (Inspect raises
    those through the solver). A time limit cancels the sample: the scorer then reads the sandbox as before.

    Args:
        harness: the generation harness's solver.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        try:
            state = await harness(state, generate)
        except LimitExceededError:
            await _freeze()
            raise
        await _freeze()
        return state

    return solve


async def _freeze() -> None:
    if store().get(STORE_KEY) is None:
        files, skipped = await collect(sandbox())
        store().set(STORE_KEY, frozen_record(files, skipped))
