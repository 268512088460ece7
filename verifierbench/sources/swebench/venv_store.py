"""Test environments for code tasks: one Python virtual environment per (repository, version, requirements),
made from Debian's Python and the package index, following SWE-bench's own specifications.

SWE-bench runs each instance in a Docker image built from `MAP_REPO_VERSION_TO_SPECS` (Python version,
requirements, install command, test command). Those specifications ship in `data/specs.json`
(extracted from swebench 4.1.0 by `scripts/swebench_specs.py`; 5.x no longer carries them). Here an
environment is a venv of this machine's Python 3.11 holding the repository's test requirements and its
dependencies, but not the repository itself: every test run puts its own scratch copy of the checkout
first on the path, so one environment serves every instance with the same requirements.

Repositories whose tests import extensions compiled inside the checkout (matplotlib, astropy) get a profile venv
plus a per-instance overlay of the compiled files instead (`extensions`).

Why 3.11 and not the spec's Python (3.6-3.9 for most django versions, 3.9 for astropy): Debian's mirror serves nothing
older than 3.9 and the package index no relocatable CPython; whether a version runs on 3.11 is decided
by evidence, the gold patch's run (an instance whose gold does not resolve is excluded with its log).

Environments are content-addressed (`key`), made once under `$VERIFIERBENCH_ENVS` (default
/var/tmp/verifierbench/envs), in a staging directory renamed into place when complete, so a crash never
leaves a half-made environment that looks usable. Sandboxed test runs see one read-only at /env.

A node of a cluster need not make them all again: with `$VERIFIERBENCH_ENVS_FROM` naming a directory of environments
made elsewhere (a share every node mounts, say), a missing one is copied from there when that directory is trusted as
the store is and the entry's record is the spec's, then used like one made here.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from dataclasses import replace
from typing import Any, Callable

from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError
from verifierbench.sources.swebench import python39_rootfs, extensions

ROOT_ENV = "VERIFIERBENCH_ENVS"
SHARED_ENV = "VERIFIERBENCH_ENVS_FROM"  # a directory of environments made elsewhere, copied from on first use
DEFAULT_ROOT = "/var/tmp/verifierbench/envs"
SANDBOX_ENV = "/env"  # where a test run sees its environment
SANDBOX_PYTHON = f"{SANDBOX_ENV}/bin/python"
RECIPE = 1  # bump when the way environments are made changes: every key changes with it
PYTHON = "/usr/bin/python3"
SPECS = Path(__file__).resolve().parent / "data" / "specs.json"
INSTALL_TIMEOUT_S = 1800
LIBS_DIR = "bullseye-libs"  # in a 3.9 environment: links to the root file system's libraries the host lacks


class EnvironmentError_(UserError):
    """An environment could not be made (the instance is excluded with this reason)."""


@dataclass(frozen=True)
class EnvSpec:
    """What an environment is made from; its digest names it."""

    repo: str
    version: str
    runner: str  # "django" (tests/runtests.py) or "pytest"
    requirements: tuple[tuple[str, str], ...]  # (path in the checkout, text) of the spec's requirements files
    pip_packages: tuple[str, ...]
    python: str  # the interpreter's version, e.g. "3.11.2"
    # Repositories with compiled extensions (`extensions`): the digest of the sources the instance's overlay is built
    # from; the environment is the profile venv (`venv`) plus that overlay. "" for a plain venv.
    extensions: str = ""
    # The Python 3.9 fallback (`python39_rootfs`): the root file system whose python3.9 the venv points into; "" for 3.11.
    rootfs: str = ""
    # The digest of the profile's venv start-up file where the recipe keys it (`extensions.start_up_digest`), else "".
    start_up: str = ""
    # The instance's own profile where its task records one (`extensions.environment_choice`), else "".
    profile: str = ""

    @property
    def key(self) -> str:
        optional = ("extensions", "rootfs", "start_up", "profile")
        fields = {k: v for k, v in self.__dict__.items() if k not in optional or v}  # 3.11 venvs keep their keys
        data = json.dumps({"recipe": RECIPE, **fields}, sort_keys=True, default=list)
        name = f"{self.version}-{self.extensions}" if self.extensions else self.version
        return f"{self.repo.replace('/', '__')}-{name}-{hashlib.sha256(data.encode()).hexdigest()[:16]}"

    @property
    def venv(self) -> "EnvSpec":
        """The plain venv an environment with extensions is made from (one per profile, shared by its instances)."""
        if not self.extensions:
            return self
        return replace(self, version=f"profile-{extensions.profile(self.repo, self.version, self.profile)}", extensions="",
                       profile="")

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "repo": self.repo, "version": self.version, "runner": self.runner, "python": self.python,
                "requirements": [p for p, _ in self.requirements], "pip_packages": list(self.pip_packages),
                **(self._extensions_record() if self.extensions else {}),
                **({"rootfs": self.rootfs, "ld_library_path": LIBS_DIR} if self.rootfs else {})}

    def _extensions_record(self) -> dict[str, Any]:
        """What a test run needs besides the venv (`sandbox_runner/run_tests.py` reads it)."""
        recipe = extensions.recipe(self.repo)
        return {"extensions": self.extensions, "overlay": "overlay", "pythonpath": list(recipe.pythonpath),
                **({"pytest_autoload": True} if recipe.pytest_autoload else {})}


@functools.lru_cache(maxsize=1)
def specs() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPECS.read_text())
    return loaded


def has_spec(repo: str) -> bool:
    """SWE-bench specifies this repository's environments (else: the harness's own pytest, e.g. the fixture)."""
    return repo in specs()["specs"]


def runner_for(repo: str) -> str:
    return "django" if repo == "django/django" else "pytest"


def django_directives(test_files: list[str]) -> list[str]:
    """Test labels for django's runner from the test files a test patch touches (tests/a/b.py -> a.b)."""
    labels = []
    for path in test_files:
        if path.startswith("tests/") and path.endswith(".py"):
            label = path[len("tests/"):-len(".py")].replace("/", ".")
            label = label[: -len(".__init__")] if label.endswith(".__init__") else label
            if label and label not in labels:
                labels.append(label)
    return labels


