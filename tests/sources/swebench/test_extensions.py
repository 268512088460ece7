"""Environments with compiled extensions (matplotlib): keyed on the C sources, one venv per profile plus an overlay
per set of sources, a failed build named in one line and nothing half-made left; test runs lay the overlay over
their scratch copy of the checkout."""

from __future__ import annotations

import dataclasses

from pathlib import Path

import pytest

from verifierbench.sources.swebench import venv_store, extensions
from verifierbench.sources.swebench.testrun import _runner_module

MPL = "matplotlib/matplotlib"


def _checkout(root: Path, c_source: str = "int f(void) { return 1; }\n") -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "_ext.c").write_text(c_source)
    (root / "lib" / "pkg").mkdir(parents=True)
    (root / "lib" / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    return root


def test_matplotlib_environments_key_on_the_c_sources_and_share_a_profile_venv(tmp_path):
    first = venv_store.spec_for(MPL, "3.5", _checkout(tmp_path / "a"))
    assert first.extensions and first.runner == "pytest" and first.requirements == ()
    assert "numpy==1.25.2" in first.pip_packages and "pandas==2.0.3" in first.pip_packages  # SWE-bench's, then ours
    # A Python-only change (what every instance's patches are) keeps the overlay; a C change does not.
    (tmp_path / "a" / "lib" / "pkg" / "__init__.py").write_text("VALUE = 2\n")
    extensions.sources_digest.cache_clear()  # (checkouts never change: the digest is cached per path)
    assert venv_store.spec_for(MPL, "3.5", tmp_path / "a").key == first.key
    other_c = venv_store.spec_for(MPL, "3.5", _checkout(tmp_path / "b", "int f(void) { return 2; }\n"))
    assert other_c.key != first.key and other_c.venv.key == first.venv.key
    # 3.5 and 3.6 share the profile venv, not the overlay; 3.1 has its own profile
    assert venv_store.spec_for(MPL, "3.6", tmp_path / "a").venv.key == first.venv.key != first.key
    old = venv_store.spec_for(MPL, "3.1", tmp_path / "a")
    assert old.venv.key != first.venv.key and "numpy==1.23.5" in old.pip_packages
    assert not first.venv.extensions and first.venv.venv == first.venv
    with pytest.raises(venv_store.EnvironmentError_, match="no environment profile measured for this version"):
        venv_store.spec_for(MPL, "2.2", tmp_path / "a")


def test_plain_venv_keys_are_unchanged_by_the_extensions_field(tmp_path):
    # Environments made before `extensions` existed stay valid (the key main computed before the field was added).
    spec = venv_store.EnvSpec("django/django", "3.1", "django", (("r.txt", "asgiref\n"),), ("pytest",), "3.11.2")
    assert spec.key == "django__django-3.1-a9dd1b9bb7102c77"


FAILING_SETUP = "import sys\nprint('error: freetype headers not found')\nsys.exit(1)\n"
WORKING_SETUP = """\
import pathlib, sys
assert sys.argv[1:] == ["build_ext", "--inplace"], sys.argv
pathlib.Path("lib/pkg/_ext.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\\x7fELF compiled")
pathlib.Path("lib/pkg/_version.py").write_text("version = 'generated'\\n")
"""


@pytest.fixture()
def no_packages(monkeypatch, traversable_tmp):
    """Profiles without packages (no network): the venv is Python's own, the build a script."""
    monkeypatch.setitem(extensions.PROFILES, "new", ())
    monkeypatch.setitem(venv_store.specs()["specs"][MPL][extensions.SPEC_PACKAGES_FROM], "pip_packages", [])
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(traversable_tmp / "envs"))
    # Whatever this machine has installed: the builds here are scripts (test_missing_system_packages_are_named
    # checks the real needs).
    monkeypatch.setitem(extensions.RECIPES, MPL, dataclasses.replace(extensions.RECIPES[MPL], system_needs=lambda version: ()))
    return traversable_tmp


