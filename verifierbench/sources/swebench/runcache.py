"""A persistent cache of code tasks' sandboxed test runs, so a build resumes across code edits and screening's C1
reuses the build's runs (a matplotlib test_axes instance: 22+ runs of 150-1,100 s each on 2 cores).

What is kept is the *raw* run, what the sandbox returned (`testrun.RawRun`: the runner's result object with its exit
status, structured report and log, and the measured seconds), never a decision: parsing and grading read it afresh,
so a change to `grading.py` or `TestRun` re-grades from the cache instead of rerunning. One gzip'd JSON file per run
under `venv_store.root().parent / "runs"` (default /var/tmp/verifierbench/runs), named by the run's key, written to a
staging file and renamed (`os.replace`): a crash leaves nothing half-written, a damaged file is ignored and rewritten.

Who may use it (`testrun.run_tests(cache=True)`): the reference's own runs at build time (gold, empty diff, every
case, C1's replay) and screening's C1 and C6. Never C2 (its reruns from a fresh start are the point), nor a run inside
a sandbox (an exported reference). `VERIFIERBENCH_RUN_CACHE=0` turns it off.
Runs a generated verifier triggers through `run_public` are kept here too, under keys of their own (`purpose`), on
stricter terms: `run_reuse.py` (docs/isolation.md, "Reused test runs"); the two kinds never serve each other.

The key (`run_key`) holds everything the raw result depends on:
- the job the runner gets: the diffs, the hidden test patch and the files it resets, the test labels or node ids,
  the runner (django/pytest), the interpreter path and the checkout's path as the sandbox sees them;
- the checkout by its content digest (`checkout.tree_digest`, the store's directory name);
- the test environment by its content-addressed key (its directory name: repository, version, requirements, pip
  packages, Python, compiled-extension sources, `venv_store.RECIPE`) and the text of its record, which the runner reads
  (overlay, extra path, plugin autoload); without one (the offline fixture), the harness's Python and pytest;
- the sandbox: its isolation level and limits (memory, processes, file size, scratch), the read-only mounts;
- the code that executes the run, by digest: every file of `sandbox_runner/` (`RUNNER_FILES`).
Files that are NOT in the key, and why:
- `testrun.py`: it builds the job and the limits, which are in the key as values; its `TestRun` is parsing;
- `grading.py`, `reference.py` (log parsing, hardened grading, SWE-bench's parser): they read the raw run, and
  re-grade it from the cache; `cases.py`, `mutants.py`, `diffs.py`, `instance_build.py`: they choose which diffs run, and
  the diff is in the key; `budget.py`: the time limit is handled below, not keyed;
- `venv_store.py`, `extensions.py`: what they make is identified by the environment's content key and record;
- the executor package (`verifierbench/executor`): it isolates the process (uids, namespaces, warm sandboxes);
  what the tests can observe of it is its level and limits, keyed as values. An executor change that altered
  outcomes would show as a C2 disagreement, since C2 always runs fresh;
- the host's git (`git apply`) and the kernel: outside the project; a new machine with another git is the same
  environment key, which is accepted (the same holds for the environments themselves).

The time limit: a run is kept only when it finished (a timed-out run or a sandbox failure says nothing about the
code), and serves a request whose limit is at least its measured seconds: the build runs everything under 4800 s,
screening under the task's budget, which is at least four times the slowest of those same runs (`budget`). The
measured seconds are stored and given back, so `TestRun.seconds` and the budget come out as from a fresh run.

The directory is this user's, made 0700; one that is a link, owned by another user or writable by others is refused
(like `sandbox.private_directory`: not repaired), and files are opened relative to it, without following links,
and read only when they are regular files of this user that no one else can write.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import os
import platform
import secrets
import stat
import threading
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError
from verifierbench.sources.swebench import venv_store

SWITCH = "VERIFIERBENCH_RUN_CACHE"  # "0": off
DIRECTORY_ENV = "VERIFIERBENCH_RUNS"  # another directory for it (benchmarks/code_judging.py: a cold cache), same checks
FORMAT = 1  # bump when the record or the key's layout changes: every old record stops matching
RUNNER_DIR = Path(__file__).resolve().parent / "sandbox_runner"
# Every file of the runner shapes the raw result: run_tests.py copies, applies and runs, and sets the process's
# environment; vgb_pytest_report.py and vgb_django_report.py write the structured report; verify.py is its entry point.
RUNNER_FILES = ("run_tests.py", "verify.py", "vgb_django_report.py", "vgb_pytest_report.py")

_stats_lock = threading.Lock()
stats = {"hits": 0, "misses": 0, "stored": 0}  # this process's counts (tests and the build's profile read them)


def enabled() -> bool:
    return os.environ.get(SWITCH, "").strip() != "0"


def directory() -> Path:
    """Where the runs are kept: `$VERIFIERBENCH_RUNS`, else beside the test environments (`$VERIFIERBENCH_ENVS/../runs`)."""
    chosen = os.environ.get(DIRECTORY_ENV)
    return Path(chosen) if chosen else venv_store.root().parent / "runs"


@functools.lru_cache(maxsize=1)
def runner_digest() -> str:
    """sha256 over the sandbox runner's files (names and contents); any other file there is included too, so a new
    helper module cannot be forgotten."""
    digest = hashlib.sha256()
    names = sorted({*RUNNER_FILES, *(p.name for p in RUNNER_DIR.glob("*.py"))})
    for name in names:
        path = RUNNER_DIR / name
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"<missing>") + b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _harness_python() -> dict[str, Any]:
    """The interpreter and pytest of runs without a test environment (they use the harness's own site-packages)."""
    try:
        pytest_version = metadata.version("pytest")
    except metadata.PackageNotFoundError:
        pytest_version = "missing"
    return {"python": platform.python_version(), "implementation": platform.python_implementation(), "pytest": pytest_version}


def run_key(job: dict[str, Any], checkout: Path, environment: Path | None, level: str, limits: Any, mounts: tuple[tuple[str, str], ...], loopback: bool,
            purpose: str = "") -> str | None:
    """The run's key (hex), or None when the run cannot be keyed (a checkout outside the content-addressed store).

    Args:
        job: what the sandbox runner gets (`diffs`, `tests`, `test_patch`, `reset`, `runner`, `python`, `repo`);
            its `timeout_s` is left out (see the module's note on time limits).
        checkout: the checkout's host directory, named by its content digest.
        environment: the test environment's directory (named by its content key), None: the harness's pytest.
        level: the executor's isolation level.
        limits: the executor's `Limits` (its default timeout is left out: each run has its own).
        mounts: the read-only mounts as the sandbox sees them.
        loopback: the run has a loopback of its own (executor Job.loopback); runs made without one (before it) differ.
    """
    name = checkout.name
    if len(name) != 32 or any(c not in "0123456789abcdef" for c in name):
        return None
    if environment is not None:
        try:
            record = (environment / "verifierbench-env.json").read_bytes()
        except OSError:
            return None
        python: dict[str, Any] = {"environment": environment.name, "record": hashlib.sha256(record).hexdigest()}
    else:
        python = {"environment": None, **_harness_python()}
    limit_values = {k: v for k, v in asdict(limits).items() if k != "timeout_s"}
    parts = {"format": FORMAT, "job": {k: v for k, v in job.items() if k != "timeout_s"}, "checkout": name,
             "python": python, "sandbox": {"level": level, "limits": limit_values, "mounts": [m[1] for m in mounts], "loopback": loopback},
             "runner": runner_digest(), **({"purpose": purpose} if purpose else {})}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _open_directory(create: bool) -> int | None:
    """A descriptor of the cache directory (None: it does not exist and `create` is False); UserError when unsafe."""
    path = directory()
    try:  # the whole way to it: ours or root's, writable by no one else (safe_fs.trusted_store)
        safe_fs.trusted_store(path.parent, create=create)
    except FileNotFoundError:
        return None
    except safe_fs.UntrustedStore as exc:
        raise _unsafe(path, str(exc)) from None
    if create:
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as e:  # a link (ELOOP), or not a directory (ENOTDIR)
        raise _unsafe(path, f"cannot open it as a directory ({e.strerror})") from None
    info = os.fstat(fd)
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        os.close(fd)
        raise _unsafe(path, "owned by another user or writable by others")
    return fd


def _unsafe(path: Path, why: str) -> UserError:
    return UserError(f"test-run cache {path}: {why}; runs read from it would decide labels, so it is refused: remove it "
                     f"(or set {SWITCH}=0 to run without the cache)")


def _filename(key: str) -> str:
    return f"{key}.json.gz"


def load(key: str, timeout_s: float) -> dict[str, Any] | None:
    """The record of a finished run under `key` that fits in `timeout_s` (None: none, damaged, or not ours).

    Args:
        key: the run's key (`run_key`).
        timeout_s: the requested run's own time limit.
    """
    fd = _open_directory(create=False)
    if fd is None:
        return None
    try:
        try:
            handle = os.open(_filename(key), os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
            return None
        try:
            info = os.fstat(handle)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
                return None
            with os.fdopen(handle, "rb") as stream:
                handle = -1
                record: dict[str, Any] = json.loads(gzip.decompress(stream.read()))
        finally:
            if handle >= 0:
                os.close(handle)
    except (OSError, EOFError, ValueError, RecursionError):  # truncated gzip, bad JSON: as if absent, rewritten later
        return None
    finally:
        os.close(fd)
    if not _valid(record, key):
        return None
    if record["seconds"] > timeout_s:  # it might not finish under this request's limit
        return None
    return record


def _valid(record: Any, key: str) -> bool:
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("key") != key:
        return False
    seconds = record.get("seconds")
    return (isinstance(record.get("result"), dict) and isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
            and math.isfinite(seconds) and seconds >= 0)


def store(key: str, result: dict[str, Any], seconds: float, about: dict[str, Any]) -> None:
    """Keeps a finished run under `key`, atomically (staging file, then `os.replace`). A cache only: an OSError
    leaves it unkept; an unsafe directory raises UserError.

    Args:
        key: the run's key.
        result: the sandbox runner's result object, as returned.
        seconds: the run's measured wall time in its sandbox.
        about: a few readable fields for a person looking at the file (never read back).
    """
    record = {"format": FORMAT, "key": key, "seconds": seconds, "result": result, "about": about}
    data = gzip.compress(json.dumps(record).encode(), compresslevel=6)
    fd = _open_directory(create=True)
    assert fd is not None
    staging = f".{key[:16]}.{os.getpid()}.{secrets.token_hex(6)}.partial"
    try:
        handle = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(staging, _filename(key), src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            try:
                os.unlink(staging, dir_fd=fd)
            except OSError:
                pass
            raise
    except OSError:
        return
    finally:
        os.close(fd)
    count("stored")


def count(what: str) -> None:
    with _stats_lock:
        stats[what] += 1
