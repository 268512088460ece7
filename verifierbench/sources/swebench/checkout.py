"""Repository checkouts at an instance's base commit, content-addressed.

A task names its checkout by digest (sha256 over relative paths and contents). The build writes the
files to `<suite>/checkouts/<digest>/`, and loading a suite adds its `checkouts/` to the places
searched: `$VERIFIERBENCH_CHECKOUTS`, then every loaded suite's, then the default store. Sandboxes run
as other uids, so a store must be readable and traversable by them (a home directory is not).
Checkouts never carry `.git`: sandboxes see files, not history.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError

STORE_ENV = "VERIFIERBENCH_CHECKOUTS"
DEFAULT_STORE = "/var/tmp/verifierbench/checkouts"


_searched: list[Path] = []


def store_root() -> Path:
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


def add_search_dir(directory: Path) -> None:
    """Called when a suite is loaded: its checkouts become findable by digest."""
    directory = directory.resolve()
    if directory not in _searched:
        _searched.append(directory)


def tree_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            content = b"link:" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            digest.update(str(path.relative_to(directory)).encode() + b"\0" + content + b"\0")
    return digest.hexdigest()[:32]


def materialize(repo: Path, commit: str, root: Path | None = None) -> str:
    """Exports `commit` of the git repository `repo` into `root` (default: the store); returns its digest."""
    root = _trusted(root or store_root())
    _require_searchable(root)
    add_search_dir(root)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
    try:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit], capture_output=True)
        if archive.returncode:
            # An IncompleteTree: the build excludes the instance (T) and goes on, as for a damaged object found earlier.
            raise IncompleteTree(f"{repo.name}: cannot export commit {commit[:12]}: {archive.stderr.decode(errors='replace').strip()[-300:]}")
        subprocess.run(["tar", "-x", "-C", str(staging)], input=archive.stdout, check=True)
        for dirpath, _, filenames in os.walk(staging):
            os.chmod(dirpath, 0o755)
            for name in filenames:
                path = Path(dirpath) / name
                if not path.is_symlink():
                    os.chmod(path, 0o755 if os.access(path, os.X_OK) else 0o644)
        digest = tree_digest(staging)
        target = root / digest
        if _entry(root, digest) is not None and tree_digest(target) == digest:
            shutil.rmtree(staging)
        else:  # absent, or not what its name says (a damaged or planted tree): replaced
            shutil.rmtree(target, ignore_errors=True)
            os.rename(staging, target)
        return digest
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


class IncompleteTree(UserError):
    """The clone cannot give the instance's whole tree: the instance is unavailable, never built partially."""


def require_complete(repo: Path, commit: str) -> None:
    """Raises IncompleteTree when `commit` is absent, names a submodule (its content is another
    repository), or refers to an object the clone lacks."""
    git = ["git", "-C", str(repo)]
    if subprocess.run([*git, "rev-parse", "--git-dir"], capture_output=True).returncode:
        raise IncompleteTree(f"{repo.name} is not a readable git repository")
    found = subprocess.run([*git, "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True)
    if found.returncode:
        damage = _errors(found.stderr)
        if damage:
            raise IncompleteTree(f"{repo.name} is corrupt: base commit {commit[:12]} cannot be read ({damage[0][:200]})")
        raise IncompleteTree(f"base commit {commit[:12]} is not in {repo.name}")
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", "--full-tree", commit], capture_output=True)
    if listing.returncode:
        raise IncompleteTree(f"{repo.name}: cannot list the tree of {commit[:12]}: {listing.stderr.decode(errors='replace').strip()[:300]}")
    entries = [e.split(b"\t", 1) for e in listing.stdout.split(b"\0") if e]
    submodules = [path.decode(errors="replace") for meta, path in entries if meta.startswith(b"160000 ")]
    if submodules:
        raise IncompleteTree(f"the tree of {commit[:12]} has submodule {submodules[0]}, whose content is another repository")
    objects = b"\n".join(meta.split(b" ")[2] for meta, _ in entries) + b"\n"
    check = subprocess.run([*git, "cat-file", "--batch-check"], input=objects, capture_output=True)
    lacking = [line.split(b" ")[0].decode() for line in check.stdout.splitlines() if line.endswith(b" missing")]
    if lacking:
        paths = {meta.split(b" ")[2].decode(): path.decode(errors="replace") for meta, path in entries}
        example = paths.get(lacking[0], lacking[0])
        # git reports an unreadable object (a damaged file) as missing too, and says why on stderr.
        damage = _errors(check.stderr)
        if damage:
            raise IncompleteTree(f"{repo.name} is corrupt: {len(lacking)} objects of {commit[:12]}'s tree cannot be read, "
                                 f"e.g. {example} ({damage[0][:200]})")
        raise IncompleteTree(f"the clone {repo.name} lacks {len(lacking)} objects of {commit[:12]}'s tree, e.g. {example}")


def _errors(stderr: bytes) -> list[str]:
    """git's complaints about objects it found but could not read (a damaged file; "missing" says nothing else)."""
    return [line for line in stderr.decode(errors="replace").splitlines() if line.startswith("error:")]


def _trusted(root: Path, create: bool = True) -> Path:
    """The store at `root` once it is safe to trust (safe_fs.trusted_store), or UserError naming the path and owner."""
    try:
        return Path(safe_fs.trusted_store(root, create=create))
    except safe_fs.UntrustedStore as exc:
        raise UserError(f"checkouts directory: {exc}; set ${STORE_ENV} to a directory of yours") from None


def _entry(root: Path, digest: str) -> os.stat_result | None:
    """The checkout `digest`'s lstat in `root` when it is a directory we made; UserError for one someone else planted."""
    try:
        info = safe_fs.trusted_entry(root, digest)
    except safe_fs.UntrustedStore as exc:
        raise UserError(str(exc)) from None
    return info if info is not None and stat.S_ISDIR(info.st_mode) else None


def checkout_dir(digest: str) -> Path:
    """The checkout named `digest`: from the store, which must be this user's and writable by no one else, as must the
    entry (so it is the tree `materialize` checked against its digest: only we can have written it), or from a loaded
    suite's directory. Its tree is not hashed again here: a django checkout takes seconds, on every case's run."""
    if len(digest) != 32 or any(c not in "0123456789abcdef" for c in digest):
        raise UserError(f"repository checkout {digest!r} is not a content digest")
    stores = [Path(os.environ[STORE_ENV])] if os.environ.get(STORE_ENV) else []
    places = stores + _searched + [Path(DEFAULT_STORE)]  # the module's order: the variable, loaded suites, the default
    for place in places:
        if not place.is_dir():
            continue
        if place in stores or place == Path(DEFAULT_STORE):
            place = _trusted(place, create=False)
            if _entry(place, digest) is None:
                continue
        elif not (place / digest).is_dir() or (place / digest).is_symlink():
            continue
        return place / digest
    raise UserError(f"repository checkout {digest} not found (looked in {', '.join(map(str, places))}); load the suite "
                    f"that holds it, set ${STORE_ENV}, or rebuild the code tasks with `verifierbench build --source swebench ...`")


def _require_searchable(root: Path) -> None:
    """Sandbox uids must reach the checkouts: every ancestor needs o+x (pytest's tmp dirs, /root do not)."""
    if os.geteuid() != 0:
        return
    for part in [root.resolve(), *root.resolve().parents]:
        if not os.stat(part).st_mode & 0o001:
            raise UserError(f"checkouts directory {root}: {part} is not searchable by other users, so sandboxes cannot "
                            f"read the checkouts; build the suite elsewhere or set ${STORE_ENV}")