def test_a_failed_extension_build_is_one_line_and_leaves_nothing_half_made(no_packages):
    checkout = _checkout(no_packages / "broken")
    (checkout / "setup.py").write_text(FAILING_SETUP)
    spec = venv_store.spec_for(MPL, "3.5", checkout)
    lines: list[str] = []
    with pytest.raises(venv_store.EnvironmentError_) as failed:
        venv_store.ensure(spec, checkout, lines.append)
    message = str(failed.value)
    assert "\n" not in message and "build_ext --inplace" in message and "freetype headers not found" in message
    root = no_packages / "envs"
    assert venv_store.env_dir(spec.key) is None and not (root / spec.key).exists()
    assert not list(root.glob(".staging-*"))  # nothing half-made
    assert venv_store.env_dir(spec.venv.key) is not None  # the profile venv was complete: it stays, for the next instance
    assert lines[0].startswith("build: swebench: making test environment matplotlib/matplotlib profile-new")
    assert lines[-1].startswith("build: swebench: making compiled extensions for matplotlib/matplotlib 3.5")


def test_missing_system_packages_are_named_in_one_line_before_any_build(no_packages, monkeypatch):
    """A machine without matplotlib's system packages used to fail deep in the compiler, cut to "compilation
    terminated" in the exclusion line; the line now names the packages to install."""
    assert [p for _, p in extensions._matplotlib_system_needs("3.5")] == ["pkg-config", "libfreetype-dev", "libpng-dev",
                                                                         "ghostscript", "libqhull-dev"]
    assert "libqhull-dev" not in [p for _, p in extensions._matplotlib_system_needs("3.1")]  # vendored qhull
    needs = (("/nonexistent/libqhull_r/qhull_ra.h", "libqhull-dev"), ("vgb-no-such-command", "ghostscript"), ("sh", "dash"))
    monkeypatch.setitem(extensions.RECIPES, MPL, dataclasses.replace(extensions.RECIPES[MPL], system_needs=lambda version: needs))
    checkout = _checkout(no_packages / "needs")
    spec = venv_store.spec_for(MPL, "3.5", checkout)
    with pytest.raises(venv_store.EnvironmentError_) as failed:
        venv_store.ensure(spec, checkout, lambda line: None)
    message = str(failed.value)
    assert "\n" not in message and "missing system packages: ghostscript libqhull-dev (as root: apt-get install" in message
    assert venv_store.env_dir(spec.key) is None and not list((no_packages / "envs").glob(".staging-*"))


def test_the_overlay_is_laid_over_every_test_runs_copy_of_the_checkout(no_packages):
    checkout = _checkout(no_packages / "working")
    (checkout / "setup.py").write_text(WORKING_SETUP)
    spec = venv_store.spec_for(MPL, "3.5", checkout)
    made = venv_store.ensure(spec, checkout, lambda line: None)
    assert sorted(p.relative_to(made / "overlay").as_posix() for p in (made / "overlay").rglob("*") if p.is_file()) == \
        ["lib/pkg/_ext.cpython-311-x86_64-linux-gnu.so", "lib/pkg/_version.py"]
    assert not (checkout / "lib" / "pkg" / "_version.py").exists()  # built in a copy, the checkout untouched
    assert venv_store.ensure(spec, checkout, lambda line: pytest.fail(line)) == made  # cached
    # A diff against the generated file applies only when the run's copy of the checkout carries the overlay.
    diff = ("--- a/lib/pkg/_version.py\n+++ b/lib/pkg/_version.py\n@@ -1 +1 @@\n-version = 'generated'\n"
            "+version = 'patched'\n")
    runner = _runner_module()
    assert runner.run(str(checkout), [diff], [], python=str(made / "bin" / "python"))["applied"] is True
    assert runner.run(str(checkout), [diff], [], python=None)["applied"] is False
    # ... and the checkout's lib/ is on the path of the tests (a runtests.py stands in for the test command)
    (checkout / "tests").mkdir()
    (checkout / "tests" / "runtests.py").write_text("import os, pkg._version\nprint('FROM', os.path.relpath(pkg._version.__file__))\n")
    done = runner.run(str(checkout), [], ["x"], runner="django", python=str(made / "bin" / "python"))
    assert "FROM lib/pkg/_version.py" in done["log"], done["log"]


def test_a_run_leaves_no_scratch_behind_whichever_way_it_ends(tmp_path):
    checkout = _checkout(tmp_path / "checkout")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    runner = _runner_module()
    assert runner.run(str(checkout), ["--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"], ["x"], scratch=str(scratch))["applied"] is False
    assert runner.run(str(checkout), [], [], scratch=str(scratch))["applied"] is True
    assert list(scratch.iterdir()) == []
