"""Collecting the delivered verifier from a sample's sandbox, and keeping it in the log.

The files are read once, when generation ends (`freeze_verifier`, the task's last solver), and stored with their
content hash in the sample store, so `inspect eval --no-score` releases the sandbox and keeps everything judging
needs: `inspect score` and `verifierbench judge --logs` judge from the log (docs/cluster.md). The score metadata
keeps them too. Scoring runs the copy.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from pathlib import Path, PurePosixPath

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError, SandboxEnvironment, sandbox, store

from verifierbench.harness.prompt import VERIFIER_DIR
from verifierbench.protocol import ENTRYPOINT

MAX_FILES = 64
MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 8 << 20
# {"files": {relative path: {"text": str} or {"base64": str}}, "skipped": [str], "sha256": hash or None}
STORE_KEY = "verifierbench:verifier_files"


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


def encode(data: bytes) -> dict[str, str]:
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def decode(entry: dict[str, str]) -> bytes:
    return entry["text"].encode("utf-8") if "text" in entry else base64.b64decode(entry["base64"])


def safe_relative(relative: object) -> bool:
    """A path that stays under the verifier directory: relative, no `..`, not empty."""
    if not isinstance(relative, str):
        return False
    path = PurePosixPath(relative)
    return bool(path.parts) and not path.is_absolute() and ".." not in path.parts and "\0" not in relative


def has_entrypoint(files: dict[str, dict[str, str]]) -> bool:
    return ENTRYPOINT in files


def materialize(files: dict[str, dict[str, str]], directory: Path) -> Path:
    """Writes the files under `directory` (a fresh one) and returns it."""
    directory.mkdir(parents=True)
    for relative, entry in files.items():
        if not safe_relative(relative):
            continue  # only a hand-edited log has these (collect never keeps them): never write outside `directory`
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(decode(entry))
    return directory



def frozen_record(files: dict[str, dict[str, str]], skipped: list[str]) -> dict:
    """What the store keeps of a delivered verifier: its files, what was skipped, and its content hash
    (None without an entrypoint: nothing to judge)."""
    return {"files": files, "skipped": skipped, "sha256": content_hash(files) if has_entrypoint(files) else None}


def content_hash(files: dict[str, dict[str, str]]) -> str:
    """The hash the executor gives the staged copy of these files (`FrozenVerifier.sha256`): the same
    walk, over relative paths and contents, so a hash in a log names the verifier any node runs."""
    digest = hashlib.sha256()
    with tempfile.TemporaryDirectory(prefix="verifierbench-hash-") as tmp:
        root = materialize(files, Path(tmp) / "verifier")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                path = Path(dirpath) / name
                if path.is_dir():
                    continue
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


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