def pytest_selection(names: list[str]) -> list[str]:
    """Node ids to run for the dataset's test names. SWE-bench's log parser cuts a name at its first whitespace, so a
    parameter with a space (`test_stem[png-w/ line collection]`) is named `test_stem[png-w/`, which pytest cannot
    select: such a name runs its whole test function (the report names each under the parser's name too)."""
    selection: list[str] = []
    for name in names:
        if "[" in name and not name.endswith("]"):
            name = name.split("[", 1)[0]
        if name not in selection:
            selection.append(name)
    return selection


@functools.lru_cache(maxsize=1)
def python_version() -> str:
    done = subprocess.run([PYTHON, "-c", "import platform; print(platform.python_version())"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def spec_of_environment(environment: dict[str, Any], checkout: Path) -> EnvSpec:
    """The environment a task's record names: repository and version, and where recorded its Python and profile."""
    return spec_for(environment["repo"], environment["version"], checkout, environment.get("python", "3.11"),
                    environment.get("profile", ""))


def spec_for(repo: str, version: str, checkout: Path, python: str = "3.11", profile: str = "") -> EnvSpec:
    """The environment an instance needs, from SWE-bench's specification of its (repository, version).

    Args:
        python: "3.11" (this machine's) or "3.9" (`python39_rootfs`, for tasks whose gold resolves only there).
        profile: repositories with compiled extensions: the instance's own profile ("": its version's).
    """
    if extensions.built_in_place(repo):
        return _extensions_spec(repo, version, checkout, python, profile)
    if python == "3.9":
        spec = spec_for(repo, version, checkout)
        filtered = tuple((path, python39_rootfs.requirements_for_39(text)) for path, text in spec.requirements)
        return replace(spec, requirements=filtered, python=python39_rootfs.python_version(), rootfs=str(python39_rootfs.rootfs()))
    repo_specs = specs()["specs"].get(repo)
    if repo_specs is None or version not in repo_specs:
        raise EnvironmentError_(f"SWE-bench has no environment specification for {repo} {version or '(no version)'}")
    spec = repo_specs[version]
    requirements = []
    if spec.get("packages") == "requirements.txt":
        for rel in specs()["requirements_paths"].get(repo, []):
            if (checkout / rel).is_file():
                requirements.append((rel, (checkout / rel).read_text(encoding="utf-8", errors="replace")))
                break
        if not requirements:
            raise EnvironmentError_(f"{repo} {version}: none of the requirements files SWE-bench names is in the checkout")
    pip_packages = spec.get("pip_packages") or []
    if runner_for(repo) == "pytest" and not any(p.split("=")[0].strip().lower() == "pytest" for p in pip_packages):
        pip_packages = [*pip_packages, "pytest"]
    return EnvSpec(repo, version, runner_for(repo), tuple(requirements), tuple(pip_packages), python_version())


def _extensions_spec(repo: str, version: str, checkout: Path, python: str = "3.11", chosen: str = "") -> EnvSpec:
    """A profile venv (SWE-bench's pip packages where its spec targets 3.11, else the measured adaptation) plus the
    instance's compiled extensions (`extensions`); the repository's requirements files are not read. The profile
    decides the Python: `python` must be the one it names (a task records "3.9" for a 3.9 profile)."""
    recipe = extensions.recipe(repo)
    profile = extensions.profile(repo, version, chosen)
    if profile is None:
        raise EnvironmentError_(f"{repo} {version or '(no version)'}: no environment profile measured for this version "
                                f"{'(profile ' + chosen + ') ' if chosen else ''}(docs/code-suite-{repo.split('/')[-1]}.md)")
    if python != extensions.profile_python(repo, profile):
        raise EnvironmentError_(f"{repo} {version}: profile {profile} runs on Python {extensions.profile_python(repo, profile)}, "
                                f"not {python}")
    packages = list(recipe.profiles[profile])
    if profile in recipe.spec_packages_from:
        packages = [*specs()["specs"][repo][recipe.spec_packages_from[profile]]["pip_packages"], *packages]
    spec = EnvSpec(repo, version, runner_for(repo), (), tuple(packages), python_version(),
                   extensions.sources_digest(repo, checkout, version), start_up=extensions.start_up_digest(repo), profile=chosen)
    if python == "3.9":
        return replace(spec, python=python39_rootfs.python_version(), rootfs=str(python39_rootfs.rootfs()))
    return spec


def root() -> Path:
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


RECORD = "verifierbench-env.json"  # written last: the directory holding it is a complete environment
RECORD_MAX_BYTES = 1 << 20


def store() -> Path:
    """The environments' directory, made if missing, once it is safe to trust (safe_fs.trusted_store): this user's
    and writable by no one else along its whole path. UserError naming the path and its owner otherwise."""
    try:
        return Path(safe_fs.trusted_store(root()))
    except OSError as exc:
        raise UserError(f"environments directory: {exc}; set ${ROOT_ENV} to a directory of yours") from None


def env_dir(key: str, spec: "EnvSpec | None" = None) -> Path | None:
    """The environment named `key` when it is complete and is what its name says: its record (read without following
    links) names `key` and, given `spec`, is `spec`'s. A planted or foreign entry is refused (UserError)."""
    base = store()
    try:
        record = _record_at(base, key)
    except safe_fs.UntrustedStore as exc:
        raise UserError(str(exc)) from None
    if not isinstance(record, dict) or record.get("key") != key or (spec is not None and record != spec.to_json()):
        return None
    return base / key


def _record_at(base: str | Path, key: str) -> Any:
    """The record of the entry `key` of the trusted store `base` (read without following links), or None when the
    entry is absent, not a directory or its record missing or damaged (not an environment: ensure remakes it).

    Raises:
        safe_fs.UntrustedStore: the entry is a link, or not this user's, or writable by others (planted).
    """
    try:
        info = safe_fs.trusted_entry(base, key)
        if info is None or not stat.S_ISDIR(info.st_mode):
            return None
        return json.loads(safe_fs.read_below(base, [key, RECORD], RECORD_MAX_BYTES))
    except safe_fs.UntrustedStore:
        raise
    except (OSError, ValueError):
        return None


def ensure(spec: EnvSpec, checkout: Path, say: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> Path:
    """The environment's directory, made first if missing (one maker at a time per key, across processes)."""
    found = env_dir(spec.key, spec)
    if found:
        return found
    venv = ensure(spec.venv, checkout, say) if spec.extensions else None
    base = store()
    _searchable(base)
    try:  # never through a link: a planted `.key.lock -> /etc/shadow` would be truncated by root
        lock_fd = safe_fs.open_store_file(base, f".{spec.key}.lock")
    except OSError as exc:
        raise UserError(f"environments directory {base}: {exc}") from None
    with os.fdopen(lock_fd, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = env_dir(spec.key, spec)
        if found:
            return found
        target = base / spec.key
        staging = base / f".staging-{spec.key}"
        shutil.rmtree(staging, ignore_errors=True)
        if _copy_shared(spec, staging, say):
            shutil.rmtree(target, ignore_errors=True)
            os.rename(staging, target)
            return target
        what = "compiled extensions for" if venv else "test environment"
        say(f"build: swebench: making {what} {spec.repo} {spec.version} (Python {spec.python}, {spec.key}) ...")
        started = time.monotonic()
        try:
            if venv:
                _make_with_extensions(spec, venv, checkout, staging)
            else:
                _make(spec, checkout, staging)
            shutil.rmtree(target, ignore_errors=True)  # a directory without the record is not an environment
            os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        say(f"build: swebench: made test environment {spec.key} in {time.monotonic() - started:.0f} s")
        return target


def _copy_shared(spec: EnvSpec, staging: Path, say: Callable[[str], None]) -> bool:
    """Copies the environment named `spec.key` from `$VERIFIERBENCH_ENVS_FROM` into `staging` when the directory is
    trusted as the store is (safe_fs.trusted_store: nobody else could have planted it) and the entry's record is
    `spec`'s; the copy's own record is checked again. False when there is no such directory or entry.

    Raises:
        UserError: the directory is not one to trust (named, with its owner).
    """
    shared = os.environ.get(SHARED_ENV)
    if not shared:
        return False
    try:
        base = safe_fs.trusted_store(shared, create=False)
        record = _record_at(base, spec.key)
    except FileNotFoundError:
        return False  # no such directory (yet)
    except OSError as exc:  # UntrustedStore among them
        raise UserError(f"${SHARED_ENV}: {exc}") from None
    if record is None:
        return False
    if record != spec.to_json():
        say(f"build: swebench: {shared}/{spec.key} is not the environment its name says; making it here")
        return False
    started = time.monotonic()
    try:
        shutil.copytree(Path(base) / spec.key, staging, symlinks=True)
        copied = json.loads(safe_fs.read_below(staging, [RECORD], RECORD_MAX_BYTES))
    except (OSError, ValueError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(f"copying test environment {spec.key} from ${SHARED_ENV} {shared}: {exc}") from None
    if copied != spec.to_json():  # changed while we copied
        shutil.rmtree(staging, ignore_errors=True)
        return False
    say(f"build: swebench: copied test environment {spec.key} from {shared} in {time.monotonic() - started:.0f} s")
    return True


class _Logged:
    """Runs the commands that make one environment, into its log; the first failure raises EnvironmentError_."""

    def __init__(self, spec: EnvSpec, log_path: Path) -> None:
        self.spec, self.log_path = spec, log_path
        # Never through a link (the store is ours, but a link there would make root write where it points).
        self.log = os.fdopen(safe_fs.open_store_file(log_path.parent, log_path.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "w")

    def __call__(self, argv: list[str], cwd: Path | None = None, env: dict[str, Any] | None = None) -> None:
        self.log.write(f"$ {' '.join(argv)}\n")
        self.log.flush()
        try:
            done = subprocess.run(argv, cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT, timeout=INSTALL_TIMEOUT_S,
                                  env={**(env or os.environ), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"})
            failed = done.returncode != 0
        except subprocess.TimeoutExpired:
            failed = True
            self.log.write(f"[timed out after {INSTALL_TIMEOUT_S} s]\n")
        if failed:
            self.log.flush()
            raise EnvironmentError_(f"making the environment {self.spec.key} failed: {_cause(self.log_path)[-300:]} "
                                    f"(at `{_shown(argv)}`; full log {self.log_path})")

    def close(self) -> None:
        self.log.close()


def _cause(log_path: Path) -> str:
    """What the failed command said last: pip's ERROR lines when it has them, else the last three lines."""
    text = log_path.read_text(errors="replace").strip()
    output = [line for line in text.rsplit("\n$ ", 1)[-1].splitlines()[1:] if line.strip()]  # after the command's own line
    errors = [line.strip() for line in output if line.startswith("ERROR:")]
    return " | ".join(errors[-2:] or output[-3:] or ["(no output)"])


def _shown(argv: list[str]) -> str:
    """The command without the environment's path: `pip install -q -r requirements.txt`."""
    words = argv[1:]
    if words[:2] == ["-m", "pip"]:
        words = words[1:]
    return " ".join(Path(w).name if os.path.isabs(w) else w for w in words)[:120]


def _make_with_extensions(spec: EnvSpec, venv: Path, checkout: Path, staging: Path) -> None:
    """The profile venv, hard-linked (no copy: a venv runs from any directory with `python -m`), plus the instance's
    compiled extensions under overlay/."""
    log_path = staging.parent / f".{spec.key}.log"
    logged = _Logged(spec, log_path)
    run: Callable[..., None] = logged
    try:
        run(["cp", "-al", str(venv), str(staging)])
        (staging / "verifierbench-env.json").unlink()
        try:
            if spec.rootfs:
                run = _compiling_on_39(spec, venv, logged)
            extensions.build_overlay(spec.repo, checkout, venv / "bin" / "python", spec.version, staging / "overlay", run)
        except (python39_rootfs.RootfsError, RuntimeError, ValueError, OSError) as e:
            raise EnvironmentError_(f"making the environment {spec.key} failed: {e} (full log {log_path})") from e
        _publish(spec, staging)
    finally:
        logged.close()
    log_path.rename(staging / "make.log")


def _compiling_on_39(spec: EnvSpec, venv: Path, run: _Logged) -> Callable[..., None]:
    """`run` for building extensions with a 3.9 venv: the root file system's Python headers (python3.9-dev, added to
    a root file system made without them), its interpreter's libraries (LD_LIBRARY_PATH), and its multiarch
    pyconfig.h, which Debian's Python.h includes as <x86_64-linux-gnu/python3.9/pyconfig.h>: searched after the
    host's own include directories (`-idirafter`), so no other host header is shadowed."""
    root = Path(spec.rootfs)
    python39_rootfs.ensure_headers(root, lambda line: print(line, file=sys.stderr))
    extra = {"LD_LIBRARY_PATH": str(venv / LIBS_DIR), "CPPFLAGS": f"-idirafter {root / 'usr/include'}"}

    def run_39(argv: list[str], cwd: Path | None = None, env: dict[str, Any] | None = None) -> None:
        run(argv, cwd=cwd, env={**(env or os.environ), **extra})
    return run_39


def _publish(spec: EnvSpec, staging: Path) -> None:
    """Readable by the sandboxes' uids, then the record that makes the directory an environment."""
    for dirpath, _, filenames in os.walk(staging):
        os.chmod(dirpath, os.stat(dirpath).st_mode | 0o755)
        for filename in filenames:
            path = os.path.join(dirpath, filename)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o444)
    (staging / RECORD).write_text(json.dumps(spec.to_json(), indent=1) + "\n")


def _make(spec: EnvSpec, checkout: Path, staging: Path) -> None:
    log_path = staging.parent / f".{spec.key}.log"
    logged = _Logged(spec, log_path)
    run: Callable[..., None] = logged
    try:
        if spec.rootfs:
            run = _make_39_venv(spec, staging, logged)
        else:
            run([PYTHON, "-m", "venv", str(staging)])
        pip = [str(staging / "bin" / "python"), "-m", "pip", "install", "-q"]
        with tempfile.TemporaryDirectory(prefix="vgb-env-") as work:
            if spec.pip_packages:
                run([*pip, *spec.pip_packages])
            for _, text in spec.requirements:
                (Path(work) / "requirements.txt").write_text(text)
                run([*pip, "-r", str(Path(work) / "requirements.txt")])
            if extensions.built_in_place(spec.repo):
                # The profile venv: the packages above; each instance's environment adds its own extensions.
                start_up = extensions.recipe(spec.repo).preimport_pth
                if start_up:
                    purelib = subprocess.run([str(staging / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                             capture_output=True, text=True, check=True).stdout.strip()
                    Path(purelib, start_up[0]).write_text(start_up[1])
            else:
                # The repository's own dependencies (install_requires), without the repository: test runs put
                # their scratch copy of the checkout first on the path.
                source = Path(work) / "source"
                shutil.copytree(checkout, source, symlinks=True)
                run([*pip, str(source)])
                run([str(staging / "bin" / "python"), "-m", "pip", "uninstall", "-q", "-y", DISTRIBUTIONS.get(spec.repo, spec.repo.split("/")[-1])])
        _publish(spec, staging)
    finally:
        logged.close()
    log_path.rename(staging / "make.log")


def _make_39_venv(spec: EnvSpec, staging: Path, run: _Logged) -> Callable[..., None]:
    """A venv of the root file system's python3.9 (its symlink points into the root file system, which test runs see
    read-only at the same path), with pip from the root file system's wheels; returns `run` with the environment's
    LD_LIBRARY_PATH for the commands that follow."""
    root = Path(spec.rootfs)
    python = str(root / python39_rootfs.PYTHON_IN_ROOTFS)
    run([python, "-m", "venv", "--without-pip", str(staging)])
    python39_rootfs.link_missing_libraries(root, staging / LIBS_DIR)
    env = {**os.environ, "LD_LIBRARY_PATH": str(staging / LIBS_DIR)}
    wheels = root / "usr/share/python-wheels"
    pip_wheel = sorted(wheels.glob("pip-*.whl"))
    if not pip_wheel:
        raise EnvironmentError_(f"making the environment {spec.key} failed: no pip wheel in {wheels}")
    run([str(staging / "bin" / "python"), f"{pip_wheel[-1]}/pip", "install", "-q", "--no-index", "--find-links", str(wheels),
         "pip", "setuptools", "pkg_resources", "wheel"], env=env)  # Debian splits pkg_resources out

    def run_39(argv: list[str], cwd: Path | None = None, env_: dict[str, Any] | None = None) -> None:
        run(argv, cwd=cwd, env={**(env_ or os.environ), "LD_LIBRARY_PATH": str(staging / LIBS_DIR)})
    return run_39


DISTRIBUTIONS = {"django/django": "Django", "astropy/astropy": "astropy", "matplotlib/matplotlib": "matplotlib"}


def _searchable(base: Path) -> None:
    """Sandbox uids read the environments: every ancestor must be traversable by others."""
    if os.geteuid() != 0:
        return
    for part in [base.resolve(), *base.resolve().parents]:
        if not os.stat(part).st_mode & 0o001:
            raise UserError(f"environments directory {base}: {part} is not searchable by other users; set ${ROOT_ENV}")
