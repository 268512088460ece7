"""Repository checkouts at an instance's base commit, in a content-addressed store.

A task names its checkout by digest (sha256 over relative paths and contents); the files live in
`$VERIFIERBENCH_CHECKOUTS/<digest>/` (default /var/tmp/verifierbench/checkouts: sandboxes run as
other uids, so the store must be readable and traversable by them, unlike a home directory).
Checkouts never carry `.git`: sandboxes see files, not history.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from verifierbench.errors import UserError

STORE_ENV = "VERIFIERBENCH_CHECKOUTS"
DEFAULT_STORE = "/var/tmp/verifierbench/checkouts"


def store_root() -> Path:
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


def tree_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            content = b"link:" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            digest.update(str(path.relative_to(directory)).encode() + b"\0" + content + b"\0")
    return digest.hexdigest()[:32]


def materialize(repo: Path, commit: str) -> str:
    """Exports `commit` of the git repository `repo` into the store; returns the checkout's digest."""
    root = store_root()
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
    try:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit], capture_output=True)
        if archive.returncode:
            raise UserError(f"{repo}: cannot export commit {commit}: {archive.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", str(staging)], input=archive.stdout, check=True)
        for dirpath, dirnames, filenames in os.walk(staging):
            os.chmod(dirpath, 0o755)
            for name in filenames:
                path = Path(dirpath) / name
                if not path.is_symlink():
                    os.chmod(path, 0o755 if os.access(path, os.X_OK) else 0o644)
        digest = tree_digest(staging)
        target = root / digest
        if target.is_dir():
            shutil.rmtree(staging)
        else:
            os.rename(staging, target)
        return digest
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def checkout_dir(digest: str) -> Path:
    path = store_root() / digest
    if not path.is_dir():
        raise UserError(f"repository checkout {digest} is not in {store_root()} (set ${STORE_ENV} to where the suite "
                        f"was built, or rebuild the code tasks with `verifierbench build --source swebench ...`)")
    return path
