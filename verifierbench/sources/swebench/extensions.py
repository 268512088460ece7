"""Compiled extensions of repositories whose tests import modules built inside the checkout (matplotlib).

SWE-bench's image runs `pip install -e .` in /testbed, which compiles the extensions into the tree. Here the
repository is never installed: an instance's extensions are built once with `setup.py build_ext --inplace`
in a scratch copy of its checkout, using its profile's venv, and the files that build creates under `lib/`
(the `.so` files, plus the generated `_version.py` or `matplotlibrc`) are kept as an *overlay*. Every test
run copies the overlay over its scratch copy of the checkout (`sandbox_runner/run_tests.py`). The patches of
all 34 matplotlib instances touch only `.py` files under `lib/`, so an overlay never goes stale under them.

The overlay is keyed on the content of what the build reads (the C sources and the build scripts), not on the
instance: instances with the same sources share it. The measured recipe and its pitfalls are in
docs/code-suite-matplotlib.md; what a machine needs (Debian packages) is in docs/code-suite.md.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Callable

MATPLOTLIB = "matplotlib/matplotlib"

# One venv per profile (docs/code-suite-matplotlib.md, "Recipe"). "old": 3.0/3.1, whose spec asks for Python 3.7/3.8
# and unpinned requirements, adapted to 3.11 (numpy < 1.24 still has np.float, pillow < 10, pyparsing < 3). "new":
# SWE-bench's own pip_packages of 3.5-3.7 (taken from the spec) plus test and build tools of that era, and pandas
# (the `pd` fixture of PASS_TO_PASS tests). 3.4 is given the new profile untested: its gold run decides.
PROFILES: dict[str, tuple[str, ...]] = {
    "old": ("numpy==1.23.5", "pillow==9.5.0", "pyparsing==2.4.7", "cycler==0.10.0", "kiwisolver==1.4.5",
            "python-dateutil==2.8.2", "six", "setuptools==68.1.2", "wheel", "pytest==7.4.4", "ipython", "tornado"),
    "new": ("pytest==7.4.4", "certifi", "pybind11==2.11.1", "wheel==0.41.2", "packaging==23.1", "pandas==2.0.3", "pytz",
            "psutil"),
}
PROFILE_OF_VERSION = {"3.0": "old", "3.1": "old", "3.4": "new", "3.5": "new", "3.6": "new", "3.7": "new"}
SPEC_PACKAGES_FROM = "3.5"  # the "new" profile also takes this version's pip_packages from SWE-bench's spec

# FreeType: 3.5+ baselines were made with the FreeType 2.6.1 matplotlib links statically; Debian's 2.12.1 renders
# differently and about 85 image tests per test_axes instance disagree with the labels. The official cp311 wheel's
# ft2font links 2.6.1 (measured: all of them pass with it). No cp311 wheel exists for 3.5 or older.
FT2FONT_WHEEL = {"3.6": "matplotlib==3.6.3", "3.7": "matplotlib==3.7.1"}

# What the build reads: a change here changes the overlay.
BUILD_INPUTS = ("src", "extern", "setup.py", "setupext.py", "setup.cfg", "setup.cfg.template", "mplsetup.cfg.template",
                "pyproject.toml", "lib/matplotlib/mpl-data/matplotlibrc.template")

# A venv start-up file: lib/mpl_toolkits/__init__.py (up to 3.7) calls pkg_resources.declare_namespace, whose
# DeprecationWarning matplotlib's conftest turns into a collection error. An editable install imports it at start-up
# (through its own .pth), where the warning is ignored; without an install this file does the same.
PREIMPORT_PTH = ("zz_vgb_mpl_preimport.pth",
                 'import sys; exec("try:\\n import pkg_resources, mpl_toolkits\\nexcept Exception:\\n pass")\n')

BUILD_CFG = "[libs]\nsystem_freetype = True\nsystem_qhull = True\n"  # Debian's libfreetype-dev and libqhull-dev
BUILD_TIMEOUT_S = 3600
PYTHONPATH = ("lib",)  # where the tree's packages are, relative to the checkout


def built_in_place(repo: str) -> bool:
    return repo == MATPLOTLIB


def profile(version: str) -> str | None:
    return PROFILE_OF_VERSION.get(version)


@functools.lru_cache(maxsize=256)
def sources_digest(checkout: Path, version: str) -> str:
    """The overlay's content key: every file the build reads, and the version it stamps. Cached per path: checkouts
    are content-addressed and never change (hashing one takes about 0.3 s, and every test run asks)."""
    digest = hashlib.sha256(f"version:{version}\0ft2font:{FT2FONT_WHEEL.get(version, '')}\0".encode())
    for name in BUILD_INPUTS:
        top = checkout / name
        paths = sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else [top] if top.is_file() else []
        for path in paths:
            digest.update(str(path.relative_to(checkout)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build_overlay(checkout: Path, python: Path, version: str, overlay: Path, run: Callable[..., None]) -> None:
    """Builds the extensions of `checkout` with `python` (a profile venv's) and writes the files the build made
    under lib/ into `overlay` (same relative paths). `run(argv, cwd=, env=)` runs a command or raises."""
    with tempfile.TemporaryDirectory(prefix="vgb-mpl-build-") as work:
        tree = Path(work) / "tree"
        shutil.copytree(checkout, tree, symlinks=True)
        before = {p: p.stat().st_mtime_ns for p in (tree / "lib").rglob("*") if p.is_file()}
        (Path(work) / "mplsetup.cfg").write_text(BUILD_CFG)
        env = {**os.environ, "MPLSETUPCFG": str(Path(work) / "mplsetup.cfg"),
               # setuptools_scm (3.4+) cannot read a version from a tree without history
               "SETUPTOOLS_SCM_PRETEND_VERSION": f"{version}.0.dev0", "MAX_JOBS": "1"}
        run([str(python), "setup.py", "build_ext", "--inplace"], cwd=tree, env=env)
        made = [p for p in (tree / "lib").rglob("*") if p.is_file() and "__pycache__" not in p.parts
                and before.get(p) != p.stat().st_mtime_ns]
        if not any(p.suffix == ".so" for p in made):
            raise RuntimeError("build_ext made no extension module")
        for path in made:
            target = overlay / path.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        wheel = FT2FONT_WHEEL.get(version)
        if wheel:
            _wheel_ft2font(python, wheel, overlay, Path(work), run)


def _wheel_ft2font(python: Path, requirement: str, overlay: Path, work: Path, run: Callable[..., None]) -> None:
    """Replaces the locally built ft2font with the official wheel's (FreeType 2.6.1, as the labels were made with)."""
    run([str(python), "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", "-d", str(work / "wheel"), requirement])
    (wheel,) = (work / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.startswith("matplotlib/ft2font.") and n.endswith(".so")]
        if len(names) != 1:
            raise RuntimeError(f"{wheel.name} holds {len(names)} ft2font modules, expected one")
        for old in (overlay / "lib" / "matplotlib").glob("ft2font.*.so"):
            old.unlink()
        (overlay / "lib" / names[0]).write_bytes(archive.read(names[0]))
