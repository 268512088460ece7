"""scripts/same_runner_program.py, the premise of issue 36's identity check of the 47: it calls two runner texts the
same program when they differ only in what type checkers read, and different otherwise."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from tests.conftest import REPO_ROOT as ROOT

_spec = importlib.util.spec_from_file_location("same_runner_program", ROOT / "scripts" / "same_runner_program.py")
same = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(same)

BEFORE = '''\
import os


def _read(path, reach=None):  # noqa: ANN001
    """Reads it."""
    return open(path).read() if reach is None else os.sep
'''
TYPED = '''\
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import pytest

_Method = Callable[..., Any]


def _read(path: str, reach: dict[str, Any] | None = None) -> str:
    """Reads it."""
    return open(path).read() if reach is None else os.sep
'''


def test_annotations_and_the_imports_they_need_are_not_the_program():
    assert same.normalized(BEFORE) == same.normalized(TYPED)


def test_any_other_change_is():
    assert same.normalized(BEFORE) != same.normalized(BEFORE.replace("os.sep", "os.pathsep"))
    assert same.normalized(BEFORE) != same.normalized(BEFORE.replace("reach=None", "reach=0"))
    assert same.normalized(BEFORE) != same.normalized(BEFORE.replace('"""Reads it."""', '"""Reads."""'))
    assert same.normalized(TYPED) != same.normalized(TYPED.replace("import os\n", "import os\nimport typing\n"))


def test_a_commit_compared_with_itself_is_the_same_program_and_bad_arguments_are_named():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "same_runner_program.py"), "HEAD", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "program same" in done.stdout and "DIFFERS" not in done.stdout, done.stdout + done.stderr
    usage = subprocess.run([sys.executable, str(ROOT / "scripts" / "same_runner_program.py")], capture_output=True, text=True)
    assert usage.returncode == 2 and "same_runner_program.py" in usage.stderr
