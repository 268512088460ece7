"""Compiled extensions of repositories whose tests import modules built inside the checkout (matplotlib, astropy).

SWE-bench's image runs `pip install -e .` in /testbed, which compiles the extensions into the tree. Here the
repository is never installed: an instance's extensions are built once with `setup.py build_ext --inplace`
in a scratch copy of its checkout, using its profile's venv, and the files that build creates under the
repository's package directory (the `.so` files, plus generated files such as `_version.py` or `matplotlibrc`)
are kept as an *overlay*. Every test run copies the overlay over its scratch copy of the checkout
(`sandbox_runner/run_tests.py`). The patches of all 34 matplotlib and all 22 astropy instances touch only `.py`
files, so an overlay never goes stale under them.

Each repository has a `Recipe` (its profiles, what its build reads, where it writes, what its tests need). The
overlay is keyed on the content of what the build reads (the C sources and the build scripts), not on the
instance: instances with the same sources share it. The measured recipes and their pitfalls are in
docs/code-suite-matplotlib.md and docs/code-suite-astropy.md; what a machine needs (Debian packages) is in
docs/code-suite.md.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

MATPLOTLIB = "matplotlib/matplotlib"
ASTROPY = "astropy/astropy"
BUILD_TIMEOUT_S = 3600

Run = Callable[..., None]  # run(argv, cwd=, env=): runs a command or raises


@dataclass(frozen=True)
class Recipe:
    """How one repository's extensions are built in place, and what its test runs need besides the overlay."""

    profiles: dict[str, tuple[str, ...]]  # profile -> packages of its venv (after SWE-bench's, see spec_packages_from)
    profile_of_version: dict[str, str]
    spec_packages_from: dict[str, str]  # profile -> the version whose SWE-bench pip_packages the venv starts from
    build_inputs: tuple[str, ...]  # what the build reads: a change here changes the overlay
    package_dirs: tuple[str, ...]  # where `build_ext --inplace` writes; the overlay is what it made there
    pythonpath: tuple[str, ...]  # where the tree's packages are, relative to the checkout ("" : the root, always there)
    build_env: Callable[[Path, str], dict[str, str]]  # (scratch dir, version) -> environment of the build
    after_build: Callable[[Path, str, Path, Path, Run], None] | None = None  # (python, version, overlay, scratch, run)
    preimport_pth: tuple[str, str] | None = None  # a venv start-up file (name, text)
    start_up_keyed: bool = False  # the start-up file's text is part of the environment's key (astropy; not matplotlib's)
    pytest_autoload: bool = False  # load the venv's pytest plugins (the repository's config names their options)
    ft2font: dict[str, str] = field(default_factory=dict)  # part of the digest (matplotlib only, see FT2FONT_WHEEL)
    # version -> (a file or command, the Debian package that provides it) the build or the test runs need from the system
    system_needs: Callable[[str], tuple[tuple[str, str], ...]] = lambda version: ()
    # instance id -> profile, where an instance's key needs another profile than its version's (recorded in its task's
    # environment as "profile", so the other instances of that version keep their records and environment keys)
    profile_of_instance: dict[str, str] = field(default_factory=dict)
    profile_python: dict[str, str] = field(default_factory=dict)  # profile -> "3.9" (`python39_rootfs`); else 3.11


# --- matplotlib ---------------------------------------------------------------------------------------------------

# One venv per profile (docs/code-suite-matplotlib.md, "Recipe"). "old": 3.0/3.1, whose spec asks for Python 3.7/3.8
# and unpinned requirements, adapted to 3.11 (numpy < 1.24 still has np.float, pillow < 10, pyparsing < 3). "new":
# SWE-bench's own pip_packages of 3.5-3.7 (taken from the spec) plus test and build tools of that era, and pandas
# (the `pd` fixture of PASS_TO_PASS tests). 3.4 takes the new profile's packages on Python 3.9 ("new-py39", below).
PROFILES: dict[str, tuple[str, ...]] = {
    "old": ("numpy==1.23.5", "pillow==9.5.0", "pyparsing==2.4.7", "cycler==0.10.0", "kiwisolver==1.4.5",
            "python-dateutil==2.8.2", "six", "setuptools==68.1.2", "wheel", "pytest==7.4.4", "ipython", "tornado"),
    "new": ("pytest==7.4.4", "certifi", "pybind11==2.11.1", "wheel==0.41.2", "packaging==23.1", "pandas==2.0.3", "pytz",
            "psutil"),
}
# "new-pytest8": the new profile on pytest 8.0.0, for an instance whose key has pytest 8's parametrised ids (below).
# "new-py39": the new profile on Python 3.9 (`python39_rootfs`), for 3.4, which has cp39 wheels but no cp311 one: its
# ft2font comes from the wheel (FreeType 2.6.1), as 3.6/3.7's from cp311's.
PROFILES["new-pytest8"] = tuple("pytest==8.0.0" if p.startswith("pytest==") else p for p in PROFILES["new"])
PROFILES["new-py39"] = PROFILES["new"]
PROFILE_PYTHON = {"new-py39": "3.9"}
PROFILE_OF_VERSION = {"3.0": "old", "3.1": "old", "3.4": "new-py39", "3.5": "new", "3.6": "new", "3.7": "new"}
# matplotlib-23299 (3.5): its key names the duplicated parameter sets of test_rcparams.py::test_validate_fontweight
# as pytest 8 does (`[100-100_0]`); pytest 7.4.4 names them `[100-1000]`, and one id pytest cannot find aborts the run
# (docs/code-suite.md). The other 3.5 instances keep "new": their environments and cached runs keep their keys.
PROFILE_OF_INSTANCE = {"matplotlib__matplotlib-23299": "new-pytest8"}
SPEC_PACKAGES_FROM = "3.5"  # the "new" profiles also take this version's pip_packages from SWE-bench's spec

