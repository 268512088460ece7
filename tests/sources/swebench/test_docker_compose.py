"""`-T sandbox=docker`: each code task gets its own compose file for SWE-bench's published environment
image of the instance (no network, vgb_env mounted, the repository seen as /repo)."""

from __future__ import annotations

from pathlib import Path

from verifierbench.sandboxes.docker_provider import SANDBOX_TYPE as DOCKER_SANDBOX
from verifierbench.task import verifierbench


def test_code_tasks_get_their_instance_image_under_docker(code_suite):
    task = verifierbench(suite=str(code_suite), sandbox="docker")
    (sample,) = task.dataset
    kind, compose = sample.sandbox.type, sample.sandbox.config
    assert kind == DOCKER_SANDBOX
    text = open(compose).read()
    assert "image: swebench/sweb.eval.x86_64.vgb-fixtures_1776_httpdate-1:latest" in text
    assert "network_mode: none" in text and "/opt/vgb/lib/vgb_env:ro" in text and "ln -sfn /testbed /repo" in text


def test_vgb_env_is_mounted_from_a_copy_beside_the_compose_file(code_suite, tmp_path):
    """Not from the installed package: an engine in its own root file system (scripts/docker-engine.sh) sees only
    the temporary directories, and mounted an empty directory, so verifiers had no vgb_env.run_public."""
    import yaml

    from verifierbench.sources.swebench.docker_compose import VGB_ENV, compose_file
    from verifierbench.suite.store import load_suite

    (task,) = load_suite(code_suite).tasks.values()
    rendered = yaml.safe_load(compose_file(task, tmp_path).read_text())
    (mount,) = [v for v in rendered["services"]["default"]["volumes"] if v.endswith(":/opt/vgb/lib/vgb_env:ro")]
    copy = Path(mount.split(":")[0])
    assert copy.parent == tmp_path and (copy / "__init__.py").read_bytes() == (VGB_ENV / "__init__.py").read_bytes()
    assert compose_file(task, tmp_path) and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [copy.name, f"{task.source_id}.compose.yaml"])  # rendered again: the same copy, nothing left in staging


def test_the_default_sandbox_is_unchanged(code_suite):
    (sample,) = verifierbench(suite=str(code_suite)).dataset
    assert sample.sandbox is None  # the task's vgb sandbox, which mounts the checkout at /repo itself


def test_compose_files_go_to_a_private_directory_of_the_user(code_suite, tmp_path, monkeypatch):
    """Not a fixed shared name: another local user could create it first and plant the vgb_env copy the
    container mounts. A directory that is not this user's own, or that others can write to, is refused."""
    import os
    import tempfile

    import pytest

    from verifierbench.core.errors import UserError
    from verifierbench.sources.swebench.docker_compose import compose_file
    from verifierbench.suite.store import load_suite

    (task,) = load_suite(code_suite).tasks.values()
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    path = compose_file(task)
    private = tmp_path / f"verifierbench-compose-{os.getuid()}"
    assert path.parent == private and (os.stat(private).st_mode & 0o777) == 0o700

    for planted in ("link", "open"):
        monkeypatch.setattr(tempfile, "gettempdir", lambda planted=planted: str(tmp_path / planted))
        (tmp_path / planted).mkdir()
        target = tmp_path / planted / f"verifierbench-compose-{os.getuid()}"
        if planted == "link":
            (tmp_path / "elsewhere").mkdir()
            target.symlink_to(tmp_path / "elsewhere")
        else:
            target.mkdir()
            target.chmod(0o777)
        with pytest.raises(UserError, match="only it can write to"):
            compose_file(task)
