"""Image builds leave nothing behind when they fail: neither scripts/harness-clis.sh (the classic builder, whose
failed step's container and earlier steps' images would stay, unlabelled) nor the compose build of the default
sandbox. Needs the Docker engine (see test_docker.py: skips without one).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from tests.conftest import REPO_ROOT
from tests.harness.test_docker import COMPOSE

BASE = os.environ.get("VERIFIERBENCH_BASE_IMAGE", "verifierbench-base:bookworm")


def _docker(*arguments: str, check: bool = True) -> str:
    return subprocess.run(["docker", *arguments], capture_output=True, text=True, check=check, timeout=300).stdout


@pytest.fixture
def failing_base(docker_engine):
    """A base image on which the sandbox Dockerfile fails after its first steps: uid 1000 is taken, so its
    `useradd --uid 1000` step fails. Made with run and commit (no build, so nothing of its own is left over)."""
    name = f"vgb-test-failing-base-{uuid.uuid4().hex[:8]}"
    _docker("run", "--name", name, "--network", "none", BASE, "useradd", "--uid", "1000", "taken")
    _docker("commit", name, f"{name}:latest")
    _docker("rm", name)
    image_id = _docker("image", "inspect", "--format", "{{.Id}}", name).strip()
    yield name, image_id
    _docker("rmi", "--force", name, check=False)


def _built_from(image_id: str) -> tuple[set[str], set[str]]:
    """The images descending from image_id (through the classic builder's parent links) and the containers on them."""
    images = _docker("images", "-a", "-q", "--no-trunc").split()
    links = _docker("image", "inspect", "--format", "{{.Id}} {{.Parent}}", *images).splitlines() if images else []
    parents = {fields[0]: fields[1] for fields in map(str.split, links) if len(fields) == 2}
    descendants: set[str] = set()
    frontier = {image_id}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - descendants
        descendants |= frontier
    containers = set(_docker("ps", "-a", "-q", "--no-trunc", "--filter", f"ancestor={image_id}").split())
    return descendants, containers


@pytest.mark.timeout(600)
def test_a_failing_harness_image_build_leaves_no_image_or_container(failing_base, tmp_path):
    name, image_id = failing_base
    environment = {**os.environ, "VERIFIERBENCH_BASE_IMAGE": name, "INSPECT_PYTHON": sys.executable}
    build = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "harness-clis.sh"), "build"], capture_output=True,
                           text=True, timeout=540, env=environment)  # under the test's 600 s
    assert build.returncode != 0 and "image build failed" in build.stderr, build.stderr[-2000:]
    assert _built_from(image_id) == (set(), set())


@pytest.mark.timeout(600)
def test_a_failing_compose_build_of_the_sandbox_leaves_no_image_or_container(failing_base, tmp_path):
    name, image_id = failing_base
    environment = {**os.environ, "VERIFIERBENCH_BASE_IMAGE": name}
    # A project name of its own and an image name of its own: the shared sandbox image stays untouched.
    override = tmp_path / "image.yaml"
    override.write_text(f"services:\n  default:\n    image: {name}-sandbox:latest\n")
    build = subprocess.run(["docker", "compose", "-p", name, "-f", str(COMPOSE), "-f", str(override), "build"],
                           capture_output=True, text=True, timeout=540, env=environment)  # under the test's 600 s
    assert build.returncode != 0 and "useradd" in build.stdout + build.stderr, build.stderr[-2000:]
    assert _built_from(image_id) == (set(), set())
    assert not _docker("images", "-q", f"{name}-sandbox").strip()