# FreeType: 3.5+ baselines were made with the FreeType 2.6.1 matplotlib links statically; Debian's 2.12.1 renders
# differently and about 85 image tests per test_axes instance disagree with the labels. The official cp311 wheel's
# ft2font links 2.6.1 (measured: all of them pass with it). No cp311 wheel exists for 3.5 or older.
# 3.4 runs on Python 3.9 (profile "new-py39"), where the 3.4.3 cp39 wheel's ft2font links 2.6.1 too.
FT2FONT_WHEEL = {"3.4": "matplotlib==3.4.3", "3.6": "matplotlib==3.6.3", "3.7": "matplotlib==3.7.1"}

# What the build reads: a change here changes the overlay.
BUILD_INPUTS = ("src", "extern", "setup.py", "setupext.py", "setup.cfg", "setup.cfg.template", "mplsetup.cfg.template",
                "pyproject.toml", "lib/matplotlib/mpl-data/matplotlibrc.template")

# A venv start-up file: lib/mpl_toolkits/__init__.py (up to 3.7) calls pkg_resources.declare_namespace, whose
# DeprecationWarning matplotlib's conftest turns into a collection error. An editable install imports it at start-up
# (through its own .pth), where the warning is ignored; without an install this file does the same.
PREIMPORT_PTH = ("zz_vgb_mpl_preimport.pth",
                 'import sys; exec("try:\\n import pkg_resources, mpl_toolkits\\nexcept Exception:\\n pass")\n')

BUILD_CFG = "[libs]\nsystem_freetype = True\nsystem_qhull = True\n"  # Debian's libfreetype-dev and libqhull-dev
PYTHONPATH = ("lib",)  # where matplotlib's packages are, relative to the checkout


def _matplotlib_system_needs(version: str) -> tuple[tuple[str, str], ...]:
    """What matplotlib's build and image tests need from Debian (docs/code-suite-matplotlib.md): FreeType, libpng and
    pkg-config to compile, qhull from 3.4 on (3.0/3.1 compile their vendored copy), ghostscript for the pdf/eps
    image comparisons that the labels include."""
    needs: tuple[tuple[str, str], ...] = (("pkg-config", "pkg-config"), ("/usr/include/freetype2/ft2build.h", "libfreetype-dev"),
             ("/usr/include/png.h", "libpng-dev"), ("gs", "ghostscript"))
    if version not in ("3.0", "3.1"):
        needs += (("/usr/include/libqhull_r/qhull_ra.h", "libqhull-dev"),)
    return needs


def missing_system_packages(repo: str, version: str) -> list[str]:
    """The Debian packages the repository's recipe needs at `version` that this machine lacks.

    Args:
        repo: a repository with a recipe (`built_in_place`).
        version: the instance's version.
    """
    needs = RECIPES[repo].system_needs(version)
    return sorted({package for need, package in needs if not (os.path.exists(need) if os.path.isabs(need) else shutil.which(need))})


def _matplotlib_build_env(work: Path, version: str) -> dict[str, str]:
    (work / "mplsetup.cfg").write_text(BUILD_CFG)
    # setuptools_scm (3.4+) cannot read a version from a tree without history
    return {"MPLSETUPCFG": str(work / "mplsetup.cfg"), "SETUPTOOLS_SCM_PRETEND_VERSION": f"{version}.0.dev0", "MAX_JOBS": "1"}


