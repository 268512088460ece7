"""One Docker generation sandbox per SWE-bench instance (`-T sandbox=docker`): the compose file for the instance's
published environment image (SWE-bench's own naming), rendered from the template the sandbox package ships
(verifierbench/sandboxes/swebench/compose.yaml.j2, found as package data).

It lives here, not in verifierbench/sandboxes/: what it renders is SWE-bench's (its image names, the repository at
/testbed), the harness asks the task's source for it (`Source.docker_compose`), and a source may not import the
sandbox package, which sits above the sources (its vgb provider starts a task's public environment through
public_env); the template and vgb_env are found as package data, by path."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from importlib.resources import files
from pathlib import Path

from jinja2 import Template

from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError
from verifierbench.core.schema import Task

TEMPLATE = Path(str(files("verifierbench") / "sandboxes" / "swebench" / "compose.yaml.j2"))
VGB_ENV = Path(str(files("verifierbench") / "sandboxes" / "in_sandbox_lib" / "vgb_env"))


def image_for(instance_id: str) -> str:
    from swebench.task.checks import expected_image

    image: str = expected_image(instance_id)
    return image


def compose_file(task: Task, directory: Path | None = None) -> Path:
    """The instance's compose file, rendered into `directory` (default: the temporary directory).

    Args:
      task: A code task; its `source_id` is the SWE-bench instance id.
      directory: Where the compose file and the copy of `vgb_env` it mounts go (default: this user's own
        directory in the temporary directory, see `private_directory`).
    """
    if directory is None:
        directory = private_directory()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{task.source_id}.compose.yaml"
    text = Template(TEMPLATE.read_text()).render(image=image_for(task.source_id), vgb_env=str(vgb_env_copy(directory)))
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def private_directory() -> Path:
    """`verifierbench-compose-<uid>` in the temporary directory, made private (0700) to this user.

    A name shared by every user would let another local user create it first and put their own compose file or
    `vgb_env` copy where the container mounts it from, so the directory must be a real directory owned by this
    user that no one else can write to; anything else is refused, not repaired.
    """
    directory = Path(tempfile.gettempdir()) / f"verifierbench-compose-{os.getuid()}"
    try:
        directory.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise UserError(f"{directory} is not a directory of this user's that only it can write to: remove it "
                        "(docker compose files of code tasks are rendered there)")
    try:  # and the whole way to it (safe_fs.trusted_store)
        safe_fs.trusted_store(directory, create=False)
    except safe_fs.UntrustedStore as exc:
        raise UserError(f"docker compose files of code tasks: {exc}") from None
    return directory


def vgb_env_copy(directory: Path) -> Path:
    """A copy of `vgb_env` beside the compose file, named by its content, for the container to mount read-only.

    The installed package's own path is not mounted: an engine may not see it (the engine of
    scripts/docker-engine.sh runs in its own root file system and sees only the temporary directories), and
    the container then gets an empty directory. The copy is made in staging and renamed, so a concurrent render
    never mounts half a copy.

    Args:
      directory: The directory the compose file is rendered into.
    """
    sources = sorted(p for p in VGB_ENV.rglob("*.py") if p.is_file())
    digest = hashlib.sha256()
    for source in sources:
        digest.update(f"{source.relative_to(VGB_ENV)}\0".encode() + source.read_bytes() + b"\0")
    target = directory / f"vgb_env-{digest.hexdigest()[:16]}"
    if target.is_dir():
        return target
    staging = Path(tempfile.mkdtemp(prefix=".vgb_env-", dir=directory))
    for source in sources:
        (staging / source.relative_to(VGB_ENV)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, staging / source.relative_to(VGB_ENV))
    staging.chmod(0o755)
    try:
        os.rename(staging, target)
    except OSError:  # another render got there first
        shutil.rmtree(staging, ignore_errors=True)
    return target
