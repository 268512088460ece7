"""Shared fixtures: a sandboxed executor and a helper that writes verifier files."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from importlib.resources import files

from verifierbench.executor import Executor, Limits, probe_bwrap

REPO_ROOT = Path(__file__).resolve().parents[1]
# Optional data beside the project (the SWE-bench Verified copy); a user's clone has none and the default build
# needs none.
SHARED = REPO_ROOT.parent / "shared"
ACEBENCH = Path(str(files("verifierbench.sources.acebench") / "data"))  # the copy shipped in the package
BIN = Path(sys.executable).parent
# Every skip names its kind (skip_unless_required); $VERIFIERBENCH_REQUIRE lists the kinds that fail instead,
# comma-separated, or `all`. With $CI set, scripts/test.sh and .ci/run require sandbox, data, packages, browser,
# rootfs-py39 and ray, and swebench-copy beside ../shared, so a green CI means those tests ran (docs/testing.md).
# `VERIFIERBENCH_EXHAUSTIVE=1` (scripts/test.sh --full): tests that sweep a whole source take every task; CI takes
# a fixed sample (`ci_sample`), which keeps CI's time in budget (docs/testing.md, "Opt-in heavy suites").
EXHAUSTIVE = os.environ.get("VERIFIERBENCH_EXHAUSTIVE") == "1"
CI_SAMPLE_EVERY = 3


def ci_sample(items: list) -> list:
    """Every item under VERIFIERBENCH_EXHAUSTIVE=1, else every CI_SAMPLE_EVERY-th, from the first (a fixed sample)."""
    return list(items) if EXHAUSTIVE else list(items)[::CI_SAMPLE_EVERY]


REQUIRE_VAR = "VERIFIERBENCH_REQUIRE"


# The stores a build or an audit keeps between runs (test environments and, beside them, the run cache; code
# checkouts; the witness pool) are this session's own: a warm machine must not pass on what an earlier run cached,
# and two runs at once must not share them. VERIFIERBENCH_TEST_STORES=persistent keeps the machine's (and variables
# set by the caller are honoured); tests about real upstream environments ask for those (`persistent_envs`).
STORE_VARS = {"VERIFIERBENCH_ENVS": "envs", "VERIFIERBENCH_CHECKOUTS": "checkouts", "VERIFIERBENCH_WITNESS_POOL": "witnesses"}
PERSISTENT_ENVS = "/var/tmp/verifierbench/envs"  # verifierbench.sources.swebench.venv_store.DEFAULT_ROOT


def pytest_configure(config) -> None:
    import tempfile

    if os.environ.get("VERIFIERBENCH_TEST_STORES") == "persistent" or hasattr(config, "_session_stores"):
        return
    root = Path(tempfile.mkdtemp(prefix="vgb-test-stores-"))
    root.chmod(0o755)  # the sandbox uids read environments and checkouts
    config._session_stores = root
    for variable, name in STORE_VARS.items():
        os.environ.setdefault(variable, str(root / name))


def pytest_unconfigure(config) -> None:
    import shutil

    root = getattr(config, "_session_stores", None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def persistent_envs():
    """The machine's environment store (and run cache) for a module about real upstream instances, whose compiled
    environments take many minutes to make: cached there by design, as users' are. Restored when the module ends."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VERIFIERBENCH_ENVS", PERSISTENT_ENVS)
        yield


def skip_unless_required(kind: str, reason: str) -> None:
    """Skips with the kind and the reason (`-rs` shows both), or fails when $VERIFIERBENCH_REQUIRE names the kind."""
    required = {k.strip() for k in os.environ.get(REQUIRE_VAR, "").split(",") if k.strip()}
    if kind in required or "all" in required:
        pytest.fail(f"{kind}: {reason} (required here: ${REQUIRE_VAR}={','.join(sorted(required))})", pytrace=False)
    pytest.skip(f"{kind}: {reason}", allow_module_level=True)


def require_module(name: str, package: str):
    """`name` imported, or a skip naming the package to install; a failure where `packages` is required (CI): a
    broken install must not pass by skipping a directory. Any other import error propagates as it is."""
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name is None or not name.startswith(missing.name.split(".")[0]):
            raise  # the package is there but broken: say so, never skip
        skip_unless_required("packages", f"{package} is not installed ({name}: {missing})")


def private_copy(suite: Path, directory: Path) -> Path:
    """`suite` copied to `directory`/suite, for a test that writes into it (`screen` writes screened.json, which the
    eval honours): the session's suites are shared by many tests, in any order."""
    import shutil

    return Path(shutil.copytree(suite, directory / "suite", symlinks=True))


