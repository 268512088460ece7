"""astropy's recipe (`extensions.RECIPES`): a Python 3.11 profile venv from SWE-bench's 4.3-5.2 packages, an overlay
of what `build_ext --inplace` makes under astropy/, keyed on what the compiler reads; test runs load the venv's
pytest plugins (astropy's setup.cfg names their options and markers). A failed build is one line, code V, and
leaves nothing half-made."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifierbench.sources.swebench import checkout, instance_build, venv_store, extensions, instances
from verifierbench.sources.swebench.testrun import _runner_module

ASTROPY = "astropy/astropy"


def _checkout(root: Path, pyx: str = "def f():\n    return 1\n") -> Path:
    (root / "astropy" / "utils").mkdir(parents=True)
    (root / "astropy" / "__init__.py").write_text("VALUE = 1\n")
    (root / "astropy" / "utils" / "_speedups.pyx").write_text(pyx)
    (root / "cextern").mkdir()
    (root / "cextern" / "lib.c").write_text("int g(void) { return 0; }\n")
    return root


def test_astropy_environments_share_one_profile_venv_and_key_on_what_the_compiler_reads(tmp_path):
    first = venv_store.spec_for(ASTROPY, "5.1", _checkout(tmp_path / "a"))
    assert first.extensions and first.runner == "pytest" and first.requirements == ()
    # SWE-bench's pins for 4.3-5.2, then the build tools `pip install -e .` would have fetched
    assert "numpy==1.25.2" in first.pip_packages and "pytest==7.4.0" in first.pip_packages
    assert "cython==0.29.36" in first.pip_packages and "extension-helpers==1.1.1" in first.pip_packages
    # a Python change (every instance's patches) keeps the overlay; a Cython or C change does not
    (tmp_path / "a" / "astropy" / "__init__.py").write_text("VALUE = 2\n")
    extensions.sources_digest.cache_clear()
    assert venv_store.spec_for(ASTROPY, "5.1", tmp_path / "a").key == first.key
    other = venv_store.spec_for(ASTROPY, "5.1", _checkout(tmp_path / "b", "def f():\n    return 2\n"))
    assert other.key != first.key and other.venv.key == first.venv.key
    c_change = _checkout(tmp_path / "c")
    (c_change / "cextern" / "lib.c").write_text("int g(void) { return 1; }\n")
    assert venv_store.spec_for(ASTROPY, "5.1", c_change).key != first.key
    # 4.3 to 5.2 share the profile venv; each version stamps its own overlay
    assert {venv_store.spec_for(ASTROPY, v, tmp_path / "a").venv.key for v in ("4.3", "5.0", "5.1", "5.2")} == {first.venv.key}
    assert venv_store.spec_for(ASTROPY, "5.0", tmp_path / "a").key != first.key
    record = first.to_json()
    assert record["pythonpath"] == [] and record["pytest_autoload"] is True and record["overlay"] == "overlay"
    assert "pytest_autoload" not in venv_store.spec_for("matplotlib/matplotlib", "3.5", tmp_path / "a").to_json()


@pytest.mark.parametrize("version", ["1.3", "3.1", ""])
def test_astropy_versions_without_a_profile_are_refused_in_one_line(tmp_path, version):
    with pytest.raises(venv_store.EnvironmentError_, match=r"no environment profile measured for this version \(docs/code-suite-astropy.md\)") as refused:
        venv_store.spec_for(ASTROPY, version, _checkout(tmp_path / "a"))
    assert "\n" not in str(refused.value)


FAILING_SETUP = "import sys\nprint('error: Cython.Compiler.Errors.CompileError: astropy/utils/_speedups.pyx')\nsys.exit(1)\n"
WORKING_SETUP = """\
import os, pathlib, sys
assert sys.argv[1:] == ["build_ext", "--inplace"], sys.argv
pathlib.Path("astropy/utils/_speedups.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\\x7fELF compiled")
pathlib.Path("astropy/_version.py").write_text(f"version = {os.environ['SETUPTOOLS_SCM_PRETEND_VERSION']!r}\\n")
pathlib.Path("build").mkdir()
pathlib.Path("build/temp.o").write_bytes(b"not part of the overlay")
"""


@pytest.fixture()
def no_packages(monkeypatch, traversable_tmp):
    """The profile without packages (no network): the venv is Python's own, the build a script. (traversable_tmp is
    shared by the session: names of our own.)"""
    monkeypatch.setitem(extensions.ASTROPY_PROFILES, "py311", ())
    monkeypatch.setitem(venv_store.specs()["specs"][ASTROPY]["5.1"], "pip_packages", [])
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(traversable_tmp / "astropy-envs"))
    return traversable_tmp


def test_a_failed_astropy_build_is_one_line_code_v_and_leaves_nothing_half_made(no_packages, monkeypatch):
    checkout_dir = _checkout(no_packages / "astropy-broken")
    (checkout_dir / "setup.py").write_text(FAILING_SETUP)
    spec = venv_store.spec_for(ASTROPY, "5.1", checkout_dir)
    lines: list[str] = []
    with pytest.raises(venv_store.EnvironmentError_) as failed:
        venv_store.ensure(spec, checkout_dir, lines.append)
    message = str(failed.value)
    assert "\n" not in message and "build_ext --inplace" in message and "CompileError" in message
    root = no_packages / "astropy-envs"
    assert venv_store.env_dir(spec.key) is None and not (root / spec.key).exists() and not list(root.glob(".staging-*"))
    assert venv_store.env_dir(spec.venv.key) is not None  # the complete profile venv stays, for the next instance
    assert lines[-1].startswith("build: swebench: making compiled extensions for astropy/astropy 5.1")
    # ... and the build turns it into an exclusion with code V, going on with the rest
    monkeypatch.setattr(checkout, "require_complete", lambda clone, commit: None)
    monkeypatch.setattr(checkout, "materialize", lambda clone, commit, store=None: "digest")
    monkeypatch.setattr(checkout, "checkout_dir", lambda digest: checkout_dir)
    monkeypatch.setenv("VERIFIERBENCH_ENVS", str(no_packages / "astropy-envs"))
    inst = instances.Instance(instance_id="astropy__astropy-1", repo=ASTROPY, base_commit="0" * 40, patch="", test_patch="",
                              fail_to_pass=["astropy/t.py::test_a"], pass_to_pass=[], version="5.1", problem_statement="p")
    excluded = instance_build.construct_or_exclude(inst, None, 0, None, lambda line: None)
    assert isinstance(excluded, dict) and excluded["code"] == "V" and "CompileError" in excluded["evidence"]["reason"]


def test_the_astropy_overlay_is_what_the_build_made_under_astropy_and_runs_load_the_venvs_plugins(no_packages):
    checkout_dir = _checkout(no_packages / "astropy-working")
    (checkout_dir / "setup.py").write_text(WORKING_SETUP)
    spec = venv_store.spec_for(ASTROPY, "5.1", checkout_dir)
    made = venv_store.ensure(spec, checkout_dir, lambda line: None)
    assert sorted(p.relative_to(made / "overlay").as_posix() for p in (made / "overlay").rglob("*") if p.is_file()) == \
        ["astropy/_version.py", "astropy/utils/_speedups.cpython-311-x86_64-linux-gnu.so"]
    assert (made / "overlay" / "astropy" / "_version.py").read_text() == "version = '5.1.dev0'\n"
    assert not (checkout_dir / "astropy" / "_version.py").exists()  # built in a copy, the checkout untouched
    # A run imports the package from its copy's root, overlay included, with the venv's plugins allowed to load.
    (checkout_dir / "tests").mkdir()
    (checkout_dir / "tests" / "runtests.py").write_text(
        "import os\nprint('AUTOLOAD', os.environ.get('PYTEST_DISABLE_PLUGIN_AUTOLOAD'))\n"
        "import astropy._version\nprint('FROM', os.path.relpath(astropy._version.__file__))\n")
    runner = _runner_module()
    done = runner.run(str(checkout_dir), [], ["x"], runner="django", python=str(made / "bin" / "python"))
    assert "AUTOLOAD None" in done["log"] and "FROM astropy/_version.py" in done["log"], done["log"]
    done = runner.run(str(checkout_dir), [], ["x"], runner="django", python=None)  # no environment: autoload stays off
    assert "AUTOLOAD 1" in done["log"] and "FROM" not in done["log"], done["log"]
