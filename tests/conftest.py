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
# a fixed sample (`representative_tasks`), which keeps CI's time in budget (docs/testing.md, "Opt-in heavy suites").
EXHAUSTIVE = os.environ.get("VERIFIERBENCH_EXHAUSTIVE") == "1"


def load_script(name: str):
    """scripts/NAME.py as a module, loaded from its file the way `python scripts/NAME.py` runs it: its folder first on
    sys.path while it loads, for the helpers beside it (scripts/generated_block.py). sys.path is restored after, and
    sys.modules gains nothing from that folder, so the tests after this one see neither."""
    import importlib.util

    folder = REPO_ROOT / "scripts"
    before = set(sys.modules)
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(folder))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
        for added in set(sys.modules) - before:
            origin = getattr(sys.modules[added], "__file__", None) or ""
            if Path(origin).parent == folder:
                del sys.modules[added]
    return module


def representative_tasks(suite, source: str) -> list[str]:
    """The ids of `source`'s tasks in the loaded `suite`: every one under VERIFIERBENCH_EXHAUSTIVE=1; else a fixed
    sample that holds every upstream category and every case family (each case's operator and family) of the source,
    chosen greedily (in each category, smallest first, the task adding the most families not yet held; then the
    task adding the most, until all are held; ties by id). Sorted by id."""
    tasks = {task_id: task for task_id, task in sorted(suite.tasks.items()) if task.source.value == source}
    if EXHAUSTIVE:
        return list(tasks)

    def families(task_id: str) -> set:
        return {(key, c.provenance[key]) for c in suite.cases_by_task[task_id] for key in ("operator", "family")
                if c.provenance.get(key)}

    by_category: dict[str, list[str]] = {}
    for task_id, task in tasks.items():
        by_category.setdefault(str(task.metadata.get("upstream_category")), []).append(task_id)
    chosen: list[str] = []
    held: set = set()

    def take(candidates: list[str]) -> None:
        best = max(candidates, key=lambda t: (len(families(t) - held), [-ord(ch) for ch in t]))  # ties: the lowest id
        chosen.append(best)
        held.update(families(best))

    for category in sorted(by_category, key=lambda c: (len(by_category[c]), c)):
        take(by_category[category])
    every = set().union(*map(families, tasks))
    while held != every:
        take([t for t in tasks if t not in chosen])
    return sorted(chosen)


REQUIRE_VAR = "VERIFIERBENCH_REQUIRE"

# Tiers (docs/testing.md): `-m "not (docker or ray or e2e or slow or real_data)"` is the quick unit tier; the
# default run is everything CI proves. docker, ray and real_data come from the fixtures a test uses, e2e from the
# command lines it runs (tests.harness.inspect_cli, tests.cli.test_cli), slow (and real_data where no fixture says
# it) from the modules' own marks.
MARKERS = {
    "sandbox": "needs working bubblewrap isolation (skipped with the reason when the machine has none)",
    "docker": "needs the Docker engine (scripts/docker-engine.sh); all run on one xdist worker",
    "ray": "starts a local Ray cluster; all run on one xdist worker",
    "e2e": "runs `inspect` or `verifierbench` as a user does (subprocesses)",
    "slow": "takes more than about 30 s on an idle 2-core machine",
    "real_data": "reads the SWE-bench copy beside the project (../shared) or builds a real upstream environment",
    "root": "proves what only a root harness does: elsewhere a skip of kind `root` (root_only)",
}
TIERS = ("docker", "ray", "e2e", "slow", "real_data")
DOCKER_FIXTURES = {"docker_engine"}
RAY_FIXTURES = {"ray_env", "ray_token", "ray_installed"}
REAL_DATA_FIXTURES = {"persistent_envs"}
E2E_HELPERS = {"tests.harness.inspect_cli", "tests.cli.test_cli"}


# The stores a build or an audit keeps between runs (test environments and, beside them, the run cache; code
# checkouts; the witness pool) are this session's own: a warm machine must not pass on what an earlier run cached,
# and two runs at once must not share them. VERIFIERBENCH_TEST_STORES=persistent keeps the machine's (and variables
# set by the caller are honoured); tests about real upstream environments ask for those (`persistent_envs`).
STORE_VARS = {"VERIFIERBENCH_ENVS": "envs", "VERIFIERBENCH_CHECKOUTS": "checkouts", "VERIFIERBENCH_WITNESS_POOL": "witnesses"}
PERSISTENT_ENVS = "/var/tmp/verifierbench/envs"  # verifierbench.sources.swebench.venv_store.DEFAULT_ROOT