def _wheel_ft2font(python: Path, version: str, overlay: Path, work: Path, run: Run) -> None:
    """Replaces the locally built ft2font with the official wheel's (FreeType 2.6.1, as the labels were made with)."""
    requirement = FT2FONT_WHEEL.get(version)
    if not requirement:
        return
    run([str(python), "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", "-d", str(work / "wheel"), requirement])
    (wheel,) = (work / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.startswith("matplotlib/ft2font.") and n.endswith(".so")]
        if len(names) != 1:
            raise RuntimeError(f"{wheel.name} holds {len(names)} ft2font modules, expected one")
        for old in (overlay / "lib" / "matplotlib").glob("ft2font.*.so"):
            old.unlink()
        (overlay / "lib" / names[0]).write_bytes(archive.read(names[0]))


# --- astropy ------------------------------------------------------------------------------------------------------

# A current leap-second table (docs/code-suite-astropy.md, "Leap seconds"): every table astropy 4.3-5.2 can reach
# offline has expired, and Time scale conversions then warn, an error under astropy's `filterwarnings = error`. The
# package index's astropy-iers-data carries the IERS tables (this release's Leap_Second.dat expires 28 June 2027).
# Those astropy versions predate the package, so a venv start-up file (a `.pth` in site-packages: a repository-root
# file cannot shadow it) hands its table to astropy's own `iers.conf.system_leap_second_file` (the option Debian's
# astropy sets to its zoneinfo copy) once astropy.utils.iers.iers has been executed, unless something set it already.
# Per interpreter it costs one finder on sys.meta_path; nothing is imported until astropy's iers module is.
ASTROPY_IERS_DATA = "astropy-iers-data==0.2026.11.16.0.37.44"
LEAP_TABLE_HOOK = """\
import os, sys, sysconfig
class _VgbLeapTable:
    done = False
    def find_spec(self, name, path=None, target=None):
        if name != 'astropy.utils.iers.iers' or self.done:
            return None
        self.done = True
        for finder in sys.meta_path:
            spec = None if finder is self else finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        run = spec.loader.exec_module
        table = os.path.join(sysconfig.get_paths()['purelib'], 'astropy_iers_data', 'data', 'Leap_Second.dat')
        def exec_module(module):
            run(module)
            if os.path.isfile(table) and not module.conf.system_leap_second_file:
                module.conf.system_leap_second_file = table
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, _VgbLeapTable())
"""
# site runs only .pth lines that start with "import", in a function whose locals a nested function cannot see: the
# hook gets globals of its own
LEAP_TABLE_PTH = ("zz_vgb_astropy_leap_table.pth", f"import sys; exec({LEAP_TABLE_HOOK!r}, {{}})\n")


# SWE-bench gives 4.3-5.2 the same pip_packages (Python 3.9, numpy 1.25.2, pytest 7.4.0, setuptools 68.0.0), all of
# which have Python 3.11 wheels; the venv adds what `pip install -e .` would have fetched for the build (pyproject's
# build-system requires). Cython: the trees pin 0.29.22 (4.3) or 0.29.30 (5.x), whose generated C does not compile
# against 3.11's frame API; 0.29.36 does, and generates the same module interfaces. 1.3 and 3.1 trees carry the
# astropy_helpers submodule (code T before any environment is asked for): they get no profile.
ASTROPY_PROFILES: dict[str, tuple[str, ...]] = {
    "py311": ("cython==0.29.36", "extension-helpers==1.1.1", "setuptools_scm==7.1.0", "wheel==0.41.2", ASTROPY_IERS_DATA),
}
ASTROPY_PROFILE_OF_VERSION = {"4.3": "py311", "5.0": "py311", "5.1": "py311", "5.2": "py311"}
ASTROPY_BUILD_INPUTS = ("cextern", "setup.py", "setup.cfg", "pyproject.toml", "astropy")  # astropy/: .pyx, .c, setup_package.py
ASTROPY_BUILD_SUFFIXES = (".c", ".h", ".pyx", ".pxd", ".pxi", ".cpp")  # under astropy/, only these feed the compiler


def _astropy_build_env(work: Path, version: str) -> dict[str, str]:
    # setuptools_scm writes astropy/_version.py; the tree has no history to read a version from
    return {"SETUPTOOLS_SCM_PRETEND_VERSION": f"{version}.dev0", "MAX_JOBS": "1"}


RECIPES: dict[str, Recipe] = {
    MATPLOTLIB: Recipe(PROFILES, PROFILE_OF_VERSION, dict.fromkeys(("new", "new-pytest8", "new-py39"), SPEC_PACKAGES_FROM),
                       BUILD_INPUTS, ("lib",), PYTHONPATH, _matplotlib_build_env, _wheel_ft2font, PREIMPORT_PTH,
                       ft2font=FT2FONT_WHEEL, system_needs=_matplotlib_system_needs,
                       profile_of_instance=PROFILE_OF_INSTANCE, profile_python=PROFILE_PYTHON),
    ASTROPY: Recipe(ASTROPY_PROFILES, ASTROPY_PROFILE_OF_VERSION, {"py311": "5.1"}, ASTROPY_BUILD_INPUTS, ("astropy",), (),
                    _astropy_build_env, preimport_pth=LEAP_TABLE_PTH, start_up_keyed=True,
                    pytest_autoload=True),
}


