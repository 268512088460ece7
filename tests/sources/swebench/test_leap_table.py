"""astropy environments carry a current leap-second table (`extensions.LEAP_TABLE_PTH`, docs/code-suite-astropy.md):
astropy-iers-data pinned in the profile venv, and a site-packages start-up file that hands its Leap_Second.dat to
astropy's own `iers.conf.system_leap_second_file` when astropy's iers module is first executed. The start-up file
runs here in a real venv (made without pip, about 2 s) on a stand-in astropy whose iers module has the same `conf`."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from verifierbench.sources.swebench import extensions, venv_store

ASTROPY = "astropy/astropy"
STAND_IN_IERS = """\
class _Conf:
    system_leap_second_file = {preset!r}
conf = _Conf()
"""


def _checkout(root: Path) -> Path:
    (root / "astropy").mkdir(parents=True)
    (root / "astropy" / "__init__.py").write_text("")
    (root / "cextern").mkdir()
    (root / "cextern" / "lib.c").write_text("int g(void) { return 0; }\n")
    return root


def test_astropy_keys_name_the_table_and_its_start_up_file_and_matplotlib_keys_do_not(tmp_path, monkeypatch):
    spec = venv_store.spec_for(ASTROPY, "4.3", _checkout(tmp_path / "a"))
    assert extensions.ASTROPY_IERS_DATA in spec.pip_packages and extensions.ASTROPY_IERS_DATA.startswith("astropy-iers-data==")
    assert spec.start_up and spec.venv.start_up == spec.start_up
    # another hook text is another environment (the profile venv too): a stale start-up file is never reused
    changed = replace(extensions.RECIPES[ASTROPY], preimport_pth=(extensions.LEAP_TABLE_PTH[0], "import sys\n"))
    monkeypatch.setitem(extensions.RECIPES, ASTROPY, changed)
    other = venv_store.spec_for(ASTROPY, "4.3", tmp_path / "a")
    assert other.key != spec.key and other.venv.key != spec.venv.key
    # matplotlib's start-up file is not keyed: its environments keep the keys they were made under
    mpl = venv_store.spec_for("matplotlib/matplotlib", "3.5", tmp_path / "a")
    assert mpl.start_up == "" and "start_up" not in mpl.to_json()


def _venv_with_start_up_file(tmp_path: Path, table: bool) -> tuple[Path, Path]:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    name, text = extensions.LEAP_TABLE_PTH
    (purelib / name).write_text(text)
    data = purelib / "astropy_iers_data" / "data"
    data.mkdir(parents=True)
    if table:
        (data / "Leap_Second.dat").write_text("#  File expires on 28 June 2027\n")
    return python, data / "Leap_Second.dat"


def _stand_in_astropy(root: Path, preset: str = "") -> Path:
    iers = root / "astropy" / "utils" / "iers"
    iers.mkdir(parents=True)
    for package in (root / "astropy", root / "astropy" / "utils"):
        (package / "__init__.py").write_text("")
    (iers / "__init__.py").write_text("from .iers import conf\n")
    (iers / "iers.py").write_text(STAND_IN_IERS.format(preset=preset))
    return root


def _configured_table(python: Path, tree: Path, code: str = "from astropy.utils import iers; print(iers.conf.system_leap_second_file)") -> str:
    done = subprocess.run([str(python), "-c", code], cwd=tree, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.timeout(120)
def test_the_start_up_file_hands_the_current_table_to_astropy_and_nothing_else(tmp_path):
    python, table = _venv_with_start_up_file(tmp_path, table=True)
    tree = _stand_in_astropy(tmp_path / "tree")
    assert _configured_table(python, tree) == str(table)
    # an interpreter that never imports astropy's iers module imports nothing for it
    assert _configured_table(python, tree, "import sys; print(sorted(m for m in sys.modules if 'astropy' in m))") == "[]"
    # a value astropy already has (its config file, a test's set_temp) is kept
    preset = _stand_in_astropy(tmp_path / "preset", preset="/etc/leap-seconds.list")
    assert _configured_table(python, preset) == "/etc/leap-seconds.list"


@pytest.mark.timeout(120)
def test_without_the_table_astropy_keeps_its_default(tmp_path):
    python, _ = _venv_with_start_up_file(tmp_path, table=False)
    assert _configured_table(python, _stand_in_astropy(tmp_path / "tree")) == ""