# Artefacts built once per test run and shared by every xdist worker (suites, the fixture instances): a 0755
# directory the controller makes before the workers start (they inherit the variable) and removes at the end.
SHARED_BUILDS_VAR = "VERIFIERBENCH_TEST_BUILDS"


def _is_xdist_worker(config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config) -> None:
    import tempfile

    for marker, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{marker}: {meaning}")
    # Inspect's control server (`inspect ctl`, a uvicorn app every eval binds) serves no test: off, as Inspect
    # documents for CI, it saves 0.5-1 s of CPU per `inspect eval` start (docs/testing.md). Set it to override.
    os.environ.setdefault("INSPECT_EVAL_CTL_SERVER", "false")
    # Workers inherit the controller's stores and shared build directory through the environment.
    if _is_xdist_worker(config) or hasattr(config, "_session_stores"):
        return
    root = Path(tempfile.mkdtemp(prefix="vgb-test-stores-"))
    root.chmod(0o755)  # the sandbox uids read environments and checkouts
    config._session_stores = root
    (root / "builds").mkdir(mode=0o755)
    os.environ[SHARED_BUILDS_VAR] = str(root / "builds")
    if os.environ.get("VERIFIERBENCH_TEST_STORES") != "persistent":
        for variable, name in STORE_VARS.items():
            os.environ.setdefault(variable, str(root / name))