def write_verifier(directory: Path, source: str, name: str = "verify.py") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return path


@pytest.fixture(scope="session")
def bwrap_available() -> None:
    works, why = probe_bwrap()
    if not works:
        skip_unless_required("sandbox", f"no bubblewrap isolation on this machine: {why}")


@pytest.fixture()
def sandbox(bwrap_available: None) -> Executor:
    # Short limits keep the hostile tests fast; the defaults are exercised elsewhere.
    with Executor(Limits(timeout_s=3, memory_bytes=1 << 30, max_processes=32), isolation="bwrap", slots=2) as executor:
        yield executor


def _build(out: Path, *args: str, timeout: int = 1800) -> Path:
    # Idle, the state suite builds in about 20 s; under load 8 (CI beside other builds) it took over 300 s, at load 16
    # over 280 s. The limit is a hang guard only (pytest-timeout's per-test limit leaves fixtures out,
    # timeout_func_only), so that this message, with the load and the build's last progress, is what a hang reports.
    command = [str(BIN / "verifierbench"), "build", "--out", str(out), *args]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        progress = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else expired.stderr or ""
        pytest.fail(f"{' '.join(command[1:])} did not finish in {timeout} s at load {os.getloadavg()[0]:.1f} "
                    f"(idle it takes well under a minute); its last progress:\n{progress[-2000:]}")
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """The full tool-call suite (BFCL and ACEBench, from the data shipped in the package), built once per session
    the way users build it."""
    return _build(tmp_path_factory.mktemp("suite") / "suite", "--source", "bfcl", "--source", "acebench")


@pytest.fixture(scope="session")
def bfcl_suite(tmp_path_factory) -> Path:
    """A BFCL-only suite: needs nothing beyond the installed packages."""
    return _build(tmp_path_factory.mktemp("bfcl-suite") / "suite", "--source", "bfcl")


@pytest.fixture(scope="session")
def state_suite(tmp_path_factory) -> Path:
    """The state tasks from the installed packages: tau2 (retail, banking_knowledge) and AgentDojo."""
    return _build(tmp_path_factory.mktemp("state-suite") / "suite", "--source", "tau2", "--source", "agentdojo")


@pytest.fixture(scope="session")
def traversable_tmp():
    """A temporary directory the sandbox uids can reach (pytest's own are 0700 under /tmp/pytest-of-<user>)."""
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="vgb-tests-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def swebench_fixture(traversable_tmp) -> tuple[Path, Path]:
    """The offline SWE-bench-format instance: (instances.jsonl, directory of local git clones)."""
    from tests.sources.swebench.fixture import make_fixture

    return make_fixture(traversable_tmp / "swebench-data")


@pytest.fixture(scope="session")
def code_suite(swebench_fixture, traversable_tmp) -> Path:
    """The code suite built from the offline fixture, the way users build it (checkouts inside the suite)."""
    instances, repos = swebench_fixture
    return _build(traversable_tmp / "code-suite", "--source", "swebench", "--swebench-instances", str(instances),
                  "--swebench-repos", str(repos))


# --shuffle[=SEED] (scripts/test.sh --random): the test files in a random order and the tests of each file too, as
# pytest-randomly does, to show that no test leans on another's leftovers. The seed is printed; pass it to repeat.
def pytest_addoption(parser) -> None:
    parser.addoption("--shuffle", nargs="?", const="random", default=None, metavar="SEED",
                     help="run test files, and the tests within each, in a random order (seeded; the seed is printed)")


def _shuffle_seed(config) -> int | None:
    import random

    value = config.getoption("--shuffle")
    if value is None:
        return None
    if not hasattr(config, "_shuffle_seed"):
        config._shuffle_seed = random.SystemRandom().randrange(1 << 32) if value == "random" else int(value)
    return config._shuffle_seed


def pytest_collection_modifyitems(config, items) -> None:
    import random

    seed = _shuffle_seed(config)
    if seed is None:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:  # printed under -q too, unlike the header
        reporter.write_line(f"test order shuffled with seed {seed} (repeat it: --shuffle={seed})")
    rng = random.Random(seed)
    by_file: dict[str, list] = {}
    for item in items:
        by_file.setdefault(str(item.path), []).append(item)
    files = list(by_file)
    rng.shuffle(files)
    for group in by_file.values():
        rng.shuffle(group)
    items[:] = [item for path in files for item in by_file[path]]
