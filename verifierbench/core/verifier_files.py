"""A delivered verifier's files as the log keeps them: encoded per file, with limits and a content hash, and written
back out for judging. Pure data: judging (the local executor, Ray nodes, the audit, the leaderboard) reads logs with
this module and nothing of Inspect; reading the files out of a sandbox is harness/freeze.py's.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from pathlib import Path, PurePosixPath

from verifierbench.core.protocol import ENTRYPOINT

MAX_FILES = 64
MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 8 << 20
# {"files": {relative path: {"text": str} or {"base64": str}}, "skipped": [str], "sha256": hash or None}
STORE_KEY = "verifierbench:verifier_files"


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