def built_in_place(repo: str) -> bool:
    return repo in RECIPES


def recipe(repo: str) -> Recipe:
    return RECIPES[repo]


def start_up_digest(repo: str) -> str:
    """What names the recipe's venv start-up file in the environment's key ("" : not keyed)."""
    rules = RECIPES[repo]
    if not (rules.start_up_keyed and rules.preimport_pth):
        return ""
    return hashlib.sha256("\0".join(rules.preimport_pth).encode()).hexdigest()[:16]


def profile(repo: str, version: str, chosen: str = "") -> str | None:
    """The profile of an instance at `version`: `chosen` (its task's recorded "profile") when given, else the version's."""
    if chosen:
        return chosen if chosen in RECIPES[repo].profiles else None
    return RECIPES[repo].profile_of_version.get(version)


def profile_python(repo: str, profile_name: str) -> str:
    """The Python a profile's venv is made from: "3.9" (the bullseye root file system) or "3.11" (this machine's)."""
    return RECIPES[repo].profile_python.get(profile_name, "3.11")


def environment_choice(repo: str, version: str, instance_id: str) -> dict[str, str]:
    """What a task's environment record says besides repository and version: the instance's own profile where it has
    one ("profile"), and "python": "3.9" where its profile runs there; {} for the rest, whose records stay as they were."""
    rules = RECIPES[repo]
    chosen = rules.profile_of_instance.get(instance_id, "")
    python = profile_python(repo, chosen or rules.profile_of_version.get(version, ""))
    return {**({"profile": chosen} if chosen else {}), **({"python": python} if python != "3.11" else {})}


def _build_input_files(repo: str, checkout: Path, name: str) -> list[Path]:
    top = checkout / name
    if top.is_file():
        return [top]
    if not top.is_dir():
        return []
    paths = sorted(p for p in top.rglob("*") if p.is_file())
    if repo == ASTROPY and name == "astropy":  # the package's Python files do not reach the compiler
        paths = [p for p in paths if p.suffix in ASTROPY_BUILD_SUFFIXES or p.name == "setup_package.py"]
    return paths


@functools.lru_cache(maxsize=256)
def sources_digest(repo: str, checkout: Path, version: str) -> str:
    """The overlay's content key: every file the build reads, and the version it stamps. Cached per path: checkouts
    are content-addressed and never change (hashing one takes about 0.3 s, and every test run asks)."""
    digest = hashlib.sha256(f"version:{version}\0ft2font:{RECIPES[repo].ft2font.get(version, '')}\0".encode())
    for name in RECIPES[repo].build_inputs:
        for path in _build_input_files(repo, checkout, name):
            digest.update(str(path.relative_to(checkout)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build_overlay(repo: str, checkout: Path, python: Path, version: str, overlay: Path, run: Run) -> None:
    """Builds the extensions of `checkout` with `python` (a profile venv's) and writes the files the build made
    under the repository's package directories into `overlay` (same relative paths)."""
    rules = RECIPES[repo]
    missing = missing_system_packages(repo, version)
    if missing:  # named up front: the compiler's error would say only "compilation terminated" in a cut-off line
        raise RuntimeError(f"missing system packages: {' '.join(missing)} (as root: apt-get install --no-install-recommends "
                           f"{' '.join(missing)})")
    with tempfile.TemporaryDirectory(prefix="vgb-ext-build-") as work:
        tree = Path(work) / "tree"
        shutil.copytree(checkout, tree, symlinks=True)
        outputs = [p for d in rules.package_dirs for p in (tree / d).rglob("*") if p.is_file()]
        before = {p: p.stat().st_mtime_ns for p in outputs}
        env = {**os.environ, **rules.build_env(Path(work), version)}
        run([str(python), "setup.py", "build_ext", "--inplace"], cwd=tree, env=env)
        made = [p for d in rules.package_dirs for p in (tree / d).rglob("*") if p.is_file()
                and "__pycache__" not in p.parts and before.get(p) != p.stat().st_mtime_ns]
        if not any(p.suffix == ".so" for p in made):
            raise RuntimeError("build_ext made no extension module")
        for path in made:
            target = overlay / path.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        if rules.after_build:
            rules.after_build(python, version, overlay, Path(work), run)
