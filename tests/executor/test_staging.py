"""Bind sources under a directory the sandbox uid cannot search (root's 0700 home) are staged where it can reach
them, in a directory no other user could have made or can write; reachable sources are bound in place."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import root_only, write_verifier
from verifierbench.executor import Executor, Job, Limits, staging
from verifierbench.core.protocol import Decision

needs_root = root_only("the sandbox runs as another uid only under a root harness")


@pytest.fixture()
def private_library(tmp_path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    home.chmod(0o700)
    library = home / "checkout" / "lib" / "marker"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("VALUE = 'staged'\n")
    return library


@needs_root
def test_an_unreachable_source_is_staged_in_a_directory_of_ours_that_others_cannot_write(private_library):
    staged = Path(staging.reachable(str(private_library)))
    assert staged != private_library and staging.searchable_by_others(staged)
    assert (staged / "__init__.py").read_text() == "VALUE = 'staged'\n"
    root = staged.parents[1]
    assert root.name.startswith(staging.PREFIX) and root.parent == Path(os.path.realpath(os.environ.get("TMPDIR", "/tmp")))
    for directory in (root, staged.parent, staged):
        info = os.lstat(directory)
        assert info.st_uid == os.geteuid() and not info.st_mode & stat.S_IWOTH and not stat.S_ISLNK(info.st_mode)
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o711  # searchable, not listable by others
    assert staging.reachable(str(private_library)) == str(staged)  # staged once while unchanged


def test_a_reachable_source_is_bound_where_it_is(tmp_path):
    tmp_path.chmod(0o755)
    assert staging.reachable(str(tmp_path)) == str(tmp_path) or not staging.searchable_by_others(tmp_path)
    assert staging.reachable("/usr/lib") == "/usr/lib"


@needs_root
def test_a_sandboxed_verifier_imports_a_library_from_a_0700_home(private_library, bwrap_available, tmp_path):
    verifier = write_verifier(tmp_path / "v", """
        import json, sys, marker
        json.dump({"decision": "PASS", "reason": marker.VALUE}, open(sys.argv[2], "w"))
    """)
    with Executor(Limits(timeout_s=60), isolation="bwrap", slots=1, libraries=((str(private_library), "marker"),)) as executor:
        outcome = executor.run(Job(verifier, {}, key="k"))
    assert outcome.decision is Decision.P and outcome.reason == "staged", (outcome.problem, outcome.stderr_tail)


def test_a_stage_whose_process_died_is_swept_and_a_live_one_kept(tmp_path):
    dead = tmp_path / f"{staging.PREFIX}999999999-x"  # beyond pid_max: no such process
    live = tmp_path / f"{staging.PREFIX}{os.getpid()}-x"
    for directory in (dead, live):
        directory.mkdir()
    staging._sweep_stale(tmp_path)
    assert not dead.exists() and live.exists()
