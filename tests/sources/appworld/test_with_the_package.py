"""The AppWorld adapter against the real `appworld` package (installed into its own venv for this test,
as users install it), without AppWorld's data, which is not downloadable here: the package runs in the
sandbox, and the build names what is missing and goes on."""

from __future__ import annotations

import subprocess

import pytest

from tests.cli.test_cli import cli
from tests.conftest import cached, skip_unless_required
from verifierbench.sources.appworld import runtime

PIN = "appworld==0.1.3.post1"
pytestmark = pytest.mark.slow  # a venv with the package (cached between runs)


@pytest.fixture(scope="module")
def appworld_python():
    """A venv of the system Python with the pinned package, made once per machine (tests.conftest.cached)."""
    failed: list[str] = []

    def make(directory):
        venv = directory / "venv"
        made = subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], capture_output=True, text=True)
        assert made.returncode == 0, made.stderr
        installed = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q", PIN], capture_output=True,
                                   text=True, timeout=600)
        if installed.returncode:
            failed.append(installed.stderr.strip().splitlines()[-1:][0] if installed.stderr.strip() else "pip failed")
            raise RuntimeError(failed[-1])

    try:
        directory = cached("appworld-venv", f"{PIN}\n{subprocess.check_output(['/usr/bin/python3', '-V'], text=True)}", make)
    except RuntimeError:
        skip_unless_required("packages", f"cannot install {PIN} here: {failed[-1]}")
    return directory / "venv" / "bin/python"


def test_build_names_missing_data_and_goes_on(appworld_python, traversable_tmp, monkeypatch, bwrap_available):
    monkeypatch.setenv(runtime.PYTHON_ENV, str(appworld_python))
    monkeypatch.delenv("APPWORLD_ROOT", raising=False)
    result = cli("build", "--out", str(traversable_tmp / "aw-suite-1"), "--source", "bfcl", "--source", "appworld")
    assert result.returncode == 0, result.stderr
    assert "appworld unavailable, skipped: AppWorld task data not found ($APPWORLD_ROOT is not set)" in result.stdout

    # Data directories without tasks: AppWorld itself (in the sandbox) reads its splits and finds nothing.
    root = traversable_tmp / "appworld-root"
    for part in ("tasks", "datasets"):
        (root / "data" / part).mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev"):
        (root / "data" / "datasets" / f"{split}.txt").write_text("")
    monkeypatch.setenv("APPWORLD_ROOT", str(root))
    result = cli("build", "--out", str(traversable_tmp / "aw-suite-2"), "--source", "bfcl", "--source", "appworld")
    assert result.returncode == 0, result.stderr
    assert "appworld unavailable, skipped: AppWorld 0.1.3.post1 finds no tasks in its train and dev splits" in result.stdout
    assert "build: bfcl: 45 tasks" in result.stdout
