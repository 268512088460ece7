"""The Docker tests' shared set-up, made once per test run on the one worker that runs them all
(tests/conftest.py groups them): the engine's variables, the fixture instance's image, the CLI harness image and
its traced variant."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, skip_unless_required

ENGINE_SCRIPT = REPO_ROOT / "scripts" / "docker-engine.sh"


def _engine_environment() -> dict[str, str]:
    """The current environment, plus the engine of scripts/docker-engine.sh when DOCKER_HOST is not set."""
    if "DOCKER_HOST" in os.environ:
        return {}
    exports = subprocess.run(["bash", str(ENGINE_SCRIPT), "env"], capture_output=True, text=True).stdout
    environment = dict(item.split("=", 1) for item in exports.removeprefix("export ").split())
    if not os.path.exists(environment["DOCKER_HOST"].removeprefix("unix://")):
        return {}
    environment["PATH"] = environment["PATH"].replace("$PATH", os.environ.get("PATH", ""))
    return environment


@pytest.fixture(scope="session")
def docker_engine():
    """Points this process (and so Inspect and its children) at a reachable engine, or skips. Session-wide: every
    Docker test runs on one xdist worker (tests/conftest.py); the environment is restored when the run ends."""
    with pytest.MonkeyPatch.context() as patch:
        for key, value in _engine_environment().items():
            patch.setenv(key, value)
        try:
            probe = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"], capture_output=True, text=True, timeout=30)
            reachable = probe.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            reachable = False
        if not reachable:
            skip_unless_required("docker", "no Docker engine reachable (start one with scripts/docker-engine.sh)")
        if subprocess.run(["docker", "image", "inspect", base_image()], capture_output=True).returncode != 0:
            pytest.fail(f"the engine answers but has no base image {base_image()}: run scripts/docker-engine.sh", pytrace=False)
        yield


def base_image() -> str:
    return os.environ.get("VERIFIERBENCH_BASE_IMAGE", "verifierbench-base:bookworm")


@pytest.fixture(scope="session")
def fixture_instance_image(docker_engine, swebench_fixture, tmp_path_factory):
    """The offline fixture instance's environment image, under the name SWE-bench's would have (no registry here):
    the base image with the repository at the base commit at /testbed, as in SWE-bench's images."""
    import shutil

    from tests.sources.swebench.fixture import INSTANCE_ID, REPO
    from verifierbench.sources.swebench.docker_compose import image_for

    _, repos = swebench_fixture
    context = tmp_path_factory.mktemp("instance-image")
    shutil.copytree(repos / REPO.replace("/", "__"), context / "testbed", symlinks=True)
    (context / "Dockerfile").write_text(f"FROM {base_image()}\n"
                                        "COPY testbed /testbed\n")
    # git's index holds the files' stat data, which differs in every session's fixture: without it the image is the
    # same every session, so the CLIs' derived image on it (sandboxes/cli_overlay.py) comes from the engine's cache
    # instead of a new 1.7 GB layer per run (nothing in the image runs git: the base image has none).
    (context / ".dockerignore").write_text("testbed/.git/index\n")
    image = image_for(INSTANCE_ID)  # the name the sandbox asks for: shared by test runs at once on one machine
    with _image_lock(image) as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)  # held while this run may use the image
        subprocess.run(["docker", "build", "--quiet", "--force-rm", "--network", "none", "-t", image, str(context)],
                       check=True, capture_output=True, timeout=600)
        yield image
        try:  # removed by the last run using it; another one still holding it keeps it (and removes it itself)
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        subprocess.run(["docker", "rmi", "--force", image], capture_output=True, timeout=120)


@contextlib.contextmanager
def _image_lock(image: str):
    """A lock file per image name beside the engine's own state (root's, as the engine is), not in a /tmp another
    user could have planted a file in; opened without following links."""
    directory = Path("/run/verifierbench-tests")
    directory.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(directory / (image.replace("/", "_").replace(":", "_") + ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        yield fd
    finally:
        os.close(fd)


@pytest.fixture(scope="session")
def harness_image(docker_engine):
    """Builds (or finds up to date) the image with the CLIs; the first build fetches them with npm."""
    # INSPECT_PYTHON: the inspect-swe of this interpreter says where it looks for the CLIs.
    # Under the first test's limit (900 s, which counts this fixture), so a slow build says so, not a bare timeout.
    build = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "harness-clis.sh"), "build"], capture_output=True,
                           text=True, timeout=840, env={**os.environ, "INSPECT_PYTHON": sys.executable})
    if build.returncode != 0:
        pytest.fail(f"scripts/harness-clis.sh build failed: {build.stderr.strip().splitlines()[-1:]}", pytrace=False)


@pytest.fixture(scope="session")
def trace_image(harness_image):
    """The harness image plus strace (scripts/harness-trace-image.sh)."""
    build = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "harness-trace-image.sh")], capture_output=True,
                           text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-2000:]
    return build.stdout.strip()


@pytest.fixture(scope="session")
def cli_docker_logs(harness_image, bwrap_available, fixture_instance_image, mixed_suite, tmp_path_factory):
    """harness -> (the finished `inspect eval`, its log) of that CLI under Docker over the mixed suite's first AgentDojo
    task and the fixture's code task: one eval per CLI serves its state test (test_harnesses.py) and its code test
    (test_harnesses_code.py), each reading its own sample. Run on first use, once."""
    from tests.conftest import first_of_each
    from tests.harness.inspect_cli import eval_log, inspect

    chosen = first_of_each(mixed_suite, ("agentdojo", "swebench"))
    made: dict[str, tuple] = {}

    def run(harness: str) -> tuple:
        if harness not in made:
            logs = tmp_path_factory.mktemp(f"cli-docker-{harness}")
            result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T",
                             f"suite={mixed_suite}", "-T", f"task_ids={','.join(chosen.values())}", "-T", f"harness={harness}",
                             "-T", "sandbox=docker", "--log-dir", str(logs))
            made[harness] = (result, eval_log(logs))
        return made[harness]

    return run