def pytest_unconfigure(config) -> None:
    import shutil

    root = getattr(config, "_session_stores", None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


# Kept between test runs, keyed by the content that decides them (a venv of pinned packages): as root
# /var/cache/verifierbench-tests, where no other user can plant a file (the sandbox uids may read it); otherwise under
# $XDG_CACHE_HOME. VERIFIERBENCH_TEST_CACHE=off makes each run build its own (a cold machine's CI).
TEST_CACHE_VAR = "VERIFIERBENCH_TEST_CACHE"


def cached(name: str, key: str, make) -> Path:
    """A directory `make(directory)` filled once for this `key`, reused by later runs and by other workers.

    Args:
        name: the kind of artefact (a directory name).
        key: everything its content depends on (hashed into the directory's name).
        make: fills the fresh directory it is given; a failure leaves nothing to reuse.
    Returns:
        The filled directory.
    """
    import hashlib
    import tempfile

    if os.environ.get(TEST_CACHE_VAR) == "off":
        directory = Path(tempfile.mkdtemp(prefix=f"vgb-{name}-", dir=os.environ.get(SHARED_BUILDS_VAR)))
        directory.chmod(0o755)
        make(directory)
        return directory
    if os.geteuid() == 0:
        root = Path("/var/cache/verifierbench-tests")
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "verifierbench-tests"
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    if root.stat().st_uid != os.geteuid() or root.stat().st_mode & 0o022:
        pytest.fail(f"{root} is not this user's own (or others may write to it): not used as a cache", pytrace=False)
    directory = root / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"
    def make_and_record(fresh: Path) -> str:
        make(fresh)
        return key

    _made_once(directory, directory / ".made", make_and_record)
    return directory


def _made_once(directory: Path, done: Path, make) -> str:
    """Under a lock beside `directory`: unless `done` exists, `directory` made afresh (0755) and filled by `make`,
    which returns what `done` then records; returns that record. A failed make leaves no `done`, so the next caller
    (another xdist worker, a later run) tries again."""
    import fcntl
    import shutil

    with open(directory.parent / f"{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(directory, ignore_errors=True)  # a failed attempt's leftovers
            directory.mkdir(mode=0o755)
            done.write_text(make(directory))
        return done.read_text()


def built_once(name: str, make):
    """`make(directory)`'s result, made once per test run: the first caller (of any xdist worker) makes it under a
    lock in the run's shared build directory, later callers read the paths it returned. A failed make leaves nothing,
    so the next caller tries again (and reports its own failure).

    Args:
        name: the artefact's directory name, unique per kind of artefact.
        make: called with a fresh 0755 directory; returns a path or a tuple of paths inside it.
    Returns:
        What `make` returned (paths as Path).
    """
    import json

    def make_and_record(directory: Path) -> str:
        made = make(directory)
        return json.dumps([str(p) for p in made] if isinstance(made, tuple) else str(made))

    root = Path(os.environ[SHARED_BUILDS_VAR])
    paths = json.loads(_made_once(root / name, root / f"{name}.json", make_and_record))
    return tuple(Path(p) for p in paths) if isinstance(paths, list) else Path(paths)


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


def root_only(reason: str) -> pytest.MarkDecorator:
    """Marks a test (or a module, as `pytestmark`) of what only a root harness does: run as any other user, it skips
    as kind `root` with `reason` (pytest_runtest_setup), which CI never requires (docs/testing.md)."""
    return pytest.mark.root(reason=reason)


def pytest_runtest_setup(item) -> None:
    marker = item.get_closest_marker("root")
    if marker is not None and os.geteuid() != 0:
        skip_unless_required("root", marker.kwargs["reason"])


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
def built() -> Path:
    """The full tool-call suite (BFCL and ACEBench, from the data shipped in the package), built once per test run
    the way users build it."""
    return built_once("tool-call-suite", lambda d: _build(d / "suite", "--source", "bfcl", "--source", "acebench"))


@pytest.fixture(scope="session")
def bfcl_suite() -> Path:
    """A BFCL-only suite: needs nothing beyond the installed packages."""
    return built_once("bfcl-suite", lambda d: _build(d / "suite", "--source", "bfcl"))


@pytest.fixture(scope="session")
def state_suite() -> Path:
    """The state tasks from the installed packages: tau2 (retail, banking_knowledge) and AgentDojo."""
    return built_once("state-suite", lambda d: _build(d / "suite", "--source", "tau2", "--source", "agentdojo"))


# Model-free policies' eval logs, made once per test run for every test that only reads them (or works on a copy):
# one `inspect eval` per set, a log per model.
BFCL_POLICIES = ("verifierbench/always_accept", "verifierbench/always_reject", "verifierbench/heuristic", "verifierbench/random")
AUDIT_TASKS = "bfcl/parallel_114,bfcl/simple_python_10,bfcl/multiple_54"
AUDIT_POLICIES = ("verifierbench/always_reject", "verifierbench/heuristic")


def _policy_logs(directory: Path, suite: Path, models: tuple[str, ...], *selection: str) -> Path:
    from tests.harness.inspect_cli import inspect

    logs = directory / "logs"
    result = inspect("eval", "verifierbench/verifierbench", "--model", ",".join(models), "-T", f"suite={suite}", *selection,
                     "--log-dir", str(logs))
    assert result.returncode == 0, result.stderr[-3000:]
    return logs


@pytest.fixture(scope="session")
def bfcl_policy_logs(bfcl_suite) -> Path:
    """A log per model-free policy (BFCL_POLICIES) on the BFCL suite's first six tasks, default options: README.md's
    evaluation report (scripts/evaluation_report.py). Named by -T task_ids, not --limit, so each log is complete."""
    return built_once("bfcl-policy-logs", lambda d: _policy_logs(d, bfcl_suite, BFCL_POLICIES, "-T",
                                                                 f"task_ids={first_tasks(bfcl_suite, 6)}"))


@pytest.fixture(scope="session")
def single_reply_logs(bfcl_suite) -> Path:
    """The heuristic's log through the single-reply harness on the BFCL suite's first six tasks: a configuration of
    tests/leaderboard/test_artifacts.py's and the harness's own checks in tests/harness/test_inspect_eval.py."""
    return built_once("single-reply-logs", lambda d: _policy_logs(d, bfcl_suite, ("verifierbench/heuristic",), "-T",
                                                                  f"task_ids={first_tasks(bfcl_suite, 6)}", "-T",
                                                                  "harness=single_reply"))


@pytest.fixture(scope="session")
def audit_logs(bfcl_suite) -> Path:
    """always_reject's and the heuristic's logs on three BFCL tasks the audit refutes and certifies on (AUDIT_TASKS)."""
    return built_once("audit-logs", lambda d: _policy_logs(d, bfcl_suite, AUDIT_POLICIES, "-T", f"task_ids={AUDIT_TASKS}"))


def first_tasks(suite: Path, n: int) -> str:
    """task_ids naming the suite's first n tasks (suite order, as `--limit n` takes them)."""
    from verifierbench.suite.store import load_suite

    return ",".join(f"{t.source.value}/{t.source_id}" for t in list(load_suite(suite).tasks.values())[:n])


def one_task_per_source(suite: Path) -> str:
    """task_ids naming one task of each source in the suite (the last of each, in suite order)."""
    from verifierbench.suite.store import load_suite

    return ",".join(sorted({t.source.value: f"{t.source.value}/{t.source_id}" for t in load_suite(suite).tasks.values()}.values()))


@pytest.fixture(scope="session")
def state_eval_logs(state_suite) -> Path:
    """The heuristic's log on one task of each state source (tau2, AgentDojo), default options (vgb sandbox)."""
    return built_once("state-eval-logs", lambda d: _policy_logs(d, state_suite, ("verifierbench/heuristic",), "-T",
                                                                f"task_ids={one_task_per_source(state_suite)}"))


@pytest.fixture(scope="session")
def code_eval_logs(code_suite) -> Path:
    """The heuristic's log on the offline fixture's code task, default options (vgb sandbox, three rounds)."""
    return built_once("code-eval-logs", lambda d: _policy_logs(d, code_suite, ("verifierbench/heuristic",)))


def logs_of(logs: Path, models: tuple[str, ...] | list[str], directory: Path) -> Path:
    """`directory` holding copies of the logs in `logs` made by `models` (one each), for a test that reads them as a
    log directory of its own or writes into them."""
    import shutil

    from inspect_ai.log import list_eval_logs, read_eval_log

    directory.mkdir(parents=True, exist_ok=True)
    found = {}
    for info in list_eval_logs(str(logs)):
        model = read_eval_log(info, header_only=True).eval.model
        if model in models:
            found[model] = shutil.copy(info.name.removeprefix("file://"), directory)
    assert sorted(found) == sorted(models), (sorted(found), models)
    return directory


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
def swebench_fixture() -> tuple[Path, Path]:
    """The offline SWE-bench-format instance: (instances.jsonl, directory of local git clones)."""
    from tests.sources.swebench.fixture import make_fixture

    return built_once("swebench-data", lambda d: make_fixture(d / "swebench-data"))


@pytest.fixture(scope="session")
def code_suite(swebench_fixture) -> Path:
    """The code suite built from the offline fixture, the way users build it (checkouts inside the suite)."""
    instances, repos = swebench_fixture
    return built_once("code-suite", lambda d: _build(d / "suite", "--source", "swebench", "--swebench-instances",
                                                     str(instances), "--swebench-repos", str(repos)))


@pytest.fixture(scope="session")
def mixed_suite(swebench_fixture) -> Path:
    """One suite of every task type, built the way users build it: BFCL (tool-call), tau2 and AgentDojo (state) and
    the offline fixture's code task. For the tests that run one `inspect eval` over several task types
    (tests/harness/test_mixed_suite.py, Pi in vgb in tests/harness/test_pi_vgb.py)."""
    instances, repos = swebench_fixture
    return built_once("mixed-suite", lambda d: _build(d / "suite", "--source", "bfcl", "--source", "tau2", "--source",
                                                      "agentdojo", "--source", "swebench", "--swebench-instances",
                                                      str(instances), "--swebench-repos", str(repos)))


def first_of_each(suite: Path, sources: tuple[str, ...]) -> dict[str, str]:
    """source -> the first of its tasks in the suite (suite order, as `-T source=S --limit 1` takes it), as task_ids."""
    from verifierbench.suite.store import load_suite

    first: dict[str, str] = {}
    for task in load_suite(suite).tasks.values():
        if task.source.value in sources:
            first.setdefault(task.source.value, f"{task.source.value}/{task.source_id}")
    assert sorted(first) == sorted(sources), (sorted(first), sources)
    return first


# --shuffle[=SEED] (scripts/test.sh --random): the test files in a random order and the tests of each file too, as
# pytest-randomly does, to show that no test leans on another's leftovers. The seed is printed; pass it to repeat.
def pytest_addoption(parser) -> None:
    parser.addoption("--shuffle", nargs="?", const="random", default=None, metavar="SEED",
                     help="run test files, and the tests within each, in a random order (seeded; the seed is printed)")


def _shuffle_seed(config) -> int | None:
    import random

    if _is_xdist_worker(config):
        return config.workerinput.get("shuffle_seed")
    value = config.getoption("--shuffle")
    if value is None:
        return None
    if not hasattr(config, "_shuffle_seed"):
        config._shuffle_seed = random.SystemRandom().randrange(1 << 32) if value == "random" else int(value)
    return config._shuffle_seed


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist: every worker shuffles with the controller's seed (their collections must be the same)."""
    seed = _shuffle_seed(node.config)
    if seed is None:
        return
    node.workerinput["shuffle_seed"] = seed
    reporter = node.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not getattr(node.config, "_shuffle_said", False):
        node.config._shuffle_said = True
        reporter.write_line(f"test order shuffled with seed {seed} (repeat it: --shuffle={seed})")


# Where each test runs with two workers (scripts/test.sh): the modules whose tests use the Docker engine share one
# group (one worker: one engine, one set of images), so do the Ray tests (one cluster), and every other module is a
# group of its own (its module fixtures are made once). The controller knows tests by node id only, so the Docker
# modules are named here; collection checks that every test using the engine is in one of them.
DOCKER_MODULES = frozenset({"tests/harness/test_connections.py", "tests/harness/test_docker.py",
                            "tests/harness/test_docker_build.py", "tests/harness/test_endpoint_docker.py",
                            "tests/harness/test_harnesses.py",
                            "tests/harness/test_harnesses_code.py"})


def xdist_group_of(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    if module in DOCKER_MODULES:
        return "docker"
    if module.startswith("tests/cluster/"):
        return "ray"
    return module


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Whole groups (xdist_group_of) to a worker, in collection order (the longest first: _heavy_first). xdist's own
    `loadgroup` cannot do it here: it renames node ids, which pytest 9 no longer lets a plugin do."""
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid)

    return GroupScheduling(config, log)


def _mark_tiers(items) -> None:
    """docker, ray and e2e markers from what each test uses (and the check that the scheduler's groups agree)."""
    misplaced = []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & DOCKER_FIXTURES:
            item.add_marker("docker")
        if fixtures & RAY_FIXTURES or "tests/cluster/" in item.nodeid:
            item.add_marker("ray")
        if fixtures & REAL_DATA_FIXTURES:
            item.add_marker("real_data")
        module = getattr(item, "module", None)
        if module is not None and any(getattr(v, "__module__", None) in E2E_HELPERS for v in vars(module).values()):
            item.add_marker("e2e")
        # In the JUnit XML, for scripts/test_times.py's time by tier.
        tiers = [name for name in TIERS if item.get_closest_marker(name)]
        item.user_properties.append(("tiers", ",".join(tiers) or "unit"))
        group = xdist_group_of(item.nodeid)
        if (item.get_closest_marker("docker") and group != "docker") or (item.get_closest_marker("ray") and group != "ray"):
            misplaced.append(item.nodeid)
    if misplaced:
        raise pytest.UsageError(f"tests using Docker or Ray outside their modules' groups (tests/conftest.py "
                                f"DOCKER_MODULES): {', '.join(misplaced[:5])}")


def _heavy_first(items) -> None:
    """Docker's group, then Ray's, then the rest in their order: with two workers the longest groups start first,
    so neither worker is left alone at the end with one of them (scripts/test.sh passes --no-loadscope-reorder)."""
    def rank(item) -> int:
        group = xdist_group_of(item.nodeid)
        return {"docker": 0, "ray": 1}.get(group, 2 if item.get_closest_marker("slow") else 3)

    items.sort(key=rank)  # stable: within a rank, the order collected (or shuffled)


def pytest_collection_modifyitems(config, items) -> None:
    _shuffle(config, items)
    _mark_tiers(items)
    _heavy_first(items)


def _shuffle(config, items) -> None:
    import random

    seed = _shuffle_seed(config)
    if seed is None:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not _is_xdist_worker(config):  # printed under -q too, unlike the header
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
